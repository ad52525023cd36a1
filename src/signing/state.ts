/**
 * The signing state of a package under `<pkg>/.genesis/` (docs/reference/signing.md "Files"):
 * `last_acceptance`, `last_signature`, `signatures.gc` (the signature set) and `transparency_head`,
 * and the artifacts they name in the evidence store. A missing pointer is distinct from a
 * malformed one: a present but malformed signature set or head fails closed, never reads as empty.
 * Readers take an {@link ArtifactReader} so the same checks run on a package on disk and on a
 * package at a git commit (`src/verify-pr/signature-policy.ts`).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { storeAddress } from '../coreform/hash.js';
import { printTerm } from '../coreform/print.js';
import { readTerm } from '../coreform/read.js';
import type { Term } from '../coreform/term.js';
import type { EvidenceStore } from '../store/store.js';
import { decodeUtf8Strict, isHex64 } from '../util/bytes.js';
import { isGcError } from '../util/errors.js';
import { SigningCode, signingError } from './errors.js';
import { parseSignatureSet } from './terms.js';

/** Package-relative paths of the signing state. */
export const SIGNING_FILES = {
  lastAcceptance: '.genesis/last_acceptance',
  lastSignature: '.genesis/last_signature',
  signatureSet: '.genesis/signatures.gc',
  transparencyHead: '.genesis/transparency_head',
} as const;

/** What reading one store artifact gave: its bytes (hash not yet checked), or why there are none. */
export type ArtifactRead = { ok: true; bytes: Uint8Array } | { ok: false; missing: boolean; reason: string };

/** Reads store artifacts by address: the package's store on disk, or its store at a commit. */
export interface ArtifactReader {
  read(hex: string): ArtifactRead;
}

/** An {@link ArtifactReader} over an evidence store on disk (the store re-hashes what it reads). */
export function storeReader(store: EvidenceStore): ArtifactReader {
  return {
    read(hex) {
      try {
        return { ok: true, bytes: store.get(hex) };
      } catch (error) {
        if (!isGcError(error)) throw error;
        return { ok: false, missing: error.code === 'core/store/not-found', reason: error.message };
      }
    },
  };
}

/** An artifact's term, or why it is not usable: missing, not hashing to its name, not one canonical CoreForm term. */
export type ArtifactTerm = { ok: true; term: Term } | { ok: false; problem: 'missing' | 'corrupt' | 'unreadable'; reason: string };

/**
 * Reads artifact `hex` through `reader` and checks that its bytes hash (BLAKE3) to `hex` and are
 * the canonical print of one CoreForm term (the reference stores signing artifacts canonically).
 */
export function readArtifactTerm(reader: ArtifactReader, hex: string): ArtifactTerm {
  const r = reader.read(hex);
  if (!r.ok) return { ok: false, problem: r.missing ? 'missing' : 'corrupt', reason: r.reason };
  const actual = storeAddress(r.bytes);
  if (actual !== hex) return { ok: false, problem: 'corrupt', reason: `store entry ${hex} hashes to ${actual}` };
  const text = decodeUtf8Strict(r.bytes);
  if (text === undefined) return { ok: false, problem: 'unreadable', reason: `store entry ${hex} is not UTF-8` };
  let term: Term;
  try {
    term = readTerm(text);
  } catch (error) {
    return { ok: false, problem: 'unreadable', reason: `store entry ${hex} is not a CoreForm term: ${error instanceof Error ? error.message : String(error)}` };
  }
  if (printTerm(term) !== text) return { ok: false, problem: 'unreadable', reason: `store entry ${hex} is not in canonical print` };
  return { ok: true, term };
}

/**
 * Reads a pointer file's text: undefined when it does not exist.
 * @throws GcError `io/*` for other read failures.
 */
function readOptional(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw signingError(SigningCode.transparencyHead, `cannot read ${path}: ${(error as Error).message}`, path);
  }
}

/**
 * Parses the text of a pointer file holding one address: 64 hex digits, lowercase, and at most
 * one trailing newline. @returns the address, or undefined when malformed.
 */
export function parsePointer(text: string): string | undefined {
  const t = text.endsWith('\n') ? text.slice(0, -1) : text;
  return isHex64(t) ? t : undefined;
}

/**
 * The transparency head of the package at `packageDir`: undefined when absent.
 * @throws GcError `signing/transparency-head` (exit 10) when present but malformed or unreadable.
 */
export function readTransparencyHead(packageDir: string): string | undefined {
  const path = join(packageDir, SIGNING_FILES.transparencyHead);
  const text = readOptional(path);
  if (text === undefined) return undefined;
  return parseHead(text, path);
}

/** {@link readTransparencyHead} of text already read. @throws GcError `signing/transparency-head`. */
export function parseHead(text: string, path: string): string {
  const hex = parsePointer(text);
  if (hex === undefined) {
    throw signingError(
      SigningCode.transparencyHead,
      `${path} is malformed: it must hold one transparency entry address (64 lowercase hex digits and a newline); a malformed head is never read as an empty log`,
      path,
    );
  }
  return hex;
}

/**
 * The signature set at `path`: [] when the file does not exist.
 * @throws GcError `signing/signature-set` (exit 10) when present but not a vector of distinct 64-hex strings.
 */
export function readSignatureSet(path: string): string[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw signingError(SigningCode.signatureSet, `cannot read ${path}: ${(error as Error).message}`, path);
  }
  return parseSignatureSetText(text, path);
}

/** Parses the text of a signature set file. @throws GcError `signing/signature-set`. */
export function parseSignatureSetText(text: string, path: string): string[] {
  let term: Term;
  try {
    term = readTerm(text);
  } catch (error) {
    throw signingError(
      SigningCode.signatureSet,
      `${path} is not a CoreForm term (${error instanceof Error ? error.message : String(error)}); a malformed signature set is never read as empty`,
      path,
    );
  }
  const set = parseSignatureSet(term);
  if (!set.ok) throw signingError(SigningCode.signatureSet, `${path}: ${set.reason}; a malformed signature set is never read as empty`, path);
  return set.value;
}

/**
 * The acceptance address to sign: `given`, else `.genesis/last_acceptance`; canonical lowercase.
 * @throws GcError `signing/acceptance` (exit 10).
 */
export function acceptanceToSign(packageDir: string, given: string | undefined): string {
  if (given !== undefined) {
    if (!isHex64(given))
      throw signingError(SigningCode.acceptance, `--acceptance ${JSON.stringify(given)} must be 64 lowercase hex digits (an acceptance artifact address)`);
    return given;
  }
  const path = join(packageDir, SIGNING_FILES.lastAcceptance);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    throw signingError(
      SigningCode.acceptance,
      `${path}: no last acceptance to sign: run the obligations first (gcpatch accept) or pass --acceptance <hex>`,
      path,
    );
  }
  const hex = parsePointer(text);
  if (hex === undefined) throw signingError(SigningCode.acceptance, `${path} must hold 64 lowercase hex digits and a newline`, path);
  return hex;
}
