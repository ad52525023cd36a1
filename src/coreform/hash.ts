/**
 * CoreForm hashes (GENESIS_FACTS.md §2): BLAKE3 (32-byte output) over a domain prefix followed by
 * the canonical print. Every function returns lowercase hex64.
 */
import { blake3 } from '@noble/hashes/blake3.js';
import { toHex, utf8 } from '../util/bytes.js';
import { printModule, printTerm } from './print.js';
import type { Term } from './term.js';

/** `"GCv0.2" 0x00`, the hash-term prefix. */
export const HASH_TERM_PREFIX = utf8('GCv0.2\0');
/** `"GCv0.2" 0x00 "module" 0x00`, the hash-module prefix. */
export const HASH_MODULE_PREFIX = utf8('GCv0.2\0module\0');
/** `"GCv0.2" 0x00 "semantic-node-id" 0x00`, the node-id prefix. */
export const NODE_ID_PREFIX = utf8('GCv0.2\0semantic-node-id\0');

function digest(...parts: Uint8Array[]): string {
  const h = blake3.create();
  for (const p of parts) h.update(p);
  return toHex(h.digest());
}

/**
 * hash-term(t) = BLAKE3("GCv0.2\0" ‖ UTF-8(print_term(t))), lowercase hex64.
 * Used for every `*-h` field of requests and reports. Implements GENESIS_FACTS.md §2.
 */
export function hashTerm(t: Term): string {
  return digest(HASH_TERM_PREFIX, utf8(printTerm(t)));
}

/**
 * hash-module(forms) = BLAKE3("GCv0.2\0module\0" ‖ UTF-8(print_module(forms))), lowercase hex64.
 * `forms` must already be canonical (see `canonicalizeModule`). This is the `package.toml` pin.
 */
export function hashModule(forms: readonly Term[]): string {
  return digest(HASH_MODULE_PREFIX, utf8(printModule(forms)));
}

/** hash-module over already-printed canonical module text (`print_module` output). */
export function hashModuleText(canonicalText: string): string {
  return digest(HASH_MODULE_PREFIX, utf8(canonicalText));
}

/**
 * semantic node id = BLAKE3("GCv0.2\0semantic-node-id\0" ‖ module-path ‖ 0x00 ‖ print_term(path)),
 * where `path` is the vector of step vectors (e.g. `[[:form 0]]`). Implements PATCH_SCHEMA.md
 * "Stable Node IDs".
 */
export function semanticNodeId(modulePath: string, path: Term): string {
  return digest(NODE_ID_PREFIX, utf8(modulePath), new Uint8Array([0]), utf8(printTerm(path)));
}

/**
 * The evidence-store address: plain unprefixed BLAKE3 of the exact bytes (for a term, its
 * `print_term` bytes). This differs from hash-term. Implements GENESIS_FACTS.md §5.
 */
export function storeAddress(data: Uint8Array): string {
  return digest(data);
}

/** The store address of a term: BLAKE3(UTF-8(print_term(t))). Also the package/acceptance artifact id. */
export function termAddress(t: Term): string {
  return digest(utf8(printTerm(t)));
}

/** Plain BLAKE3 of bytes as lowercase hex (for benchmarks and checks). */
export function blake3Hex(data: Uint8Array): string {
  return digest(data);
}
