/**
 * The canonical printer (docs/reference/coreform.md §1.5): width 100 in UTF-8 bytes, indent 2, `\n` line
 * ends, no trailing spaces. `printTerm` is the only printer used for hashing. Iterative: deeply
 * nested terms do not overflow the call stack.
 */
import { GcError } from '../util/errors.js';
import { utf8Length } from '../util/bytes.js';
import type { Term } from './term.js';

/** Line width in UTF-8 bytes. */
export const PRINT_WIDTH = 100;

/**
 * Largest canonical print produced, in UTF-16 code units (≈ bytes for ASCII). Pretty printing is
 * quadratic in nesting depth (every level indents by 2), so a pathologically deep data term would
 * print to gigabytes; such a print stops with `core/print/too-large` instead of exhausting memory.
 */
export const MAX_PRINT_LENGTH = 256 * 1024 * 1024;

const HEX = '0123456789ABCDEF';

/** True when a string character needs an escape in a string literal (`\ " LF CR TAB`, Cc controls). */
function needsEscape(c: number): boolean {
  return c === 0x5c || c === 0x22 || c < 0x20 || (c >= 0x7f && c <= 0x9f);
}

function escapeStr(value: string): string {
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

function isAtomKind(t: Term): boolean {
  return t.kind !== 'pair' && t.kind !== 'vec' && t.kind !== 'map';
}

/**
 * Multi-line prints of large containers at the indent they were last printed at. A workspace is
 * hashed several times by diff and merge; each time its module records are printed at the same
 * indent, so the text is reused instead of laid out again.
 */
const blockCache = new WeakMap<Term, { indent: number; bytes: Uint8Array; units: number; ascii: boolean }>();

/** Containers whose print is at least this many characters are kept in `blockCache`. */
const BLOCK_CACHE_MIN = 256;

/**
 * Only containers this close to the printed root are cached (a workspace vector → module record →
 * forms vector → form is depth 3). Caching every level of a deep term would keep a copy of its
 * text per level: quadratic memory.
 */
const BLOCK_CACHE_MAX_DEPTH = 3;

/** What a task of {@link Printer.fmt} is: a term to lay out on a new line, literal text, a map entry on one line, or the end of a cached block. */
const TASK_TERM = 0;
const TASK_TEXT = 1;
const TASK_ENTRY = 2;
const TASK_CAPTURE = 3;

/** The texts of the integers -128..1023 (the reader shares their terms; their prints are shared too). */
const SMALL_INT_TEXT: string[] = Array.from({ length: 1152 }, (_, i) => String(i - 128));

function intText(v: bigint): string {
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
function atomLength(t: Term): number {
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
function atomText(t: Term): string {
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

/**
 * One print job. The output is UTF-8 bytes written into one growing buffer (`printTermBytes`,
 * `printModuleBytes` hash them as they are; `printTerm` and `printModule` decode them once); the
 * tasks of `fmt` live on parallel arrays (no object per task). A one-line rendering (`single` of
 * §1.5) is measured first without making any text ({@link singleLength}), and written only when it
 * is used: a list's is at most {@link PRINT_WIDTH} bytes and its measure stops as soon as it would
 * be longer, so measuring it again one level down costs little.
 */
class Printer {
  /**
   * @param maxLength the largest print allowed, in UTF-16 code units.
   * @param cacheRoots whether a root laid out on several lines is kept in `blockCache` (not for
   *   the forms of a module print: each is a root, and remembering every one costs more than it saves).
   */
  constructor(
    private readonly maxLength = MAX_PRINT_LENGTH,
    private readonly cacheRoots = true,
  ) {}
  private buf = new Uint8Array(1024);
  private pos = 0;
  /** The output's length in UTF-16 code units (what `maxLength` bounds). */
  private units = 0;
  /** False once a byte >= 0x80 was written (the output is then decoded as UTF-8, else as ASCII). */
  private ascii = true;
  // The task stack of fmt: kind, term or text, second term (a map entry's value), indent, depth
  // (for a capture: the output offset and length in code units where it began).
  private readonly tKind: number[] = [];
  private readonly tRef: (Term | string)[] = [];
  private readonly tVal: (Term | null)[] = [];
  private readonly tIndent: number[] = [];
  private readonly tDepth: number[] = [];
  private readonly tChunk: number[] = [];
  private readonly tLength: number[] = [];
  /** The open lists of `singleLength`/`writeSingle` (their remaining cells) and whether each has had an element. */
  private readonly sCur: Term[] = [];
  private readonly sFirst: boolean[] = [];

  /** Makes room for `n` more bytes. */
  private ensure(n: number): void {
    const need = this.pos + n;
    if (need <= this.buf.length) return;
    let cap = this.buf.length * 2;
    while (cap < need) cap *= 2;
    const next = new Uint8Array(cap);
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
  }

  /** Writes one ASCII byte. */
  private byte(c: number): void {
    if (this.pos === this.buf.length) this.ensure(1);
    this.buf[this.pos++] = c;
    this.units++;
  }

  /** Writes `n` spaces. */
  private spaces(n: number): void {
    this.ensure(n);
    this.buf.fill(0x20, this.pos, this.pos + n);
    this.pos += n;
    this.units += n;
  }

  /** Writes the UTF-8 of `text` (a lone surrogate as U+FFFD, as TextEncoder does). */
  text(text: string): void {
    const n = text.length;
    this.ensure(3 * n);
    const buf = this.buf;
    let p = this.pos;
    for (let i = 0; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c < 0x80) buf[p++] = c;
      else {
        p = this.wide(text, i, c, p);
        i += this.skip;
      }
    }
    this.pos = p;
    this.units += n;
  }

  /** Set by {@link wide}: 1 when it consumed a surrogate pair's second unit. */
  private skip = 0;

  /** Writes the non-ASCII code unit `c` at `text[i]` (with its pair's second unit) at `p`; returns the new offset. */
  private wide(text: string, i: number, c: number, p: number): number {
    const buf = this.buf;
    this.ascii = false;
    this.skip = 0;
    if (c < 0x800) {
      buf[p++] = 0xc0 | (c >> 6);
      buf[p++] = 0x80 | (c & 0x3f);
      return p;
    }
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        const cp = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
        buf[p++] = 0xf0 | (cp >> 18);
        buf[p++] = 0x80 | ((cp >> 12) & 0x3f);
        buf[p++] = 0x80 | ((cp >> 6) & 0x3f);
        buf[p++] = 0x80 | (cp & 0x3f);
        this.skip = 1;
        return p;
      }
    }
    if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd;
    buf[p++] = 0xe0 | (c >> 12);
    buf[p++] = 0x80 | ((c >> 6) & 0x3f);
    buf[p++] = 0x80 | (c & 0x3f);
    return p;
  }

  /** UTF-8 length of `single` of a vector (at most 3 items, all atoms) or map (at most 2 entries, all atoms); -1 when it has none. */
  private bracketLength(t: Term): number {
    if (t.kind === 'vec') {
      const items = t.items;
      if (items.length > 3) return -1;
      let len = 2 + (items.length > 0 ? items.length - 1 : 0);
      for (let i = 0; i < items.length; i++) {
        const e = items[i]!;
        if (!isAtomKind(e)) return -1;
        len += atomLength(e);
      }
      return len;
    }
    const entries = (t as Extract<Term, { kind: 'map' }>).entries;
    if (entries.length > 2) return -1;
    let len = 2 + (entries.length > 0 ? 2 * entries.length - 1 : 0);
    for (let i = 0; i < entries.length; i++) {
      const e = entries[i]!;
      if (!isAtomKind(e[0]) || !isAtomKind(e[1])) return -1;
      len += atomLength(e[0]) + atomLength(e[1]);
    }
    return len;
  }

  /**
   * UTF-8 length of `single(t)` of §1.5, or -1 when `t` has no one-line rendering. Atoms always
   * have one; a vector of at most 3 atoms and a map of at most 2 atom entries have one; a proper
   * list has one when every element has one and the whole line is at most {@link PRINT_WIDTH}
   * bytes. Iterative (an explicit stack of the open lists); makes no text.
   */
  singleLength(root: Term): number {
    if (root.kind !== 'pair') return isAtomKind(root) ? atomLength(root) : this.bracketLength(root);
    const cur = this.sCur;
    const first = this.sFirst;
    let open = 1;
    cur[0] = root;
    first[0] = true;
    let len = 1;
    while (open > 0) {
      const top = open - 1;
      const c = cur[top]!;
      if (c.kind !== 'pair') {
        if (c.kind !== 'nil') return -1; // an improper list has no one-line rendering
        len += 1;
        open--;
        continue;
      }
      const e = c.car;
      cur[top] = c.cdr;
      if (first[top]) first[top] = false;
      else len += 1;
      if (e.kind === 'pair') {
        len += 1;
        cur[open] = e;
        first[open] = true;
        open++;
      } else {
        const el = isAtomKind(e) ? atomLength(e) : this.bracketLength(e);
        if (el < 0) return -1;
        len += el;
      }
      // Every open list still adds its ')': past the width, there is no one-line rendering.
      if (len + open > PRINT_WIDTH) return -1;
    }
    return len;
  }

  /** Writes the one-line rendering of `root` (which {@link singleLength} found to have one). */
  private writeSingle(root: Term): void {
    if (root.kind !== 'pair') {
      if (isAtomKind(root)) this.writeAtom(root);
      else this.writeBracket(root);
      return;
    }
    const cur = this.sCur;
    const first = this.sFirst;
    let open = 1;
    cur[0] = root;
    first[0] = true;
    this.byte(0x28);
    while (open > 0) {
      const top = open - 1;
      const c = cur[top]!;
      if (c.kind !== 'pair') {
        this.byte(0x29);
        open--;
        continue;
      }
      const e = c.car;
      cur[top] = c.cdr;
      if (first[top]) first[top] = false;
      else this.byte(0x20);
      if (e.kind === 'pair') {
        this.byte(0x28);
        cur[open] = e;
        first[open] = true;
        open++;
      } else if (isAtomKind(e)) this.writeAtom(e);
      else this.writeBracket(e);
    }
  }

  private writeAtom(t: Term): void {
    switch (t.kind) {
      case 'sym':
        this.text(t.name);
        return;
      case 'int':
        this.text(intText(t.value));
        return;
      case 'str': {
        const v = t.value;
        let i = 0;
        while (i < v.length && !needsEscape(v.charCodeAt(i))) i++;
        if (i === v.length) {
          this.byte(0x22);
          this.text(v);
          this.byte(0x22);
        } else this.text(escapeStr(v));
        return;
      }
      default:
        this.text(atomText(t));
    }
  }

  private writeBracket(t: Term): void {
    if (t.kind === 'vec') {
      this.byte(0x5b);
      for (let i = 0; i < t.items.length; i++) {
        if (i > 0) this.byte(0x20);
        this.writeAtom(t.items[i]!);
      }
      this.byte(0x5d);
      return;
    }
    const entries = (t as Extract<Term, { kind: 'map' }>).entries;
    this.byte(0x7b);
    for (let i = 0; i < entries.length; i++) {
      if (i > 0) this.byte(0x20);
      this.writeAtom(entries[i]![0]);
      this.byte(0x20);
      this.writeAtom(entries[i]![1]);
    }
    this.byte(0x7d);
  }

  private check(): void {
    if (this.units > this.maxLength) {
      throw new GcError(
        'core/print/too-large',
        `canonical print exceeds ${this.maxLength} characters (the term is nested too deeply or is too large to print)`,
      );
    }
  }

  private push(kind: number, ref: Term | string, val: Term | null, indent: number, depth: number, chunk: number, length: number): void {
    this.tKind.push(kind);
    this.tRef.push(ref);
    this.tVal.push(val);
    this.tIndent.push(indent);
    this.tDepth.push(depth);
    this.tChunk.push(chunk);
    this.tLength.push(length);
  }

  /** `fmt(t, indent)` of §1.5, driven by an explicit task stack; appends to the output. */
  fmt(root: Term, rootIndent: number): void {
    const { tKind, tRef, tVal, tIndent, tDepth, tChunk, tLength } = this;
    this.push(TASK_TERM, root, null, rootIndent, 0, 0, 0);
    let first = true;
    while (tKind.length > 0) {
      this.check();
      const kind = tKind.pop()!;
      const ref = tRef.pop()!;
      const val = tVal.pop()!;
      const indent = tIndent.pop()!;
      const depth = tDepth.pop()!;
      const chunk = tChunk.pop()!;
      const length = tLength.pop()!;
      if (kind === TASK_TEXT) {
        this.text(ref as string);
        continue;
      }
      if (kind === TASK_ENTRY) {
        this.byte(0x0a);
        this.spaces(indent);
        this.writeSingle(ref as Term);
        this.byte(0x20);
        this.writeSingle(val!);
        continue;
      }
      if (kind === TASK_CAPTURE) {
        if (this.units - length >= BLOCK_CACHE_MIN) {
          blockCache.set(ref as Term, { indent, bytes: this.buf.slice(chunk, this.pos), units: this.units - length, ascii: this.ascii });
        }
        continue;
      }
      const t = ref as Term;
      if (!first) this.byte(0x0a);
      first = false;
      if (indent > 0) this.spaces(indent);
      if (isAtomKind(t)) {
        // Atoms are one line, overlong or not (§1.5 rule 2).
        this.writeAtom(t);
        continue;
      }
      const sl = this.singleLength(t);
      if (sl >= 0 && indent + sl <= PRINT_WIDTH) {
        this.writeSingle(t);
        continue;
      }
      if (depth <= BLOCK_CACHE_MAX_DEPTH && (depth > 0 || this.cacheRoots)) {
        const cached = blockCache.get(t);
        if (cached !== undefined && cached.indent === indent) {
          this.ensure(cached.bytes.length);
          this.buf.set(cached.bytes, this.pos);
          this.pos += cached.bytes.length;
          this.units += cached.units;
          if (!cached.ascii) this.ascii = false;
          continue;
        }
        this.push(TASK_CAPTURE, t, null, indent, depth, this.pos, this.units);
      }
      if (t.kind === 'vec') {
        const items = t.items;
        if (items.length === 0) {
          this.text('[]');
          continue;
        }
        this.byte(0x5b);
        this.push(TASK_TEXT, ']', null, 0, 0, 0, 0);
        for (let i = items.length - 1; i >= 0; i--) this.push(TASK_TERM, items[i]!, null, indent + 2, depth + 1, 0, 0);
        continue;
      }
      if (t.kind === 'map') {
        const entries = t.entries;
        if (entries.length === 0) {
          this.text('{}');
          continue;
        }
        this.byte(0x7b);
        this.push(TASK_TEXT, '}', null, 0, 0, 0, 0);
        for (let i = entries.length - 1; i >= 0; i--) {
          const [k, v] = entries[i]!;
          const kl = this.singleLength(k);
          const vl = kl < 0 ? -1 : this.singleLength(v);
          if (vl >= 0 && indent + 2 + kl + 1 + vl <= PRINT_WIDTH) {
            this.push(TASK_ENTRY, k, v, indent + 2, 0, 0, 0);
          } else {
            this.push(TASK_TERM, v, null, indent + 4, depth + 1, 0, 0);
            this.push(TASK_TERM, k, null, indent + 2, depth + 1, 0, 0);
          }
        }
        continue;
      }
      // A pair.
      const items: Term[] = [];
      let cur: Term = t;
      while (cur.kind === 'pair') {
        items.push(cur.car);
        cur = cur.cdr;
      }
      if (cur.kind !== 'nil') {
        this.text('(pair <improper>)');
        continue;
      }
      const head = items[0]!;
      const hl = this.singleLength(head);
      if (hl < 0) {
        this.byte(0x28);
        this.push(TASK_TEXT, ')', null, 0, 0, 0, 0);
        for (let i = items.length - 1; i >= 0; i--) this.push(TASK_TERM, items[i]!, null, indent + 2, depth + 1, 0, 0);
        continue;
      }
      this.byte(0x28);
      this.writeSingle(head);
      let next = 1;
      if (items.length > 1) {
        const sl2 = this.singleLength(items[1]!);
        if (sl2 >= 0 && indent + 1 + hl + 1 + sl2 <= PRINT_WIDTH) {
          this.byte(0x20);
          this.writeSingle(items[1]!);
          next = 2;
        }
      }
      if (next >= items.length) {
        this.byte(0x29);
        continue;
      }
      this.push(TASK_TEXT, ')', null, 0, 0, 0, 0);
      for (let i = items.length - 1; i >= next; i--) this.push(TASK_TERM, items[i]!, null, indent + 2, depth + 1, 0, 0);
    }
    this.check();
  }

  /** Writes the module separator (a blank line between forms) or the final newline. */
  newlines(n: number): void {
    for (let i = 0; i < n; i++) this.byte(0x0a);
    this.check();
  }

  /** The output bytes (a view of the buffer: valid until this printer writes again). */
  bytes(): Uint8Array {
    return this.buf.subarray(0, this.pos);
  }

  /** The output as a string. */
  result(): string {
    const b = Buffer.from(this.buf.buffer, this.buf.byteOffset, this.pos);
    return b.toString(this.ascii ? 'latin1' : 'utf8');
  }
}

/**
 * `print_term`: the canonical pretty print of one term, lines joined by `\n`, no final newline.
 * @param options `maxLength`: stop past this many UTF-16 code units (default and ceiling
 *   {@link MAX_PRINT_LENGTH}); a caller comparing the print with known bytes passes their length,
 *   so memory stays proportional to the input.
 * @throws GcError `core/print/too-large` when the print would exceed the bound.
 * Implements docs/reference/coreform.md §1.5.
 */
export function printTerm(t: Term, options: { maxLength?: number } = {}): string {
  const p = new Printer(Math.min(options.maxLength ?? MAX_PRINT_LENGTH, MAX_PRINT_LENGTH));
  p.fmt(t, 0);
  return p.result();
}

/**
 * {@link printTerm} as its UTF-8 bytes (what hash-term and store addresses hash), without making
 * the string.
 * @throws GcError `core/print/too-large` (see {@link printTerm}).
 */
export function printTermBytes(t: Term): Uint8Array {
  const p = new Printer();
  p.fmt(t, 0);
  return p.bytes();
}

function modulePrinter(forms: readonly Term[]): Printer {
  const p = new Printer(MAX_PRINT_LENGTH, false);
  for (let i = 0; i < forms.length; i++) {
    if (i > 0) p.newlines(2);
    p.fmt(forms[i]!, 0);
  }
  if (forms.length > 0) p.newlines(1);
  return p;
}

/**
 * `print_module`: each form's `print_term` followed by `\n`, forms separated by one blank line;
 * the empty module prints as the empty string. Forms must already be canonical.
 * @throws GcError `core/print/too-large` (see {@link printTerm}).
 * Implements docs/reference/coreform.md §1.5.
 */
export function printModule(forms: readonly Term[]): string {
  return modulePrinter(forms).result();
}

/**
 * {@link printModule} as its UTF-8 bytes (what hash-module hashes), without making the string.
 * @throws GcError `core/print/too-large` (see {@link printTerm}).
 */
export function printModuleBytes(forms: readonly Term[]): Uint8Array {
  return modulePrinter(forms).bytes();
}
