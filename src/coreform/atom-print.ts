/**
 * The one-line prints of atoms (nil, bool, int, str, bytes, sym) for the canonical printer
 * (docs/reference/coreform.md §1.5): their text, and their UTF-8 length measured without making it.
 */
import { utf8Length } from '../util/bytes.js';
import type { Term } from './term.js';

const HEX = '0123456789ABCDEF';

/** True when a string character needs an escape in a string literal (`\ " LF CR TAB`, Cc controls). */
export function needsEscape(c: number): boolean {
  return c === 0x5c || c === 0x22 || c < 0x20 || (c >= 0x7f && c <= 0x9f);
}

export function escapeStr(value: string): string {
  let i = 0;
  const n = value.length;
  while (i < n && !needsEscape(value.charCodeAt(i))) i++;
  if (i === n) return '"' + value + '"';
  let out = '"';
  let runStart = 0;
  for (; i < n; i++) {
    const c = value.charCodeAt(i);
    if (!needsEscape(c)) continue;
    let rep: string;
    if (c === 0x5c) rep = '\\\\';
    else if (c === 0x22) rep = '\\"';
    else if (c === 0x0a) rep = '\\n';
    else if (c === 0x0d) rep = '\\r';
    else if (c === 0x09) rep = '\\t';
    else rep = '\\u00' + HEX[(c >> 4) & 15] + HEX[c & 15];
    out += value.slice(runStart, i) + rep;
    runStart = i + 1;
  }
  return out + value.slice(runStart) + '"';
}

function escapeBytes(value: Uint8Array): string {
  let out = 'b"';
  for (let i = 0; i < value.length; i++) {
    const b = value[i]!;
    if (b === 0x5c) out += '\\\\';
    else if (b === 0x22) out += '\\"';
    else if (b === 0x0a) out += '\\n';
    else if (b === 0x0d) out += '\\r';
    else if (b === 0x09) out += '\\t';
    else if (b >= 0x20 && b <= 0x7e) out += String.fromCharCode(b);
    else out += '\\x' + HEX[b >> 4] + HEX[b & 15];
  }
  return out + '"';
}

/**
 * Renders an atom (nil, bool, int, str, bytes, sym) on one line; `undefined` for containers.
 * Strings escape `\ " LF CR TAB` by name and other Cc controls as `\u` + 4 uppercase hex digits;
 * bytes print printable ASCII raw and everything else as `\x` + 2 uppercase hex digits.
 */
export function printAtom(t: Term): string | undefined {
  switch (t.kind) {
    case 'nil':
      return 'nil';
    case 'bool':
      return t.value ? 'true' : 'false';
    case 'int':
      return t.value.toString();
    case 'str':
      return escapeStr(t.value);
    case 'bytes':
      return escapeBytes(t.value);
    case 'sym':
      return t.name;
    default:
      return undefined;
  }
}

/** UTF-8 byte length of `text`: its length when it is ASCII (the common case), else counted. */
function byteLength(text: string): number {
  const n = text.length;
  for (let i = 0; i < n; i++) if (text.charCodeAt(i) >= 0x80) return utf8Length(text);
  return n;
}

export function isAtomKind(t: Term): boolean {
  return t.kind !== 'pair' && t.kind !== 'vec' && t.kind !== 'map';
}

/** The texts of the integers -128..1023 (the reader shares their terms; their prints are shared too). */
const SMALL_INT_TEXT: string[] = Array.from({ length: 1152 }, (_, i) => String(i - 128));

export function intText(v: bigint): string {
  if (v >= -128n && v < 1024n) return SMALL_INT_TEXT[Number(v) + 128]!;
  return v.toString();
}

/** UTF-8 length of the print of string `value` (its escapes and quotes included), without making it. */
function strPrintLength(value: string): number {
  let n = 2;
  const len = value.length;
  for (let i = 0; i < len; i++) {
    const c = value.charCodeAt(i);
    if (c < 0x80) n += c === 0x5c || c === 0x22 || c === 0x0a || c === 0x0d || c === 0x09 ? 2 : c < 0x20 || c === 0x7f ? 6 : 1;
    else if (c <= 0x9f) n += 6;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < len) {
      const d = value.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n += 4;
        i++;
      } else n += 3;
    } else n += 3;
  }
  return n;
}

/** UTF-8 length of the print of bytes `value` (`b"…"`), without making it. */
function bytesPrintLength(value: Uint8Array): number {
  let n = 3;
  for (let i = 0; i < value.length; i++) {
    const b = value[i]!;
    n += b === 0x5c || b === 0x22 || b === 0x0a || b === 0x0d || b === 0x09 ? 2 : b >= 0x20 && b <= 0x7e ? 1 : 4;
  }
  return n;
}

/** UTF-8 length of the print of an atom, without making it. */
export function atomLength(t: Term): number {
  switch (t.kind) {
    case 'sym':
      return byteLength(t.name);
    case 'int':
      return intText(t.value).length;
    case 'str':
      return strPrintLength(t.value);
    case 'bytes':
      return bytesPrintLength(t.value);
    case 'bool':
      return t.value ? 4 : 5;
    default:
      return 3;
  }
}

/** The print of an atom. */
export function atomText(t: Term): string {
  switch (t.kind) {
    case 'sym':
      return t.name;
    case 'int':
      return intText(t.value);
    case 'str':
      return escapeStr(t.value);
    case 'bytes':
      return escapeBytes(t.value);
    case 'bool':
      return t.value ? 'true' : 'false';
    default:
      return 'nil';
  }
}
