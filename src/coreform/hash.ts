/**
 * CoreForm hashes (docs/reference/hashing.md §2) and the evidence-store address (§5): BLAKE3 (32-byte
 * output) over a domain prefix followed by the canonical print, or over the plain bytes. Every
 * function returns lowercase hex64. The one place gcpatch computes BLAKE3 (through `blake3.ts`:
 * WebAssembly, or @noble/hashes where that cannot be instantiated).
 */
import { utf8 } from '../util/bytes.js';
import { blake3Of, createBlake3, digestHex, type Blake3Hasher } from './blake3.js';
import { printModuleBytes, printTerm, printTermBytes } from './print.js';

/** The text of a print's bytes (the key of {@link RecentDigests}; the bytes are valid UTF-8). */
const decodeUtf8 = (bytes: Uint8Array): string => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('utf8');
import type { Term } from './term.js';

/** `"GCv0.2" 0x00`, the hash-term prefix. */
export const HASH_TERM_PREFIX = utf8('GCv0.2\0');
/** `"GCv0.2" 0x00 "module" 0x00`, the hash-module prefix. */
export const HASH_MODULE_PREFIX = utf8('GCv0.2\0module\0');
/** `"GCv0.2" 0x00 "semantic-node-id" 0x00`, the node-id prefix. */
export const NODE_ID_PREFIX = utf8('GCv0.2\0semantic-node-id\0');
const ZERO = new Uint8Array([0]);

/** An incremental BLAKE3 state (`update` returns the state; `clone` copies it; `digest` ends it). */
export type Blake3State = Blake3Hasher;

function digest(...parts: (Uint8Array | string)[]): string {
  return digestHex(blake3Of(...parts));
}

/** Prints shorter than this are hashed without looking in {@link RecentDigests}. */
const RECENT_MIN_LENGTH = 16 * 1024;
/** Prints longer than this are not remembered: the two memos hold at most eight prints of at most 1 Mi characters each. */
const RECENT_MAX_LENGTH = 1024 * 1024;
const RECENT_ENTRIES = 4;

/**
 * The digests of the last few large prints, per kind of hash: one apply hashes the same print more
 * than once (the patch in the normalizer, its verifier and the apply report; a package record by
 * pack and again by the store), and a BLAKE3 pass over a large print costs far more than finding the
 * same text in a map. Keyed by the text itself, so a hit is the digest of exactly these bytes.
 */
class RecentDigests {
  private readonly entries = new Map<string, string>();

  constructor(private readonly compute: (printed: string) => string) {}

  of(printed: string): string {
    if (printed.length < RECENT_MIN_LENGTH || printed.length > RECENT_MAX_LENGTH) return this.compute(printed);
    let hex = this.entries.get(printed);
    if (hex === undefined) {
      hex = this.compute(printed);
      if (this.entries.size >= RECENT_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(printed, hex);
    }
    return hex;
  }
}

const recentTermHashes = new RecentDigests((printed) => digest(HASH_TERM_PREFIX, printed));
const recentAddresses = new RecentDigests((printed) => digest(printed));

/**
 * hash-term(t) = BLAKE3("GCv0.2\0" ‖ UTF-8(print_term(t))), lowercase hex64.
 * Used for every `*-h` field of requests and reports. Implements docs/reference/hashing.md §2.
 */
export function hashTerm(t: Term): string {
  const printed = printTermBytes(t);
  // A print short enough never to be remembered is hashed as bytes (no string made).
  if (printed.length < RECENT_MIN_LENGTH) return digest(HASH_TERM_PREFIX, printed);
  return recentTermHashes.of(decodeUtf8(printed));
}

/**
 * hash-term of a term given by its `print_term` bytes (a store entry's bytes, or a print already
 * made): BLAKE3("GCv0.2\0" ‖ printed), lowercase hex64. `hashTermOfPrint(utf8(printTerm(t)))`
 * equals `hashTerm(t)`.
 */
export function hashTermOfPrint(printed: Uint8Array): string {
  return digest(HASH_TERM_PREFIX, printed);
}

/**
 * hash-module(forms) = BLAKE3("GCv0.2\0module\0" ‖ UTF-8(print_module(forms))), lowercase hex64.
 * `forms` must already be canonical (see `canonicalizeModule`). This is the `package.toml` pin.
 */
export function hashModule(forms: readonly Term[]): string {
  return digest(HASH_MODULE_PREFIX, printModuleBytes(forms));
}

/** hash-module of forms given by their `print_module` text (a print already made): `hashModuleOfPrint(printModule(f))` equals `hashModule(f)`. */
export function hashModuleOfPrint(printed: string): string {
  return digest(HASH_MODULE_PREFIX, printed);
}

/**
 * semantic node id = BLAKE3("GCv0.2\0semantic-node-id\0" ‖ module-path ‖ 0x00 ‖ print_term(path)),
 * where `path` is the vector of step vectors (e.g. `[[:form 0]]`). Implements GenesisCode `docs/spec/PATCH_SCHEMA.md`
 * "Stable Node IDs".
 */
export function semanticNodeId(modulePath: string, path: Term): string {
  return digestHex(semanticNodeIdState(modulePath).update(printTerm(path)).digest());
}

/**
 * The BLAKE3 state of {@link semanticNodeId} after its prefix and `modulePath ‖ 0x00`: feed it
 * the print of a path (in pieces, cloning it to share a common beginning) and digest it to get
 * that path's node id.
 */
export function semanticNodeIdState(modulePath: string): Blake3State {
  return createBlake3().update(NODE_ID_PREFIX).update(modulePath).update(ZERO);
}

/**
 * The evidence-store address: plain unprefixed BLAKE3 of the exact bytes (for a term, its
 * `print_term` bytes). This differs from hash-term. Implements docs/reference/evidence-store.md §5.
 */
export function storeAddress(data: Uint8Array): string {
  return digest(data);
}

/**
 * {@link storeAddress} of bytes that arrive in pieces (a file read in chunks): `update` each piece
 * in order, then `address()` is the address of their concatenation.
 */
export function storeAddressStream(): { update(piece: Uint8Array): void; address(): string } {
  const h = createBlake3();
  return {
    update(piece) {
      h.update(piece);
    },
    address: () => digestHex(h.digest()),
  };
}

/** The store address of a term: BLAKE3(UTF-8(print_term(t))). Also the package/acceptance artifact id. */
export function termAddress(t: Term): string {
  const printed = printTermBytes(t);
  if (printed.length < RECENT_MIN_LENGTH) return digest(printed);
  return termAddressOfPrint(decodeUtf8(printed));
}

/** {@link termAddress} of a term given by its `print_term` text: BLAKE3(UTF-8(printed)), lowercase hex64. */
export function termAddressOfPrint(printed: string): string {
  return recentAddresses.of(printed);
}
