/** UTF-16 / UTF-8 helpers the edit-plan code needs beyond `util/bytes.ts`. */
import { utf8Length } from '../util/bytes.js';

/** UTF-8 byte length of `text` (lone surrogates count 3 bytes, as U+FFFD), without allocating. */
export function utf8ByteLength(text: string): number {
  // Short strings: a JS loop beats the call into native code.
  return text.length < 64 ? utf8LengthOfRange(text, 0, text.length) : Buffer.byteLength(text, 'utf8');
}

/**
 * UTF-8 byte length of `text.slice(start, end)` without allocating the slice.
 * @param start, end UTF-16 code-unit offsets (0 ≤ start ≤ end ≤ text.length) on scalar boundaries.
 */
export function utf8LengthOfRange(text: string, start: number, end: number): number {
  return utf8Length(text, start, end);
}

/**
 * The longest prefix of `text` whose UTF-8 encoding has at most `maxBytes` bytes, never splitting a
 * scalar (backs off to the previous character boundary).
 * @returns the prefix and its UTF-8 byte length.
 */
export function utf8Prefix(text: string, maxBytes: number): { text: string; byteLen: number } {
  let n = 0;
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    let units = 1;
    let bytes: number;
    if (c < 0x80) bytes = 1;
    else if (c < 0x800) bytes = 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        bytes = 4;
        units = 2;
      } else bytes = 3;
    } else bytes = 3;
    if (n + bytes > maxBytes) break;
    n += bytes;
    i += units;
  }
  return { text: text.slice(0, i), byteLen: n };
}
