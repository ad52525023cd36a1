/**
 * Registry policies (docs/reference/signing.md "Policy"; GenesisCode `docs/spec/REGISTRY_POLICY.md`):
 * TOML with `version = 1`, `min_signatures` (default 0) and `allowed_public_keys` (base64 of 32
 * bytes each, default none); no other key. `min_signatures > 0` needs at least one allowed key.
 */
import { parse as parseToml, TomlError } from 'smol-toml';
import { SigningCode, signingError } from './errors.js';
import { decodeBase64Exact } from './terms.js';

/** A checked registry policy. */
export interface RegistryPolicy {
  version: 1;
  /** How many valid signatures by allowed keys the acceptance needs (a non-negative integer). */
  minSignatures: number;
  /** The allowed public keys as their file spells them (canonical base64), in file order. */
  allowedPublicKeys: string[];
  /** The same keys decoded (32 bytes each). */
  allowedKeyBytes: Uint8Array[];
}

/**
 * Parses and checks the text of a policy file. `file` names it in errors.
 * @throws GcError `signing/policy` (exit 10): not TOML, an unknown key, `version` other than the
 *   integer 1, `min_signatures` not a non-negative integer, `allowed_public_keys` not an array of
 *   canonical base64 strings of 32 bytes, or `min_signatures > 0` with no allowed key.
 */
export function parsePolicy(text: string, file: string): RegistryPolicy {
  const fail = (message: string): never => {
    throw signingError(SigningCode.policy, `${file}: ${message}`, file);
  };
  let table: Record<string, unknown> = {};
  try {
    table = parseToml(text, { integersAsBigInt: true }) as Record<string, unknown>;
  } catch (error) {
    const line = error instanceof TomlError ? error.line : undefined;
    throw signingError(
      SigningCode.policy,
      `${file}: not TOML: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`,
      file,
      undefined,
      line !== undefined ? { line } : undefined,
    );
  }
  for (const k of Object.keys(table)) {
    if (k !== 'version' && k !== 'min_signatures' && k !== 'allowed_public_keys')
      fail(`unknown key ${JSON.stringify(k)} (a policy has version, min_signatures, allowed_public_keys)`);
  }
  if (table.version !== 1n) fail(`version must be the integer 1 (found ${table.version === undefined ? 'none' : String(table.version)})`);
  const min = table.min_signatures ?? 0n;
  if (typeof min !== 'bigint' || min < 0n || min > 1_000_000n) fail('min_signatures must be a non-negative integer');
  const keysRaw = table.allowed_public_keys ?? [];
  if (!Array.isArray(keysRaw)) fail('allowed_public_keys must be an array of base64 strings');
  const allowedPublicKeys: string[] = [];
  const allowedKeyBytes: Uint8Array[] = [];
  (keysRaw as unknown[]).forEach((k, i) => {
    const b = typeof k === 'string' ? decodeBase64Exact(k, 32) : undefined;
    if (b === undefined) fail(`allowed_public_keys[${i}] is not the canonical base64 of a 32-byte Ed25519 public key`);
    allowedPublicKeys.push(k as string);
    allowedKeyBytes.push(b!);
  });
  const minSignatures = Number(min as bigint);
  if (minSignatures > 0 && allowedPublicKeys.length === 0) fail(`min_signatures is ${minSignatures} but allowed_public_keys is empty`);
  return { version: 1, minSignatures, allowedPublicKeys, allowedKeyBytes };
}
