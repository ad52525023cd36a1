/**
 * Signed evidence, byte-compatible with GenesisCode v0.2 (docs/reference/signing.md): Ed25519 from
 * `node:crypto`, key files, the acceptance signature, the signature set, the transparency chain and
 * registry policies.
 */
export * from './ed25519.js';
export * from './errors.js';
export * from './terms.js';
export * from './keyfile.js';
export * from './policy.js';
export * from './state.js';
export * from './chain.js';
export * from './verify.js';
export * from './sign.js';
