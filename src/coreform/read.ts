/**
 * The CoreForm reader: `.gc` source bytes → raw (non-canonicalized) terms.
 *
 * Implements GENESIS_FACTS.md §1.2 exactly. The reader is byte-oriented over UTF-8; every offset
 * it reports is a 0-based UTF-8 byte offset, every line/column is 1-based (columns count bytes).
 * It is iterative (explicit stack), so arbitrarily deep nesting cannot overflow the JS stack.
 *
 * Error codes (all `GcError`, exit code 10):
 * - `core/parse/eof` — end of input where a term was expected; offset = source length.
 * - `core/parse/unexpected` — unexpected/mismatched closing delimiter (at the delimiter), trailing
 *   tokens after a single term (at the token), unterminated string/bytes/list/vector/map (at the
 *   opening delimiter; for nested unclosed containers, the innermost one), a map literal with an
 *   odd number of terms (at its `{`), invalid UTF-8 in the source (at the first invalid byte).
 * - `core/parse/escape` — bad escape sequence inside a string or bytes literal (at the backslash).
 */
import { isUtf8 } from 'node:buffer';
import { GcError, type GcCode } from '../util/errors.js';
import { SCAN_WASM } from './scan-wasm.js';
import { FALSE, NIL, TRUE, map as mapOf, type Term } from './term.js';

/** One top-level form of a module with its source span (0-based UTF-8 byte offsets). */
export interface ReadForm {
  /** The raw (non-canonicalized) term. */
  term: Term;
  /** Byte offset of the form's first byte (for `'x`, the quote character). */
  start: number;
  /** Byte offset just past the form's last byte. */
  end: number;
  /** Start of the trivia (whitespace and comments) before this form: the previous form's `end`, or 0. */
  leadingStart: number;
}

/**
 * The result of {@link readModule}. `source.subarray(f.leadingStart, f.start)` is each form's
 * leading trivia, `source.subarray(f.start, f.end)` its text, and
 * `source.subarray(trailingStart)` the trivia after the last form; concatenated in order they
 * reproduce `source` exactly.
 */
export interface ReadModuleResult {
  /** The UTF-8 source that was read (the input itself when it was a `Uint8Array`). */
  source: Uint8Array;
  /** The top-level forms, in source order. */
  forms: ReadForm[];
  /** End of the last form, or 0 when there are none; the trailing trivia runs to `source.length`. */
  trailingStart: number;
}

/** What a {@link NodeSpan} is in the source text. */
export type NodeSpanKind = 'list' | 'vec' | 'map' | 'quote' | 'atom';

/**
 * The source span of one node (one datum) of the text, as recorded by {@link readModuleSpans} and
 * {@link readTermSpans}. All offsets are 0-based UTF-8 byte offsets into the source that was read
 * (the `source` of the result), half-open: `source.subarray(start, end)` is the node's text.
 *
 * - `kind`: `'list'` for `( … )` (including `()`, which reads as nil), `'vec'` for `[ … ]`,
 *   `'map'` for `{ … }`, `'quote'` for the `'x` sugar (reads as `(quote x)`), `'atom'` otherwise
 *   (symbol, integer, string, bytes; `nil`/`true`/`false` are atoms).
 * - `term`: the raw (non-canonicalized) term this node reads as (the same value `readModule` builds;
 *   terms may be shared between nodes, so map spans to terms, never terms to spans).
 * - `children`: list/vec items in source order; a map literal's keys and values alternating in
 *   SOURCE order, before the reader sorts the entries and drops repeated keys (so `children.length`
 *   is twice the literal's entry count, not the term's); for a quote, exactly one child, the quoted
 *   datum (the `quote` head symbol of the term has no span); for an atom, none (a shared frozen
 *   empty array).
 * - `leadingStart`: start of the trivia (whitespace, `;` comments) before the node: the previous
 *   sibling's `end`, or the byte after the enclosing opening delimiter (or `'`) for a first child,
 *   or the previous top-level form's `end` (0 for the first) at top level. `[leadingStart, start)`
 *   is the node's leading trivia.
 * - `closeStart`: for list/vec/map, the offset of the closing delimiter (`end - 1`); the trivia
 *   after the last child is `[lastChild.end, closeStart)`. Equal to `end` for atoms and quotes.
 */
export interface NodeSpan {
  readonly kind: NodeSpanKind;
  readonly term: Term;
  readonly start: number;
  readonly end: number;
  readonly leadingStart: number;
  readonly closeStart: number;
  readonly children: readonly NodeSpan[];
}

/** A top-level form read by {@link readModuleSpans}: a {@link ReadForm} with its node tree. */
export interface SpannedForm extends ReadForm {
  /** The form's node (its `start`/`end`/`leadingStart`/`term` equal the form's). */
  node: NodeSpan;
}

/** The result of {@link readModuleSpans}: a {@link ReadModuleResult} whose forms carry node spans. */
export interface SpannedModule extends ReadModuleResult {
  forms: SpannedForm[];
}

const NO_CHILDREN: readonly NodeSpan[] = Object.freeze([]);

/** Error code: end of input where a term was expected. */
export const PARSE_EOF = 'core/parse/eof';
/** Error code: unexpected token, unterminated literal/container, odd map, invalid UTF-8, trailing tokens. */
export const PARSE_UNEXPECTED = 'core/parse/unexpected';
/** Error code: invalid escape sequence in a string or bytes literal. */
export const PARSE_ESCAPE = 'core/parse/escape';

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

// Character classes.
const C_WS = 1;
const C_DELIM = 2;
const C_DIGIT = 4;
const CLASS = new Uint8Array(256);
for (const c of [0x20, 0x09, 0x0a, 0x0d]) CLASS[c] = C_WS | C_DELIM;
for (const c of '()[]{}\'";') CLASS[c.charCodeAt(0)] = C_DELIM;
for (let c = 0x30; c <= 0x39; c++) CLASS[c] = C_DIGIT;

// Hex digit values, 255 = not a hex digit.
const HEX = new Uint8Array(256).fill(255);
for (let i = 0; i < 10; i++) HEX[0x30 + i] = i;
for (let i = 0; i < 6; i++) {
  HEX[0x41 + i] = 10 + i;
  HEX[0x61 + i] = 10 + i;
}

const OPEN_LIST = 0x28; // (
const CLOSE_LIST = 0x29; // )
const OPEN_VEC = 0x5b; // [
const CLOSE_VEC = 0x5d; // ]
const OPEN_MAP = 0x7b; // {
const CLOSE_MAP = 0x7d; // }
const QUOTE = 0x27; // '
const DQUOTE = 0x22; // "
const BACKSLASH = 0x5c;
const SEMI = 0x3b;
const LF = 0x0a;
const MINUS = 0x2d;
const LOWER_B = 0x62;

const QUOTE_SYM: Term = Object.freeze({ kind: 'sym', name: 'quote' }) as Term;

/**
 * 1-based line and 1-based byte column of a 0-based UTF-8 byte `offset` in `source`. Only LF
 * starts a new line (a CR is an ordinary column). Offsets past the end are clamped.
 */
export function lineColumn(source: Uint8Array, offset: number): { line: number; column: number } {
  const end = Math.max(0, Math.min(offset, source.length));
  let line = 1;
  let lineStart = 0;
  let p = source.indexOf(LF);
  while (p !== -1 && p < end) {
    line++;
    lineStart = p + 1;
    p = source.indexOf(LF, p + 1);
  }
  return { line, column: end - lineStart + 1 };
}

function parseError(source: Uint8Array, code: GcCode, message: string, offset: number): GcError {
  const { line, column } = lineColumn(source, offset);
  return new GcError(code, message, { location: { offset, line, column } });
}

/** Offset of the first byte that makes `bytes` invalid UTF-8 (strict: no surrogates/overlongs), or -1. */
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

function toBytes(source: Uint8Array | string): Uint8Array {
  return typeof source === 'string' ? encoder.encode(source) : source;
}

/**
 * Decodes an already-validated UTF-8 slice `s[a, b)` (byte offsets); short ASCII runs skip the
 * TextDecoder call overhead.
 */
export function decodeSlice(s: Uint8Array, a: number, b: number): string {
  const len = b - a;
  if (len <= 128) {
    let ascii = true;
    for (let i = a; i < b; i++) {
      if (s[i]! >= 0x80) {
        ascii = false;
        break;
      }
    }
    if (ascii) {
      switch (len) {
        case 0:
          return '';
        case 1:
          return String.fromCharCode(s[a]!);
        case 2:
          return String.fromCharCode(s[a]!, s[a + 1]!);
        case 3:
          return String.fromCharCode(s[a]!, s[a + 1]!, s[a + 2]!);
        default:
          return String.fromCharCode.apply(null, s.subarray(a, b) as unknown as number[]);
      }
    }
  }
  return decoder.decode(s.subarray(a, b));
}

/** Shared immutable int terms for -128..1023 (terms are never mutated), made on first use. */
const SMALL_INTS: (Term | undefined)[] = new Array<Term | undefined>(1152);

/** The shared int term of `v` (-128 <= v < 1024). */
function smallInt(v: number): Term {
  return (SMALL_INTS[v + 128] ??= { kind: 'int', value: BigInt(v) });
}

/**
 * A direct-mapped cache from symbol bytes to a shared (immutable) symbol term, so repeated
 * symbols cost neither a string decode nor an allocation. Also maps `nil`/`true`/`false`.
 * One cache serves every read of the process (its keys are copies of the symbol bytes, so a
 * source may change or go away after it was read); the slots are allocated on first use, so a
 * `readTerm` of a small form does not pay for 8,192 slot writes.
 */
class SymbolCache {
  private keys: (Uint8Array | undefined)[] | undefined;
  private terms: (Term | undefined)[] | undefined;

  get(s: Uint8Array, a: number, b: number): Term {
    const len = b - a;
    if (len > 48) return symbolTerm(decodeSlice(s, a, b));
    let h = 0x811c9dc5;
    for (let i = a; i < b; i++) h = Math.imul(h ^ s[i]!, 0x01000193);
    const slot = (h ^ (h >>> 15)) & 4095;
    const keys = (this.keys ??= new Array<Uint8Array | undefined>(4096).fill(undefined));
    const terms = (this.terms ??= new Array<Term | undefined>(4096).fill(undefined));
    const key = keys[slot];
    if (key !== undefined && key.length === len) {
      let same = true;
      for (let i = 0; i < len; i++) {
        if (key[i] !== s[a + i]) {
          same = false;
          break;
        }
      }
      if (same) return terms[slot]!;
    }
    const t = symbolTerm(decodeSlice(s, a, b));
    keys[slot] = s.slice(a, b);
    terms[slot] = t;
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

/** Container frame kinds on the reader's explicit stack. */
const F_LIST = 0;
const F_VEC = 1;
const F_MAP = 2;
const F_QUOTE = 3;
const FRAME_NAME = ['list', 'vector', 'map'] as const;
const FRAME_CLOSE = [')', ']', '}'] as const;
const FRAME_OPEN = ['(', '[', '{'] as const;

class Reader {
  readonly src: Uint8Array;
  readonly len: number;
  pos = 0;
  // Reusable stacks of readForm.
  readonly fType: number[] = [];
  readonly fOpen: number[] = [];
  readonly fBase: number[] = [];
  readonly vals: Term[] = [];
  /** False in scan mode: the grammar is checked exactly, but no term is built (values are NIL). */
  readonly build: boolean;
  /** True when node spans are recorded (only with `build`); the span stacks below are then used. */
  readonly spans: boolean;
  readonly fLead: number[] = [];
  readonly spanVals: NodeSpan[] = [];
  /** The span of the last value `readForm` returned (spans mode only). */
  lastSpan: NodeSpan | undefined;

  constructor(src: Uint8Array, build = true, spans = false) {
    this.src = src;
    this.build = build;
    this.spans = spans && build;
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

  /**
   * Reads exactly one term starting at `pos` (trivia already skipped; `pos < len`). Iterative:
   * open containers live on flat stacks (`fType`/`fOpen`/`fBase`), their items on `vals`.
   */
  readForm(topLead = this.pos): Term {
    const s = this.src;
    const n = this.len;
    const fType = this.fType;
    const fOpen = this.fOpen;
    const fBase = this.fBase;
    const vals = this.vals;
    const spans = this.spans;
    const fLead = this.fLead;
    const spanVals = this.spanVals;
    let depth = 0;
    fType.length = 0;
    fOpen.length = 0;
    fBase.length = 0;
    vals.length = 0;
    if (spans) {
      fLead.length = 0;
      spanVals.length = 0;
    }
    for (;;) {
      const lead = depth === 0 ? topLead : this.pos;
      this.skipTrivia();
      let value: Term;
      let span: NodeSpan | undefined;
      if (this.pos >= n) {
        if (depth === 0 || fType[depth - 1] === F_QUOTE) {
          throw this.error(PARSE_EOF, 'unexpected end of input: expected a term', n);
        }
        const t = fType[depth - 1]!;
        throw this.error(
          PARSE_UNEXPECTED,
          `unterminated ${FRAME_NAME[t]!}: no closing '${FRAME_CLOSE[t]!}' for the '${FRAME_OPEN[t]!}' opened here`,
          fOpen[depth - 1]!,
        );
      }
      const c = s[this.pos]!;
      if (c === OPEN_LIST || c === OPEN_VEC || c === OPEN_MAP || c === QUOTE) {
        fType[depth] = c === OPEN_LIST ? F_LIST : c === OPEN_VEC ? F_VEC : c === OPEN_MAP ? F_MAP : F_QUOTE;
        fOpen[depth] = this.pos;
        fBase[depth] = vals.length;
        if (spans) fLead[depth] = lead;
        depth++;
        this.pos++;
        continue;
      } else if (c === CLOSE_LIST || c === CLOSE_VEC || c === CLOSE_MAP) {
        const ch = String.fromCharCode(c);
        const t = depth === 0 ? F_QUOTE : fType[depth - 1]!;
        if (t === F_QUOTE) {
          throw this.error(PARSE_UNEXPECTED, `unexpected closing delimiter '${ch}'`, this.pos);
        }
        const want = t === F_LIST ? CLOSE_LIST : t === F_VEC ? CLOSE_VEC : CLOSE_MAP;
        if (c !== want) {
          throw this.error(
            PARSE_UNEXPECTED,
            `mismatched closing delimiter '${ch}': expected '${FRAME_CLOSE[t]!}' to close the ${FRAME_NAME[t]!} opened at byte ${fOpen[depth - 1]!}`,
            this.pos,
          );
        }
        depth--;
        const base = fBase[depth]!;
        if (!this.build) {
          if (t === F_MAP && (vals.length - base) % 2 !== 0) {
            throw this.error(
              PARSE_UNEXPECTED,
              `map literal must contain an even number of terms (found ${vals.length - base})`,
              fOpen[depth]!,
            );
          }
          value = NIL;
        } else if (t === F_LIST) {
          let out: Term = NIL;
          for (let i = vals.length - 1; i >= base; i--) out = { kind: 'pair', car: vals[i]!, cdr: out };
          value = out;
        } else if (t === F_VEC) {
          value = { kind: 'vec', items: vals.slice(base) };
        } else {
          if ((vals.length - base) % 2 !== 0) {
            throw this.error(
              PARSE_UNEXPECTED,
              `map literal must contain an even number of terms (found ${vals.length - base})`,
              fOpen[depth]!,
            );
          }
          value = buildMap(vals, base);
        }
        vals.length = base;
        if (spans) {
          span = {
            kind: t === F_LIST ? 'list' : t === F_VEC ? 'vec' : 'map',
            term: value,
            start: fOpen[depth]!,
            end: this.pos + 1,
            leadingStart: fLead[depth]!,
            closeStart: this.pos,
            children: spanVals.slice(base),
          };
          spanVals.length = base;
        }
        this.pos++;
      } else {
        const start = this.pos;
        value = this.readAtom(c);
        if (spans) span = { kind: 'atom', term: value, start, end: this.pos, leadingStart: lead, closeStart: this.pos, children: NO_CHILDREN };
      }
      // Deliver `value` to the enclosing frames (quote frames complete immediately).
      while (depth > 0 && fType[depth - 1] === F_QUOTE) {
        depth--;
        if (this.build) value = { kind: 'pair', car: QUOTE_SYM, cdr: { kind: 'pair', car: value, cdr: NIL } };
        if (spans) {
          span = { kind: 'quote', term: value, start: fOpen[depth]!, end: this.pos, leadingStart: fLead[depth]!, closeStart: this.pos, children: [span!] };
        }
      }
      if (depth === 0) {
        if (spans) this.lastSpan = span;
        return value;
      }
      vals.push(value);
      if (spans) spanVals.push(span!);
    }
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
      throw this.error(
        PARSE_ESCAPE,
        `invalid \\u escape: U+${cp.toString(16).toUpperCase().padStart(4, '0')} is a surrogate, not a Unicode scalar value`,
        bs,
      );
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
    return this.error(
      PARSE_ESCAPE,
      `invalid escape sequence '${shown}' (allowed: \\\\ \\" \\n \\r \\t \\uXXXX \\xNN)`,
      bs,
    );
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
      if (e === BACKSLASH || e === DQUOTE || e === 0x6e || e === 0x72 || e === 0x74) p += 2;
      else if (e === 0x75) {
        this.readUnicodeEscape(p);
        p += 6;
      } else if (e === 0x78) {
        this.readHexEscape(p);
        p += 4;
      } else throw this.badEscape(p);
    }
  }

  /** Reads `"..."` whose opening quote is at `start`; leaves `pos` after the closing quote. */
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
        parts.push(e === 0x6e ? '\n' : e === 0x72 ? '\r' : e === 0x74 ? '\t' : String.fromCharCode(e));
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
      switch (e) {
        case BACKSLASH:
          out[len++] = BACKSLASH;
          p += 2;
          break;
        case DQUOTE:
          out[len++] = DQUOTE;
          p += 2;
          break;
        case 0x6e:
          out[len++] = 0x0a;
          p += 2;
          break;
        case 0x72:
          out[len++] = 0x0d;
          p += 2;
          break;
        case 0x74:
          out[len++] = 0x09;
          p += 2;
          break;
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

/** Builds a map from alternating key/value items: sorted by §1.4, duplicate keys last-wins. */
function buildMap(items: Term[], base: number): Term {
  const entries: (readonly [Term, Term])[] = [];
  for (let i = base; i < items.length; i += 2) entries.push([items[i]!, items[i + 1]!]);
  return mapOf(entries);
}

/**
 * `parse_module` of §1.2: reads zero or more terms until end of input, keeping each form's span.
 * @param source UTF-8 bytes, or a JS string (encoded as UTF-8 first; offsets refer to those bytes).
 * @returns the source bytes, the forms with 0-based byte spans, and where the trailing trivia starts.
 * @throws GcError `core/parse/eof`, `core/parse/unexpected` or `core/parse/escape` (exit code 10),
 *   with `location.offset` (0-based byte), `location.line` and `location.column` (1-based).
 */
export function readModule(source: Uint8Array | string): ReadModuleResult {
  const src = toBytes(source);
  const r = new Reader(src);
  const forms: ReadForm[] = [];
  let prevEnd = 0;
  for (;;) {
    r.skipTrivia();
    if (r.pos >= r.len) break;
    const start = r.pos;
    const term = r.readForm();
    forms.push({ term, start, end: r.pos, leadingStart: prevEnd });
    prevEnd = r.pos;
  }
  return { source: src, forms, trailingStart: prevEnd };
}

/**
 * {@link readModule} that also records the source span of every node (every datum at every depth),
 * for tools that edit a module's text in place (format-preserving patch apply, the edit-plan
 * export, the merge driver). Same reader, same grammar, same errors; iterative, so deep input
 * cannot overflow the stack. Callers that do not need spans use `readModule` and pay nothing.
 * @param source UTF-8 bytes, or a JS string (encoded as UTF-8 first; offsets refer to those bytes).
 * @returns as {@link readModule}, each form also carrying `node`, its {@link NodeSpan} tree (0-based
 *   UTF-8 byte offsets into `source`).
 * @throws GcError `core/parse/eof`, `core/parse/unexpected` or `core/parse/escape` (exit code 10).
 */
export function readModuleSpans(source: Uint8Array | string): SpannedModule {
  const src = toBytes(source);
  const r = new Reader(src, true, true);
  const forms: SpannedForm[] = [];
  let prevEnd = 0;
  for (;;) {
    r.skipTrivia();
    if (r.pos >= r.len) break;
    const start = r.pos;
    const term = r.readForm(prevEnd);
    forms.push({ term, start, end: r.pos, leadingStart: prevEnd, node: r.lastSpan! });
    prevEnd = r.pos;
  }
  return { source: src, forms, trailingStart: prevEnd };
}

/**
 * {@link readTerm} that also returns the {@link NodeSpan} tree of the term (offsets are 0-based
 * UTF-8 byte offsets into `source`; the root's `leadingStart` is 0).
 * @throws GcError `core/parse/*` as for {@link readTerm}.
 */
export function readTermSpans(source: Uint8Array | string): { source: Uint8Array; term: Term; node: NodeSpan } {
  const src = toBytes(source);
  const r = new Reader(src, true, true);
  r.skipTrivia();
  if (r.pos >= r.len) throw r.error(PARSE_EOF, 'unexpected end of input: expected a term', r.len);
  const term = r.readForm(0);
  const node = r.lastSpan!;
  r.skipTrivia();
  if (r.pos < r.len) throw r.error(PARSE_UNEXPECTED, 'trailing tokens after term', r.pos);
  return { source: src, term, node };
}

/** A top-level form's span, as found by {@link scanModule}. */
export type FormSpan = Omit<ReadForm, 'term'>;

/** The result of {@link scanModule}. */
export interface ScannedModule {
  /** The UTF-8 source that was scanned (the input itself when it was a `Uint8Array`). */
  source: Uint8Array;
  /** The top-level form spans, in source order (0-based UTF-8 byte offsets). */
  forms: FormSpan[];
  /** End of the last form, or 0 when there are none. */
  trailingStart: number;
}

/**
 * Checks `source` against the grammar exactly as {@link readModule} does (same errors, same
 * offsets) and returns the top-level form spans without building terms: several times faster, for
 * tools that only need the forms' text (the merge driver reads a form's term only when it needs
 * one, with `readTerm` on the form's bytes).
 *
 * A valid source is checked by one flat byte loop ({@link scanValid}); when that loop finds
 * anything wrong, the source is scanned again by the reader itself ({@link scanModuleReader}),
 * which throws the exact error, so errors cost a second pass but are identical by construction.
 * @param source UTF-8 bytes, or a JS string (encoded as UTF-8 first; offsets refer to those bytes).
 * @returns the source bytes, the form spans (`start`, `end`, `leadingStart`: 0-based UTF-8 byte
 *   offsets, as in {@link readModule}), and where the trailing trivia starts.
 * @throws GcError `core/parse/eof`, `core/parse/unexpected` or `core/parse/escape` (exit code 10)
 *   as for {@link readModule} (GENESIS_FACTS.md §1.2).
 */
export function scanModule(source: Uint8Array | string): ScannedModule {
  const src = toBytes(source);
  const { bounds, trailingStart } = scanFormBounds(src);
  const forms: FormSpan[] = new Array<FormSpan>(bounds.length >> 1);
  let prevEnd = 0;
  for (let i = 0; i < bounds.length; i += 2) {
    const end = bounds[i + 1]!;
    forms[i >> 1] = { start: bounds[i]!, end, leadingStart: prevEnd };
    prevEnd = end;
  }
  return { source: src, forms, trailingStart };
}

/**
 * {@link scanModule} without a span object per form: `bounds` holds each top-level form's start
 * and end offsets in turn (`[start0, end0, start1, end1, …]`, 0-based bytes; form `i`'s leading
 * trivia starts at `end(i - 1)`, or 0; an array or an `Int32Array`), for callers that walk many
 * forms once (the merge driver). Inputs of 64 KiB or more are scanned by the WebAssembly build of
 * {@link scanValid} (scan.wat), where WebAssembly is available.
 * @throws GcError `core/parse/*` as for {@link readModule}.
 */
export function scanFormBounds(source: Uint8Array): { bounds: ArrayLike<number>; trailingStart: number } {
  if (isUtf8(source)) {
    // scan.wat for large inputs where it runs (undefined: not here), else the JavaScript loop; null
    // or a non-zero answer: not valid, the reader reports why.
    let bounds: ArrayLike<number> | null | undefined = source.length >= wasmFrom ? scanValidWasm(source) : undefined;
    if (bounds === undefined) {
      const list: number[] = [];
      bounds = scanValid(source, list) === 0 ? list : null;
    }
    if (bounds !== null) return { bounds, trailingStart: bounds.length > 0 ? bounds[bounds.length - 1]! : 0 };
  }
  const r = scanModuleReader(source);
  const bounds: number[] = [];
  for (const f of r.forms) bounds.push(f.start, f.end);
  return { bounds, trailingStart: r.trailingStart };
}

/**
 * Inputs of at least this many bytes are scanned by the WebAssembly scan. Below it the JavaScript
 * loop is as fast, counting WebAssembly's first compile (≈1.5 ms) and the copy into its memory.
 */
let wasmFrom = 64 * 1024;

/**
 * Sets the size from which {@link scanFormBounds} (and so {@link scanModule}) uses the
 * WebAssembly scan: 0 always, Infinity never (the JavaScript loop). Returns the previous value.
 * @internal for tests, which run both scans over the same inputs.
 */
export function setScanWasmFrom(bytes: number): number {
  const previous = wasmFrom;
  wasmFrom = bytes;
  return previous;
}

/** The part of the WebAssembly API used here (the library's TypeScript libs carry no DOM types). */
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: object };
}
interface WasmScan {
  memory: { buffer: ArrayBuffer; grow(pages: number): number };
  scan: (n: number, stack: number, bounds: number) => number;
  count: { value: number };
}
/** The instantiated scan.wat: undefined before first use, null where WebAssembly is not available. */
let wasmScan: WasmScan | null | undefined;

function wasmScanInstance(): WasmScan | null {
  if (wasmScan !== undefined) return wasmScan;
  try {
    const api = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;
    if (api === undefined) throw new Error('no WebAssembly');
    const instance = new api.Instance(new api.Module(Buffer.from(SCAN_WASM, 'base64')), {});
    const e = instance.exports as WasmScan;
    // The class tables scan.wat reads at offsets 0 (SCAN) and 256 (HEX): this file's own.
    const mem = new Uint8Array(e.memory.buffer);
    mem.set(SCAN, 0);
    mem.set(HEX, 256);
    wasmScan = { memory: e.memory, scan: e.scan, count: e.count };
  } catch {
    wasmScan = null;
  }
  return wasmScan;
}

/**
 * {@link scanValid} done by scan.wat (the same checks, step for step: a driver process runs V8
 * without its optimizing compiler, where the JavaScript loop costs ~20 ns a byte; issue #15).
 * @returns the form bounds when `s` is valid, null when it is not (the reader then reports the
 *   error), undefined when WebAssembly is not available or its memory cannot hold `s` (the caller
 *   scans in JavaScript).
 */
function scanValidWasm(s: Uint8Array): Int32Array | null | undefined {
  const w = wasmScanInstance();
  if (w === null) return undefined;
  const n = s.length;
  // Input at 512, one byte of frame stack per input byte, then up to one pair of bounds per byte.
  const stack = 512 + n;
  const boundsAt = (stack + n + 8) & ~7;
  const need = boundsAt + 8 * (n + 1);
  const have = w.memory.buffer.byteLength;
  if (need > have) {
    try {
      w.memory.grow(Math.ceil((need - have) / 65536));
    } catch {
      return undefined; // past WebAssembly's memory limit (≈ 400 MB of input): the JavaScript loop
    }
  }
  new Uint8Array(w.memory.buffer, 512, n).set(s);
  if (w.scan(n, stack, boundsAt) !== 0) return null;
  const count = w.count.value;
  return new Int32Array(w.memory.buffer, boundsAt, count * 2).slice();
}

/**
 * {@link scanModule} done by the term reader in its scan mode (no terms built): the reference
 * that {@link scanModule}'s fast loop is tested against, and what produces its errors.
 * @internal exported for tests and benchmarks; use {@link scanModule}.
 * @throws GcError `core/parse/*` as for {@link readModule}.
 */
export function scanModuleReader(source: Uint8Array | string): ScannedModule {
  const src = toBytes(source);
  const r = new Reader(src, false);
  const forms: FormSpan[] = [];
  let prevEnd = 0;
  for (;;) {
    r.skipTrivia();
    if (r.pos >= r.len) break;
    const start = r.pos;
    r.readForm();
    forms.push({ start, end: r.pos, leadingStart: prevEnd });
    prevEnd = r.pos;
  }
  return { source: src, forms, trailingStart: prevEnd };
}

// Byte classes of scanValid's dispatch (scanValid spells them as literals: in the interpreter,
// where a cold process runs it first, a module constant costs a load per use). The opening
// delimiters come first, numbered as the frame kinds F_LIST, F_VEC, F_MAP, F_QUOTE.
//   0 (   1 [   2 {   3 '   4 )   5 ]   6 }   7 space/tab/LF/CR   8 ;   9 "   10 digit   11 -
//   12 b   13 any other byte (a symbol constituent)   [14: `b"`, assigned in the loop]
const SCAN = new Uint8Array(256).fill(13);
SCAN[OPEN_LIST] = F_LIST;
SCAN[OPEN_VEC] = F_VEC;
SCAN[OPEN_MAP] = F_MAP;
SCAN[QUOTE] = F_QUOTE;
SCAN[CLOSE_LIST] = 4;
SCAN[CLOSE_VEC] = 5;
SCAN[CLOSE_MAP] = 6;
for (const c of [0x20, 0x09, 0x0a, 0x0d]) SCAN[c] = 7;
SCAN[SEMI] = 8;
SCAN[DQUOTE] = 9;
for (let c = 0x30; c <= 0x39; c++) SCAN[c] = 10;
SCAN[MINUS] = 11;
SCAN[LOWER_B] = 12;

/**
 * The fast path of {@link scanModule}: checks the grammar of §1.2 over the (already UTF-8-valid)
 * `s` in one loop, with no calls per byte and no allocation per token, and appends each top-level
 * form's start and end (byte offsets) to `bounds`.
 *
 * It accepts exactly what the reader accepts, token for token: `(`/`[`/`{` open a frame and the
 * matching closer ends it (a map's item count must be even), `'` opens a frame that the next datum
 * completes; a string `"…"` or bytes `b"…"` literal holds escapes `\\ \" \n \r \t`, `\uXXXX` (a
 * scalar value: not a surrogate) and `\xNN`; an integer is `-`? followed by digits and ends at the
 * first non-digit (so `12abc` is two tokens, as in the reader); any other token is a symbol that
 * runs to the next delimiter (whitespace, `()[]{}'";`); `;` comments run to the end of the line.
 * Open frames are one byte each in a typed array (the kind, plus 4 while a map frame holds an odd
 * number of items), so nesting depth costs no JS stack.
 * @returns 0 when `s` is a valid module; otherwise -1, or the number of frames left open at the end
 *   (the caller then lets the reader report the error; `bounds` then holds partial results). The
 *   end of input returns `depth` as is: a comparison there, first run after V8 compiled the loop
 *   (on-stack replacement, in the middle of the first call), would have no type feedback and
 *   throw the compiled code away, and the driver scans three versions in one process.
 */
function scanValid(s: Uint8Array, bounds: number[]): number {
  const scan = SCAN;
  const hex = HEX;
  const n = s.length;
  let stack = new Uint8Array(64);
  let depth = 0;
  let p = 0;
  let formStart = 0;
  // The first backslash at or after the last place one was searched for (n: none to the end).
  // Strings are scanned front to back, so one search serves every string before that backslash.
  let bs = -1;
  for (;;) {
    if (p >= n) return depth;
    let k = scan[s[p]!]!;
    if (k === 7) {
      p++;
      continue;
    }
    if (k === 8) {
      const nl = s.indexOf(0x0a, p + 1);
      p = nl === -1 ? n : nl + 1;
      continue;
    }
    if (depth === 0) formStart = p;
    if (k === 11) k = p + 1 < n && scan[s[p + 1]!]! === 10 ? 10 : 13;
    else if (k === 12) k = p + 1 < n && s[p + 1] === 0x22 ? 14 : 13;
    switch (k) {
      case 0:
      case 1:
      case 2:
      case 3:
        if (depth === stack.length) {
          const next = new Uint8Array(stack.length * 2);
          next.set(stack);
          stack = next;
        }
        stack[depth++] = k;
        p++;
        continue;
      case 4:
      case 5:
        // The innermost frame must be the matching list/vector (a quote frame needs a datum).
        if (depth === 0 || (stack[depth - 1]! & 3) !== k - 4) return -1;
        depth--;
        p++;
        break;
      case 6:
        // The innermost frame must be a map holding an even number of items.
        if (depth === 0 || stack[depth - 1] !== 2) return -1;
        depth--;
        p++;
        break;
      case 9:
      case 14: {
        // A string or bytes literal: find the closing quote, checking the escapes on the way.
        let q = k === 9 ? p + 1 : p + 2;
        let dq = s.indexOf(0x22, q);
        for (;;) {
          if (dq === -1) return -1;
          if (bs < q) {
            bs = s.indexOf(0x5c, q);
            if (bs === -1) bs = n;
          }
          if (bs > dq) break;
          // bs < dq < n: the escape's bytes up to the first bad one are all in bounds.
          const e = s[bs + 1]!;
          if (e === 0x5c || e === 0x22 || e === 0x6e || e === 0x72 || e === 0x74) q = bs + 2;
          else if (e === 0x75) {
            // \uXXXX: four hex digits, not a surrogate (D800-DFFF).
            const h1 = hex[s[bs + 2]!]!;
            if (h1 === 255) return -1;
            const h2 = hex[s[bs + 3]!]!;
            if (h2 === 255) return -1;
            if (hex[s[bs + 4]!]! === 255 || hex[s[bs + 5]!]! === 255) return -1;
            if (h1 === 13 && h2 >= 8) return -1;
            q = bs + 6;
          } else if (e === 0x78) {
            if (hex[s[bs + 2]!]! === 255 || hex[s[bs + 3]!]! === 255) return -1;
            q = bs + 4;
          } else return -1;
          if (dq < q) dq = s.indexOf(0x22, q);
        }
        p = dq + 1;
        break;
      }
      case 10:
        p++;
        while (p < n && scan[s[p]!]! === 10) p++;
        break;
      default:
        p++;
        while (p < n && scan[s[p]!]! >= 10) p++; // up to a delimiter (classes 0-9)
    }
    // A datum ended at p: it completes the quote frames around it, then is an item of the
    // innermost container, or a top-level form.
    while (depth > 0 && stack[depth - 1] === 3) depth--;
    if (depth === 0) {
      bounds.push(formStart);
      bounds.push(p);
    } else stack[depth - 1] ^= 4;
  }
}

/**
 * `parse_module` of §1.2 returning only the terms (see {@link readModule}).
 * @throws GcError `core/parse/*` as for {@link readModule}.
 */
export function parseModule(source: Uint8Array | string): Term[] {
  return readModule(source).forms.map((f) => f.term);
}

/**
 * `parse_term` of §1.2: exactly one term, then only whitespace/comments.
 * @throws GcError `core/parse/eof` at the source length when there is no term;
 *   `core/parse/unexpected` "trailing tokens after term" at the first byte of a second token;
 *   otherwise the reader errors of {@link readModule}.
 */
export function readTerm(source: Uint8Array | string): Term {
  const src = toBytes(source);
  const r = new Reader(src);
  r.skipTrivia();
  if (r.pos >= r.len) throw r.error(PARSE_EOF, 'unexpected end of input: expected a term', r.len);
  const term = r.readForm();
  r.skipTrivia();
  if (r.pos < r.len) throw r.error(PARSE_UNEXPECTED, 'trailing tokens after term', r.pos);
  return term;
}
