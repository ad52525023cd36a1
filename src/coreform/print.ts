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

interface Single {
  text: string;
  /** UTF-8 byte length of `text`. */
  len: number;
}

const HEX = '0123456789ABCDEF';

function escapeStr(value: string): string {
  let out = '"';
  let runStart = 0;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    let rep: string | undefined;
    if (c === 0x5c) rep = '\\\\';
    else if (c === 0x22) rep = '\\"';
    else if (c === 0x0a) rep = '\\n';
    else if (c === 0x0d) rep = '\\r';
    else if (c === 0x09) rep = '\\t';
    else if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) {
      rep = '\\u00' + HEX[(c >> 4) & 15] + HEX[c & 15];
    }
    if (rep !== undefined) {
      out += value.slice(runStart, i) + rep;
      runStart = i + 1;
    }
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

function isAtomKind(t: Term): boolean {
  return t.kind !== 'pair' && t.kind !== 'vec' && t.kind !== 'map';
}

/**
 * Multi-line prints of large containers at the indent they were last printed at. A workspace is
 * hashed several times by diff and merge; each time its module records are printed at the same
 * indent, so the text is reused instead of laid out again.
 */
const blockCache = new WeakMap<Term, { indent: number; text: string }>();

/** Containers whose print is at least this many characters are kept in `blockCache`. */
const BLOCK_CACHE_MIN = 256;
/** The open and close brackets of the two bracketed kinds. */
const BRACKETS = { vec: ['[', ']'], map: ['{', '}'] } as const;

/**
 * Only containers this close to the printed root are cached (a workspace vector → module record →
 * forms vector → form is depth 3). Caching every level of a deep term would keep a copy of its
 * text per level: quadratic memory.
 */
const BLOCK_CACHE_MAX_DEPTH = 3;

/** One print job: lays out one term using the shared caches. */
class Printer {
  /** @param maxLength the largest print allowed, in UTF-16 code units. */
  constructor(private readonly maxLength = MAX_PRINT_LENGTH) {}
  private readonly memo = new Map<Term, Single | null>();
  private readonly out: string[] = [];
  private outLength = 0;
  private readonly indents: string[] = [''];

  /** The one-line text of an atom; escaped strings and bytes are memoized per print. */
  private atomText(t: Term): string {
    if (t.kind !== 'str' && t.kind !== 'bytes') return printAtom(t)!;
    const cached = this.memo.get(t);
    if (cached) return cached.text;
    const text = printAtom(t)!;
    this.memo.set(t, { text, len: utf8Length(text) });
    return text;
  }

  /** UTF-8 byte length of an atom's text (as returned by `atomText`). */
  private atomLen(t: Term, text: string): number {
    if (t.kind === 'sym') return utf8Length(text);
    if (t.kind === 'str' || t.kind === 'bytes') return this.memo.get(t)!.len;
    return text.length;
  }

  private atomSingle(t: Term): Single {
    const text = this.atomText(t);
    return { text, len: this.atomLen(t, text) };
  }

  /** `single(t)` of §1.5, computed bottom-up with an explicit stack. */
  single(root: Term): Single | null {
    if (isAtomKind(root)) return this.atomSingle(root);
    const known = this.memo.get(root);
    if (known !== undefined) return known;
    const stack: Term[] = [root];
    while (stack.length > 0) {
      const t = stack[stack.length - 1]!;
      if (this.memo.has(t)) {
        stack.pop();
        continue;
      }
      if (t.kind === 'vec') {
        stack.pop();
        if (t.items.length <= 3 && t.items.every(isAtomKind)) {
          let text = '[';
          let len = 2;
          for (let i = 0; i < t.items.length; i++) {
            const e = t.items[i]!;
            const et = this.atomText(e);
            if (i > 0) {
              text += ' ';
              len += 1;
            }
            text += et;
            len += this.atomLen(e, et);
          }
          this.memo.set(t, { text: text + ']', len });
        } else this.memo.set(t, null);
        continue;
      }
      if (t.kind === 'map') {
        stack.pop();
        if (t.entries.length <= 2 && t.entries.every(([k, v]) => isAtomKind(k) && isAtomKind(v))) {
          const parts: Single[] = [];
          for (const [k, v] of t.entries) parts.push(this.atomSingle(k), this.atomSingle(v));
          const text = '{' + parts.map((p) => p.text).join(' ') + '}';
          const len = 2 + parts.reduce((a, p) => a + p.len, 0) + Math.max(0, parts.length - 1);
          this.memo.set(t, { text, len });
        } else this.memo.set(t, null);
        continue;
      }
      // A pair: a proper list gets a single rendering when every element has one and it fits.
      let pending = false;
      let cur: Term = t;
      while (cur.kind === 'pair') {
        const e = cur.car;
        if (!isAtomKind(e) && !this.memo.has(e)) {
          stack.push(e);
          pending = true;
        }
        cur = cur.cdr;
      }
      if (pending) continue;
      stack.pop();
      if (cur.kind !== 'nil') {
        this.memo.set(t, null);
        continue;
      }
      let text = '(';
      let len = 1;
      let ok = true;
      for (cur = t; cur.kind === 'pair'; cur = cur.cdr) {
        const e = cur.car;
        let et: string;
        let el: number;
        if (isAtomKind(e)) {
          et = this.atomText(e);
          el = this.atomLen(e, et);
        } else {
          const s = this.memo.get(e)!;
          if (s === null) {
            ok = false;
            break;
          }
          et = s.text;
          el = s.len;
        }
        if (cur !== t) {
          text += ' ';
          len += 1;
        }
        len += el;
        if (len + 1 > PRINT_WIDTH) {
          ok = false;
          break;
        }
        text += et;
      }
      if (ok) this.memo.set(t, { text: text + ')', len: len + 1 });
      else this.memo.set(t, null);
    }
    return this.memo.get(root)!;
  }

  private indent(n: number): string {
    let s = this.indents[n];
    if (s === undefined) {
      s = ' '.repeat(n);
      this.indents[n] = s;
    }
    return s;
  }

  private emit(text: string): void {
    this.out.push(text);
    this.outLength += text.length;
    if (this.outLength > this.maxLength) {
      throw new GcError(
        'core/print/too-large',
        `canonical print exceeds ${this.maxLength} characters (the term is nested too deeply or is too large to print)`,
      );
    }
  }

  /** `fmt(t, indent)` of §1.5, driven by an explicit task stack; appends to the output. */
  fmt(root: Term, rootIndent: number): void {
    // A task is either a term to lay out on a new line at an indent, or literal text appended to the current line.
    // A capture task records the text a container produced so that `blockCache` can reuse it.
    type Capture = { capture: Term; indent: number; chunk: number; length: number };
    type Task = { term: Term; indent: number; depth: number } | string | Capture;
    const tasks: Task[] = [{ term: root, indent: rootIndent, depth: 0 }];
    let first = true;
    while (tasks.length > 0) {
      const task = tasks.pop()!;
      if (typeof task === 'string') {
        this.emit(task);
        continue;
      }
      if ('capture' in task) {
        if (this.outLength - task.length >= BLOCK_CACHE_MIN) {
          const text = this.out.slice(task.chunk).join('');
          this.out.length = task.chunk;
          this.out.push(text);
          blockCache.set(task.capture, { indent: task.indent, text });
        }
        continue;
      }
      const { term: t, indent, depth } = task;
      const lead = (first ? '' : '\n') + this.indent(indent);
      first = false;
      if (isAtomKind(t)) {
        // Atoms are one line, overlong or not (§1.5 rule 2).
        this.emit(lead + this.atomText(t));
        continue;
      }
      const s = this.single(t);
      if (s !== null && indent + s.len <= PRINT_WIDTH) {
        this.emit(lead + s.text);
        continue;
      }
      this.emit(lead);
      if (depth <= BLOCK_CACHE_MAX_DEPTH) {
        const cached = blockCache.get(t);
        if (cached !== undefined && cached.indent === indent) {
          this.emit(cached.text);
          continue;
        }
        tasks.push({ capture: t, indent, chunk: this.out.length, length: this.outLength });
      }
      if (t.kind === 'vec' || t.kind === 'map') {
        // Empty brackets on the line, or the open bracket here and the close after the children.
        const [open, close] = t.kind === 'vec' ? BRACKETS.vec : BRACKETS.map;
        if ((t.kind === 'vec' ? t.items.length : t.entries.length) === 0) {
          this.emit(open + close);
          continue;
        }
        this.emit(open);
        tasks.push(close);
        if (t.kind === 'vec') {
          for (let i = t.items.length - 1; i >= 0; i--) tasks.push({ term: t.items[i]!, indent: indent + 2, depth: depth + 1 });
          continue;
        }
        for (let i = t.entries.length - 1; i >= 0; i--) {
          const [k, v] = t.entries[i]!;
          const ks = this.single(k);
          const vs = this.single(v);
          if (ks !== null && vs !== null && indent + 2 + ks.len + 1 + vs.len <= PRINT_WIDTH) {
            tasks.push('\n' + this.indent(indent + 2) + ks.text + ' ' + vs.text);
          } else {
            tasks.push({ term: v, indent: indent + 4, depth: depth + 1 }, { term: k, indent: indent + 2, depth: depth + 1 });
          }
        }
        continue;
      }
      // Pair.
      const items: Term[] = [];
      let cur: Term = t;
      while (cur.kind === 'pair') {
        items.push(cur.car);
        cur = cur.cdr;
      }
      if (cur.kind !== 'nil') {
        this.emit('(pair <improper>)');
        continue;
      }
      const head = this.single(items[0]!);
      if (head === null) {
        this.emit('(');
        tasks.push(')');
        for (let i = items.length - 1; i >= 0; i--) tasks.push({ term: items[i]!, indent: indent + 2, depth: depth + 1 });
        continue;
      }
      let line = '(' + head.text;
      let lineLen = indent + 1 + head.len;
      let next = 1;
      if (items.length > 1) {
        const second = this.single(items[1]!);
        if (second !== null && lineLen + 1 + second.len <= PRINT_WIDTH) {
          line += ' ' + second.text;
          lineLen += 1 + second.len;
          next = 2;
        }
      }
      if (next >= items.length) {
        this.emit(line + ')');
        continue;
      }
      this.emit(line);
      tasks.push(')');
      for (let i = items.length - 1; i >= next; i--) tasks.push({ term: items[i]!, indent: indent + 2, depth: depth + 1 });
    }
  }

  result(): string {
    return this.out.join('');
  }

  reset(): void {
    this.out.length = 0;
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
 * `print_module`: each form's `print_term` followed by `\n`, forms separated by one blank line;
 * the empty module prints as the empty string. Forms must already be canonical.
 * @throws GcError `core/print/too-large` (see {@link printTerm}).
 * Implements docs/reference/coreform.md §1.5.
 */
export function printModule(forms: readonly Term[]): string {
  const parts: string[] = [];
  let total = 0;
  for (let i = 0; i < forms.length; i++) {
    const text = printTerm(forms[i]!);
    total += text.length + 2;
    if (total > MAX_PRINT_LENGTH) {
      throw new GcError('core/print/too-large', `canonical module print exceeds ${MAX_PRINT_LENGTH} characters`);
    }
    parts.push(text);
  }
  return parts.length === 0 ? '' : parts.join('\n\n') + '\n';
}
