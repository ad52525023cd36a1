/**
 * Key files (docs/reference/signing.md "Keys"; GenesisCode `docs/spec/SIGNING.md` "Key Format"):
 * TOML with `alg = "ed25519"`, `sk_b64` (the 32-byte seed) and `pk_b64` (the 32-byte public key),
 * in that order, as the reference writes them.
 *
 * Custody: a key file is created exclusively (never over an existing path, whatever it is) with
 * mode 0600 given at creation, so that group and other are denied before a secret byte is written;
 * it is read through a descriptor opened with `O_NOFOLLOW`, whose identity (device and inode) must
 * be the path's, which must be a regular file whose mode grants nothing to group or other. The
 * pair must match: the public key is derived from the seed and compared.
 */
import { closeSync, constants, fstatSync, fsyncSync, lstatSync, mkdirSync, openSync, readSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { parse as parseToml, TomlError } from 'smol-toml';
import { bytesEqual } from '../util/bytes.js';
import { GcError, ioError } from '../util/errors.js';
import { generateKeyPair, publicKeyOf } from './ed25519.js';
import { SigningCode, signingError } from './errors.js';
import { decodeBase64Exact, encodeBase64 } from './terms.js';

/** A key pair as its file holds it. */
export interface KeyPair {
  /** The 32-byte secret seed. */
  seed: Uint8Array;
  /** The 32-byte public key. */
  publicKey: Uint8Array;
  /** `pk_b64`: the canonical base64 of the public key. */
  publicKeyB64: string;
}

/** The largest key file read (a key file is about 130 bytes). */
const MAX_KEY_FILE_BYTES = 64 * 1024;

/** The bytes of the key file of `pair`: `alg`, `sk_b64`, `pk_b64`, one `key = "value"` line each. */
export function printKeyFile(pair: { seed: Uint8Array; publicKey: Uint8Array }): string {
  return `alg = "ed25519"\nsk_b64 = "${encodeBase64(pair.seed)}"\npk_b64 = "${encodeBase64(pair.publicKey)}"\n`;
}

/**
 * Creates the key file `path` for `pair` (a fresh pair when omitted): parent directories are made,
 * the file is created with `O_CREAT|O_EXCL|O_NOFOLLOW` and mode 0600, written, fsynced.
 * @returns the pair written.
 * @throws GcError `signing/key-exists` (exit 10) when anything exists at `path` (a file, a symlink,
 *   even a dangling one); `io/<errno>` (exit 70) for other failures.
 */
export function writeKeyFile(path: string, pair: { seed: Uint8Array; publicKey: Uint8Array } = generateKeyPair()): KeyPair {
  let exists = false;
  try {
    lstatSync(path);
    exists = true;
  } catch {
    /* nothing there: create it */
  }
  if (exists) throw signingError(SigningCode.keyExists, `${path} exists: keygen never overwrites a path; choose another --out or remove it first`, path);
  mkdirSync(dirname(path), { recursive: true });
  let fd: number;
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0), 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
      throw signingError(SigningCode.keyExists, `${path} exists: keygen never overwrites a path; choose another --out or remove it first`, path);
    }
    throw ioError(error, path, 'create');
  }
  try {
    // The mode given at creation is masked by the umask, which can only remove bits; check anyway.
    const st = fstatSync(fd);
    if ((st.mode & 0o077) !== 0)
      throw signingError(SigningCode.key, `${path} was created with mode ${(st.mode & 0o777).toString(8)}; refusing to write a secret into it`, path);
    const data = Buffer.from(printKeyFile(pair), 'utf8');
    let off = 0;
    while (off < data.length) off += writeSync(fd, data, off, data.length - off);
    fsyncSync(fd);
  } catch (error) {
    throw error instanceof GcError ? error : ioError(error, path, 'write');
  } finally {
    closeSync(fd);
  }
  return { seed: pair.seed, publicKey: pair.publicKey, publicKeyB64: encodeBase64(pair.publicKey) };
}

function keyError(path: string, message: string): GcError {
  return signingError(SigningCode.key, `${path}: ${message}`, path);
}

/**
 * Reads and checks the key file `path` (see the module comment for the custody rules).
 * @throws GcError `signing/key` (exit 10): missing, a symlink or not a regular file, changed while
 *   opened, readable or writable by group/other, not TOML, not exactly `alg`/`sk_b64`/`pk_b64`,
 *   `alg` not `ed25519`, a value that is not the canonical base64 of 32 bytes, or a public key that
 *   is not the seed's.
 */
export function readKeyFile(path: string): KeyPair {
  let before;
  try {
    before = lstatSync(path);
  } catch (error) {
    throw keyError(
      path,
      `cannot read the key file (${(error as NodeJS.ErrnoException).code ?? 'error'}): give an existing key file (gcpatch keygen --out <file>)`,
    );
  }
  if (before.isSymbolicLink() || !before.isFile()) throw keyError(path, 'a signing key must be a regular file, not a symlink');
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw keyError(path, 'a signing key must be a regular file, not a symlink');
    throw keyError(path, `cannot open the key file (${code ?? 'error'})`);
  }
  let text: string;
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw keyError(path, 'a signing key must be a regular file, not a symlink');
    if (st.dev !== before.dev || st.ino !== before.ino) throw keyError(path, 'the key file changed while it was being opened');
    if (process.platform !== 'win32' && (st.mode & 0o077) !== 0) {
      throw keyError(path, `permissions ${(st.mode & 0o777).toString(8)} must deny group and other access (chmod 600 ${path})`);
    }
    if (st.size > MAX_KEY_FILE_BYTES) throw keyError(path, `the key file has ${st.size} bytes; a key file has about 130`);
    const buf = Buffer.alloc(st.size);
    let off = 0;
    while (off < st.size) {
      const n = readSync(fd, buf, off, st.size - off, off);
      if (n === 0) break;
      off += n;
    }
    text = buf.subarray(0, off).toString('utf8');
  } finally {
    closeSync(fd);
  }
  return parseKeyFile(text, path);
}

/** Parses the text of a key file (see {@link readKeyFile} for the checks). @throws GcError `signing/key`. */
export function parseKeyFile(text: string, path: string): KeyPair {
  let table: Record<string, unknown>;
  try {
    table = parseToml(text) as Record<string, unknown>;
  } catch (error) {
    const where = error instanceof TomlError ? ` (line ${error.line})` : '';
    throw keyError(path, `not TOML${where}: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
  }
  const keys = Object.keys(table).sort();
  if (keys.join(',') !== 'alg,pk_b64,sk_b64') throw keyError(path, `a key file holds exactly alg, sk_b64 and pk_b64 (found ${keys.join(', ') || 'nothing'})`);
  if (table.alg !== 'ed25519') throw keyError(path, `unsupported alg ${JSON.stringify(table.alg)} (only "ed25519")`);
  const seed = typeof table.sk_b64 === 'string' ? decodeBase64Exact(table.sk_b64, 32) : undefined;
  const publicKey = typeof table.pk_b64 === 'string' ? decodeBase64Exact(table.pk_b64, 32) : undefined;
  if (seed === undefined) throw keyError(path, 'sk_b64 is not the canonical base64 of 32 bytes');
  if (publicKey === undefined) throw keyError(path, 'pk_b64 is not the canonical base64 of 32 bytes');
  if (!bytesEqual(publicKeyOf(seed), publicKey)) throw keyError(path, 'the secret and public key material do not match');
  return { seed, publicKey, publicKeyB64: table.pk_b64 as string };
}
