/**
 * Ed25519 (RFC 8032) from `node:crypto`: keys are the raw 32-byte seed and the raw 32-byte public
 * key the reference's key files hold (docs/reference/signing.md "Keys"); signatures are 64 bytes.
 * Verification also refuses the public keys of small order that the reference's `verify_strict`
 * refuses, so that a key which verifies every message never counts.
 */
import { createPrivateKey, createPublicKey, randomBytes, sign as cryptoSign, verify as cryptoVerify, type KeyObject } from 'node:crypto';
import { bytesEqual } from '../util/bytes.js';

/** DER prefix of a PKCS #8 Ed25519 private key: the 32-byte seed follows. */
const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
/** DER prefix of an SPKI Ed25519 public key: the 32-byte key follows. */
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/**
 * The encodings of the eight points of small order (and their non-canonical twins) that a strict
 * verifier refuses as public keys: each verifies forged signatures over any message.
 */
const SMALL_ORDER = [
  '0100000000000000000000000000000000000000000000000000000000000000',
  'ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
  '0000000000000000000000000000000000000000000000000000000000000000',
  '0000000000000000000000000000000000000000000000000000000000000080',
  'c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a',
  'c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa',
  '26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05',
  '26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85',
  'eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
  'eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff',
  'edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
  'edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff',
  'ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff',
  '0100000000000000000000000000000000000000000000000000000000000080',
].map((h) => Buffer.from(h, 'hex'));

function privateKeyOf(seed: Uint8Array): KeyObject {
  if (seed.length !== 32) throw new RangeError(`an Ed25519 seed has 32 bytes, not ${seed.length}`);
  return createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' });
}

/** The 32-byte public key of the 32-byte secret seed `seed`. */
export function publicKeyOf(seed: Uint8Array): Uint8Array {
  const der = createPublicKey(privateKeyOf(seed)).export({ format: 'der', type: 'spki' });
  return new Uint8Array(der.subarray(SPKI_PREFIX.length));
}

/** A fresh key pair from the operating system's random source: `{ seed, publicKey }`, 32 bytes each. */
export function generateKeyPair(): { seed: Uint8Array; publicKey: Uint8Array } {
  const seed = new Uint8Array(randomBytes(32));
  return { seed, publicKey: publicKeyOf(seed) };
}

/** The 64-byte Ed25519 signature of `message` by the key of `seed` (deterministic, RFC 8032 §5.1.6). */
export function signMessage(seed: Uint8Array, message: Uint8Array): Uint8Array {
  return new Uint8Array(cryptoSign(null, message, privateKeyOf(seed)));
}

/**
 * True exactly when `signature` (64 bytes) is a valid Ed25519 signature of `message` by `publicKey`
 * (32 bytes). Wrong lengths, keys that do not decode, small-order keys and non-canonical `S` are false.
 */
export function verifySignature(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  if (publicKey.length !== 32 || signature.length !== 64) return false;
  if (SMALL_ORDER.some((p) => bytesEqual(p, publicKey))) return false;
  let key: KeyObject;
  try {
    key = createPublicKey({ key: Buffer.concat([SPKI_PREFIX, publicKey]), format: 'der', type: 'spki' });
  } catch {
    return false;
  }
  try {
    return cryptoVerify(null, message, key, signature);
  } catch {
    return false;
  }
}
