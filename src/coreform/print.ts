/**
 * The canonical printer (docs/reference/coreform.md §1.5): width 100 in UTF-8 bytes, indent 2, `\n` line
 * ends, no trailing spaces. `printTerm` is the only printer used for hashing. Iterative: deeply
 * nested terms do not overflow the call stack.
 */
import { GcError } from '../util/errors.js';
import { atomLength, atomText, escapeStr, isAtomKind, needsEscape, intText } from './atom-print.js';
import { PrintBuffer } from './print-buffer.js';
import type { MapTerm, Term, VecTerm } from './term.js';

export { printAtom } from './atom-print.js';

/** Line width in UTF-8 bytes. */
export const PRINT_WIDTH = 100;

/**
 * Largest canonical print produced, in UTF-16 code units (≈ bytes for ASCII). Pretty printing is
 * quadratic in nesting depth (every level indents by 2), so a pathologically deep data term would
 * print to gigabytes; such a print stops with `core/print/too-large` instead of exhausting memory.
 */
export const MAX_PRINT_LENGTH = 256 * 1024 * 1024;

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

/**
 * One print job. The output is UTF-8 bytes written into one growing buffer (`printTermBytes`,
 * `printModuleBytes` hash them as they are; `printTerm` and `printModule` decode them once); the
 * tasks of `fmt` live on parallel arrays (no object per task). A one-line rendering (`single` of
 * §1.5) is measured first without making any text ({@link singleLength}), and written only when it
 * is used: a list's is at most {@link PRINT_WIDTH} bytes and its measure stops as soon as it would
 * be longer, so measuring it again one level down costs little.
 */
class Printer extends PrintBuffer {
  /**
   * @param maxLength the largest print allowed, in UTF-16 code units.
   * @param cacheRoots whether a root laid out on several lines is kept in `blockCache` (not for
   *   the forms of a module print: each is a root, and remembering every one costs more than it saves).
   */
  constructor(
    private readonly maxLength = MAX_PRINT_LENGTH,
    private readonly cacheRoots = true,
  ) {
    super();
  }

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
      if (!first) this.byte(0x0a);
      first = false;
      if (indent > 0) this.spaces(indent);
      this.layout(ref as Term, indent, depth);
    }
    this.check();
  }

  /**
   * Lays out `t` on the line begun at `indent` (its indent already written): writes what goes on
   * this line and pushes the tasks of the lines below it.
   */
  private layout(t: Term, indent: number, depth: number): void {
    if (isAtomKind(t)) {
      // Atoms are one line, overlong or not (§1.5 rule 2).
      this.writeAtom(t);
      return;
    }
    const sl = this.singleLength(t);
    if (sl >= 0 && indent + sl <= PRINT_WIDTH) {
      this.writeSingle(t);
      return;
    }
    if (depth <= BLOCK_CACHE_MAX_DEPTH && (depth > 0 || this.cacheRoots)) {
      const cached = blockCache.get(t);
      if (cached !== undefined && cached.indent === indent) {
        this.ensure(cached.bytes.length);
        this.buf.set(cached.bytes, this.pos);
        this.pos += cached.bytes.length;
        this.units += cached.units;
        if (!cached.ascii) this.ascii = false;
        return;
      }
      this.push(TASK_CAPTURE, t, null, indent, depth, this.pos, this.units);
    }
    if (t.kind === 'vec') this.layoutVec(t, indent, depth);
    else if (t.kind === 'map') this.layoutMap(t, indent, depth);
    else this.layoutList(t, indent, depth);
  }

  /** A vector on several lines: `[` and its items one per line below it. */
  private layoutVec(t: VecTerm, indent: number, depth: number): void {
    const items = t.items;
    if (items.length === 0) {
      this.text('[]');
      return;
    }
    this.byte(0x5b);
    this.push(TASK_TEXT, ']', null, 0, 0, 0, 0);
    for (let i = items.length - 1; i >= 0; i--) this.push(TASK_TERM, items[i]!, null, indent + 2, depth + 1, 0, 0);
  }

  /** A map on several lines: `{` and its entries below it, each on one line when it fits, else key and value apart. */
  private layoutMap(t: MapTerm, indent: number, depth: number): void {
    const entries = t.entries;
    if (entries.length === 0) {
      this.text('{}');
      return;
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
  }

  /** A list on several lines: `(`, its head (and first argument when they fit) on this line, the rest below. */
  private layoutList(t: Term, indent: number, depth: number): void {
    const items: Term[] = [];
    let cur: Term = t;
    while (cur.kind === 'pair') {
      items.push(cur.car);
      cur = cur.cdr;
    }
    if (cur.kind !== 'nil') {
      this.text('(pair <improper>)');
      return;
    }
    const head = items[0]!;
    const hl = this.singleLength(head);
    if (hl < 0) {
      this.byte(0x28);
      this.push(TASK_TEXT, ')', null, 0, 0, 0, 0);
      for (let i = items.length - 1; i >= 0; i--) this.push(TASK_TERM, items[i]!, null, indent + 2, depth + 1, 0, 0);
      return;
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
      return;
    }
    this.push(TASK_TEXT, ')', null, 0, 0, 0, 0);
    for (let i = items.length - 1; i >= next; i--) this.push(TASK_TERM, items[i]!, null, indent + 2, depth + 1, 0, 0);
  }

  /** Writes the module separator (a blank line between forms) or the final newline. */
  newlines(n: number): void {
    for (let i = 0; i < n; i++) this.byte(0x0a);
    this.check();
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
