/**
 * The CoreForm reader's tokens below the container level: trivia, symbols, integers, and string
 * and bytes literals with their escapes. {@link Lexer} is the base of the reader (`read.ts`).
 */
import { isUtf8 } from 'node:buffer';
import { decodeSlice } from '../util/bytes.js';
import type { GcCode, GcError } from '../util/errors.js';
import { BACKSLASH, CLASS, C_DELIM, C_DIGIT, DQUOTE, HEX, LF, LOWER_B, MINUS, SEMI } from './lexical.js';
import { PARSE_ESCAPE, PARSE_UNEXPECTED, parseError } from './parse-error.js';
import { FALSE, NIL, TRUE, type Term } from './term.js';

/**
 * The byte each one-letter escape stands for (`\\` `\"` `\n` `\r` `\t`), indexed by the letter's
 * byte; 0 for every other byte.
 */
const NAMED_ESCAPES = new Uint8Array(256);
NAMED_ESCAPES[BACKSLASH] = BACKSLASH;
NAMED_ESCAPES[DQUOTE] = DQUOTE;
NAMED_ESCAPES[0x6e] = 0x0a;
NAMED_ESCAPES[0x72] = 0x0d;
NAMED_ESCAPES[0x74] = 0x09;

/** Shared immutable int terms for -128..1023 (terms are never mutated), made on first use. */
const SMALL_INTS: (Term | undefined)[] = new Array<Term | undefined>(1152);

/** The shared int term of `v` (-128 <= v < 1024). */
function smallInt(v: number): Term {
  return (SMALL_INTS[v + 128] ??= { kind: 'int', value: BigInt(v) });
}

/**
 * A direct-mapped cache from symbol bytes to a shared (immutable) symbol term, so repeated
 * symbols cost neither a string decode nor an allocation. Also maps `nil`/`true`/`false`.
 * One cache serves every read of the process (its keys are copies of the symbol bytes, in one
 * pool, so a source may change or go away after it was read); the slots are allocated on first
 * use, so a `readTerm` of a small form does not pay for the slot writes.
 */
class SymbolCache {
  /** The bytes of every slot's symbol, one after another (a slot holds an offset and a length into it). */
  private pool: Uint8Array | undefined;
  private used = 0;
  private offsets: Int32Array | undefined;
  /** Each slot's key length; -1 for an empty slot. */
  private lengths: Int32Array | undefined;
  private terms: (Term | undefined)[] | undefined;

  get(s: Uint8Array, a: number, b: number): Term {
    const len = b - a;
    if (len > 48) return symbolTerm(decodeSlice(s, a, b));
    let h = 0x811c9dc5;
    for (let i = a; i < b; i++) h = Math.imul(h ^ s[i]!, 0x01000193);
    const slot = (h ^ (h >>> 15)) & 4095;
    if (this.lengths === undefined) {
      this.pool = new Uint8Array(256 * 1024);
      this.offsets = new Int32Array(4096);
      this.lengths = new Int32Array(4096).fill(-1);
      this.terms = new Array<Term | undefined>(4096).fill(undefined);
    }
    const pool = this.pool!;
    if (this.lengths[slot] === len) {
      const o = this.offsets![slot]!;
      let same = true;
      for (let i = 0; i < len; i++) {
        if (pool[o + i] !== s[a + i]) {
          same = false;
          break;
        }
      }
      if (same) return this.terms![slot]!;
    }
    const t = symbolTerm(decodeSlice(s, a, b));
    if (this.used + len > pool.length) {
      // the pool is full: forget every slot and start again
      this.lengths.fill(-1);
      this.used = 0;
    }
    const o = this.used;
    for (let i = 0; i < len; i++) pool[o + i] = s[a + i]!;
    this.used += len;
    this.offsets![slot] = o;
    this.lengths[slot] = len;
    this.terms![slot] = t;
    return t;
  }
}

/** The process-wide symbol cache of every {@link Reader}. */
const SYMBOLS = new SymbolCache();

function symbolTerm(name: string): Term {
  if (name.length <= 5) {
    if (name === 'nil') return NIL;
    if (name === 'true') return TRUE;
    if (name === 'false') return FALSE;
  }
  return { kind: 'sym', name };
}

/**
 * Offset of the first byte that makes `s` invalid UTF-8 (strict: no surrogates or overlong forms;
 * a truncated or broken sequence is reported at its lead byte), or -1 when `s` is valid.
 */
function firstInvalidUtf8(s: Uint8Array): number {
  const n = s.length;
  let i = 0;
  while (i < n) {
    const c = s[i]!;
    if (c < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) need = 1;
    else if (c >= 0xe0 && c <= 0xef) {
      need = 2;
      if (c === 0xe0) lo = 0xa0;
      else if (c === 0xed) hi = 0x9f;
    } else if (c >= 0xf0 && c <= 0xf4) {
      need = 3;
      if (c === 0xf0) lo = 0x90;
      else if (c === 0xf4) hi = 0x8f;
    } else return i;
    for (let k = 1; k <= need; k++) {
      const d = i + k < n ? s[i + k]! : -1;
      const min = k === 1 ? lo : 0x80;
      const max = k === 1 ? hi : 0xbf;
      // A truncated or broken sequence is reported at its lead byte.
      if (d < min || d > max) return i;
    }
    i += need + 1;
  }
  return -1;
}

/**
 * A cursor over UTF-8 source bytes that reads one token at a time. In scan mode (`build` false)
 * the grammar is checked exactly, but no term is built (values are NIL).
 */
export class Lexer {
  readonly src: Uint8Array;
  readonly len: number;
  pos = 0;
  /** False in scan mode: the grammar is checked exactly, but no term is built (values are NIL). */
  readonly build: boolean;

  /** @throws GcError `core/parse/unexpected` "invalid UTF-8" at the first invalid byte of `src`. */
  constructor(src: Uint8Array, build: boolean) {
    this.src = src;
    this.build = build;
    this.len = src.length;
    if (!isUtf8(src)) {
      const bad = firstInvalidUtf8(src);
      throw parseError(src, PARSE_UNEXPECTED, 'invalid UTF-8', bad < 0 ? 0 : bad);
    }
  }

  error(code: GcCode, message: string, offset: number): GcError {
    return parseError(this.src, code, message, offset);
  }

  /** Skips whitespace and `;` comments (a comment consumes its LF). */
  skipTrivia(): void {
    const s = this.src;
    const n = this.len;
    let p = this.pos;
    while (p < n) {
      const c = s[p]!;
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) p++;
      else if (c === SEMI) {
        const nl = s.indexOf(LF, p + 1);
        p = nl === -1 ? n : nl + 1;
      } else break;
    }
    this.pos = p;
  }

  readAtom(c: number): Term {
    const s = this.src;
    const n = this.len;
    const start = this.pos;
    if (c === DQUOTE) {
      if (!this.build) {
        this.skipString(start);
        return NIL;
      }
      return { kind: 'str', value: this.readString(start) };
    }
    if (c === LOWER_B && start + 1 < n && s[start + 1] === DQUOTE) return { kind: 'bytes', value: this.readBytes(start) };
    if ((CLASS[c]! & C_DIGIT) !== 0 || (c === MINUS && start + 1 < n && (CLASS[s[start + 1]!]! & C_DIGIT) !== 0)) {
      if (!this.build) {
        let p = start + 1;
        while (p < n && s[p]! >= 0x30 && s[p]! <= 0x39) p++;
        this.pos = p;
        return NIL;
      }
      return this.readInt(start);
    }
    let p = start + 1;
    while (p < n && (CLASS[s[p]!]! & C_DELIM) === 0) p++;
    this.pos = p;
    return this.build ? SYMBOLS.get(s, start, p) : NIL;
  }

  /** Reads the integer starting at `start` (`-`? digits); leaves `pos` after its last digit. */
  readInt(start: number): Term {
    const s = this.src;
    const n = this.len;
    let p = start;
    const negative = s[p] === MINUS;
    if (negative) p++;
    const digitsStart = p;
    let small = 0;
    while (p < n) {
      const d = s[p]! - 0x30;
      if (d < 0 || d > 9) break;
      small = small * 10 + d;
      p++;
    }
    this.pos = p;
    if (p - digitsStart <= 15) {
      // Exact as a double: no BigInt parse, and small values share one term.
      const v = negative ? -small : small;
      return v >= -128 && v < 1024 ? smallInt(v) : { kind: 'int', value: BigInt(v) };
    }
    const v = BigInt(decodeSlice(s, digitsStart, p));
    return { kind: 'int', value: negative ? -v : v };
  }

  /** Reads a `\uXXXX` scalar at backslash offset `bs`; returns the code point. */
  readUnicodeEscape(bs: number): number {
    const s = this.src;
    if (bs + 5 >= this.len) {
      throw this.error(PARSE_ESCAPE, 'invalid \\u escape: expected exactly 4 hex digits', bs);
    }
    let cp = 0;
    for (let k = 2; k < 6; k++) {
      const h = HEX[s[bs + k]!]!;
      if (h === 255) throw this.error(PARSE_ESCAPE, 'invalid \\u escape: expected exactly 4 hex digits', bs);
      cp = cp * 16 + h;
    }
    if (cp >= 0xd800 && cp <= 0xdfff) {
      throw this.error(PARSE_ESCAPE, `invalid \\u escape: U+${cp.toString(16).toUpperCase().padStart(4, '0')} is a surrogate, not a Unicode scalar value`, bs);
    }
    return cp;
  }

  /** Reads a `\xNN` escape at backslash offset `bs`; returns 0..255. */
  readHexEscape(bs: number): number {
    const s = this.src;
    const h1 = bs + 2 < this.len ? HEX[s[bs + 2]!]! : 255;
    const h2 = bs + 3 < this.len ? HEX[s[bs + 3]!]! : 255;
    if (h1 === 255 || h2 === 255) {
      throw this.error(PARSE_ESCAPE, 'invalid \\x escape: expected exactly 2 hex digits', bs);
    }
    return h1 * 16 + h2;
  }

  badEscape(bs: number): GcError {
    const e = this.src[bs + 1]!;
    const shown = e >= 0x21 && e < 0x7f ? `\\${String.fromCharCode(e)}` : `\\ followed by byte 0x${e.toString(16).padStart(2, '0')}`;
    return this.error(PARSE_ESCAPE, `invalid escape sequence '${shown}' (allowed: \\\\ \\" \\n \\r \\t \\uXXXX \\xNN)`, bs);
  }

  /**
   * Checks the string literal whose opening quote is at `start` (escapes, termination), leaves
   * `pos` after the closing quote and returns the offset of that quote. Both modes use it, so
   * scanning and reading report the same errors.
   * @throws GcError `core/parse/unexpected` (unterminated, at the opening quote) or
   *   `core/parse/escape` (at the backslash).
   */
  skipString(start: number): number {
    const s = this.src;
    const n = this.len;
    let p = start + 1;
    for (;;) {
      while (p < n) {
        const c = s[p]!;
        if (c === DQUOTE || c === BACKSLASH) break;
        p++;
      }
      if (p >= n) throw this.error(PARSE_UNEXPECTED, 'unterminated string literal', start);
      if (s[p] === DQUOTE) {
        this.pos = p + 1;
        return p;
      }
      if (p + 1 >= n) throw this.error(PARSE_UNEXPECTED, 'unterminated string literal', start);
      const e = s[p + 1]!;
      if (NAMED_ESCAPES[e] !== 0) p += 2;
      else if (e === 0x75) {
        this.readUnicodeEscape(p);
        p += 6;
      } else if (e === 0x78) {
        this.readHexEscape(p);
        p += 4;
      } else throw this.badEscape(p);
    }
  }

  /** Where {@link nextBackslash} last searched from, and what it found (-1: none to the end). */
  private bsFrom = -1;
  private bsAt = -1;

  /**
   * The position of the first backslash at or after `p` (-1 when none), memoized: strings are read
   * front to back, so one search serves every string up to the backslash it found. A plain
   * `indexOf` per string scans to the end of a source without escapes each time, which is
   * quadratic in a large store entry (a refactor request holding every module).
   */
  private nextBackslash(p: number): number {
    if (this.bsFrom >= 0 && p >= this.bsFrom && (this.bsAt === -1 || this.bsAt >= p)) return this.bsAt;
    this.bsFrom = p;
    this.bsAt = this.src.indexOf(BACKSLASH, p);
    return this.bsAt;
  }

  /** Reads `"..."` whose opening quote is at `start`; leaves `pos` after the closing quote. */
  readString(start: number): string {
    const s = this.src;
    const close = this.skipString(start);
    // The literal is valid: decode its runs and escapes without checking again.
    let p = start + 1;
    let runStart = p;
    let parts: string[] | undefined;
    for (;;) {
      const bs = this.nextBackslash(p);
      if (bs === -1 || bs >= close) {
        const last = decodeSlice(s, runStart, close);
        if (parts === undefined) return last;
        parts.push(last);
        return parts.join('');
      }
      parts ??= [];
      if (bs > runStart) parts.push(decodeSlice(s, runStart, bs));
      const e = s[bs + 1]!;
      if (e === 0x75) {
        parts.push(String.fromCharCode(this.readUnicodeEscape(bs)));
        p = bs + 6;
      } else if (e === 0x78) {
        parts.push(String.fromCharCode(this.readHexEscape(bs))); // U+00NN, not a raw byte
        p = bs + 4;
      } else {
        parts.push(String.fromCharCode(NAMED_ESCAPES[e]!));
        p = bs + 2;
      }
      runStart = p;
    }
  }

  /** Reads `b"..."` whose `b` is at `start`; leaves `pos` after the closing quote. */
  readBytes(start: number): Uint8Array {
    const s = this.src;
    const n = this.len;
    let p = start + 2;
    let out = new Uint8Array(16);
    let len = 0;
    const ensure = (extra: number): void => {
      if (len + extra <= out.length) return;
      let cap = out.length * 2;
      while (cap < len + extra) cap *= 2;
      const next = new Uint8Array(cap);
      next.set(out.subarray(0, len));
      out = next;
    };
    for (;;) {
      const runStart = p;
      while (p < n) {
        const c = s[p]!;
        if (c === DQUOTE || c === BACKSLASH) break;
        p++;
      }
      if (p >= n) throw this.error(PARSE_UNEXPECTED, 'unterminated bytes literal', start);
      if (p > runStart) {
        ensure(p - runStart);
        out.set(s.subarray(runStart, p), len);
        len += p - runStart;
      }
      if (s[p] === DQUOTE) {
        this.pos = p + 1;
        return out.slice(0, len);
      }
      if (p + 1 >= n) throw this.error(PARSE_UNEXPECTED, 'unterminated bytes literal', start);
      const e = s[p + 1]!;
      ensure(4);
      const named = NAMED_ESCAPES[e]!;
      if (named !== 0) {
        out[len++] = named;
        p += 2;
        continue;
      }
      switch (e) {
        case 0x75: {
          const cp = this.readUnicodeEscape(p);
          if (cp < 0x80) out[len++] = cp;
          else if (cp < 0x800) {
            out[len++] = 0xc0 | (cp >> 6);
            out[len++] = 0x80 | (cp & 0x3f);
          } else {
            out[len++] = 0xe0 | (cp >> 12);
            out[len++] = 0x80 | ((cp >> 6) & 0x3f);
            out[len++] = 0x80 | (cp & 0x3f);
          }
          p += 6;
          break;
        }
        case 0x78:
          out[len++] = this.readHexEscape(p);
          p += 4;
          break;
        default:
          throw this.badEscape(p);
      }
    }
  }
}
