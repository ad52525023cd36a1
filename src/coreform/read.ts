/**
 * The CoreForm reader: `.gc` source bytes → raw (non-canonicalized) terms.
 *
 * Implements docs/reference/coreform.md §1.2 exactly. The reader is byte-oriented over UTF-8; every offset
 * it reports is a 0-based UTF-8 byte offset, every line/column is 1-based (columns count bytes).
 * It is iterative (explicit stack), so arbitrarily deep nesting cannot overflow the JS stack.
 *
 * The tokens (trivia, atoms, literals) are read by `tokens.ts`; this file holds the containers and
 * the entry points. The fast scans that find form spans without building terms are `scan.ts`.
 *
 * Error codes (all `GcError`, exit code 10; `parse-error.ts`):
 * - `core/parse/eof` — end of input where a term was expected; offset = source length.
 * - `core/parse/unexpected` — unexpected/mismatched closing delimiter (at the delimiter), trailing
 *   tokens after a single term (at the token), unterminated string/bytes/list/vector/map (at the
 *   opening delimiter; for nested unclosed containers, the innermost one), a map literal with an
 *   odd number of terms (at its `{`), invalid UTF-8 in the source (at the first invalid byte).
 * - `core/parse/escape` — bad escape sequence inside a string or bytes literal (at the backslash).
 */
import { utf8 } from '../util/bytes.js';
import { CLOSE_LIST, CLOSE_MAP, CLOSE_VEC, F_LIST, F_MAP, F_QUOTE, F_VEC, OPEN_LIST, OPEN_MAP, OPEN_VEC, QUOTE } from './lexical.js';
import { PARSE_EOF, PARSE_UNEXPECTED } from './parse-error.js';
import { map as mapOf, NIL, type Term } from './term.js';
import { Lexer } from './tokens.js';

export { lineColumn, PARSE_EOF, PARSE_ESCAPE, PARSE_UNEXPECTED } from './parse-error.js';

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

const QUOTE_SYM: Term = Object.freeze({ kind: 'sym', name: 'quote' }) as Term;

function toBytes(source: Uint8Array | string): Uint8Array {
  return typeof source === 'string' ? utf8(source) : source;
}

const FRAME_NAME = ['list', 'vector', 'map'] as const;
const FRAME_CLOSE = [')', ']', '}'] as const;
const FRAME_OPEN = ['(', '[', '{'] as const;

class Reader extends Lexer {
  // Reusable stacks of readForm.
  readonly fType: number[] = [];
  readonly fOpen: number[] = [];
  readonly fBase: number[] = [];
  readonly vals: Term[] = [];
  /** True when node spans are recorded (only with `build`); the span stacks below are then used. */
  readonly spans: boolean;
  readonly fLead: number[] = [];
  readonly spanVals: NodeSpan[] = [];
  /** The span of the last value `readForm` returned (spans mode only). */
  lastSpan: NodeSpan | undefined;

  constructor(src: Uint8Array, build = true, spans = false) {
    super(src, build);
    this.spans = spans && build;
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
    // The frame stacks are read only below `depth`, the item stacks only below `vn`: their
    // entries are overwritten, never cleared (an array length change is a runtime call).
    let vn = 0;
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
        fBase[depth] = vn;
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
          if (t === F_MAP && (vn - base) % 2 !== 0) {
            throw this.error(PARSE_UNEXPECTED, `map literal must contain an even number of terms (found ${vn - base})`, fOpen[depth]!);
          }
          value = NIL;
        } else if (t === F_LIST) {
          let out: Term = NIL;
          for (let i = vn - 1; i >= base; i--) out = { kind: 'pair', car: vals[i]!, cdr: out };
          value = out;
        } else if (t === F_VEC) {
          value = { kind: 'vec', items: vals.slice(base, vn) };
        } else {
          if ((vn - base) % 2 !== 0) {
            throw this.error(PARSE_UNEXPECTED, `map literal must contain an even number of terms (found ${vn - base})`, fOpen[depth]!);
          }
          value = buildMap(vals, base, vn);
        }
        const end = vn;
        vn = base;
        if (spans) {
          span = {
            kind: t === F_LIST ? 'list' : t === F_VEC ? 'vec' : 'map',
            term: value,
            start: fOpen[depth]!,
            end: this.pos + 1,
            leadingStart: fLead[depth]!,
            closeStart: this.pos,
            children: spanVals.slice(base, end),
          };
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
      vals[vn] = value;
      if (spans) spanVals[vn] = span!;
      vn++;
    }
  }
}

/** Builds a map from alternating key/value items: sorted by §1.4, duplicate keys last-wins. */
function buildMap(items: Term[], base: number, end: number): Term {
  const entries: (readonly [Term, Term])[] = [];
  for (let i = base; i < end; i += 2) entries.push([items[i]!, items[i + 1]!]);
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
  const { forms, trailingStart } = eachForm(r, (term, start, end, leadingStart): ReadForm => ({ term, start, end, leadingStart }));
  return { source: src, forms, trailingStart };
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
  const { forms, trailingStart } = eachForm(r, (term, start, end, leadingStart): SpannedForm => ({ term, start, end, leadingStart, node: r.lastSpan! }));
  return { source: src, forms, trailingStart };
}

/**
 * The form loop of `parse_module` (§1.2) shared by {@link readModule}, {@link readModuleSpans} and
 * {@link scanModuleReader}: reads forms until end of input and keeps what `form` makes of each
 * (the term, its 0-based byte span and where its leading trivia starts).
 */
function eachForm<F>(r: Reader, form: (term: Term, start: number, end: number, leadingStart: number) => F): { forms: F[]; trailingStart: number } {
  const forms: F[] = [];
  let prevEnd = 0;
  for (;;) {
    r.skipTrivia();
    if (r.pos >= r.len) break;
    const start = r.pos;
    const term = r.readForm(prevEnd);
    forms.push(form(term, start, r.pos, prevEnd));
    prevEnd = r.pos;
  }
  return { forms, trailingStart: prevEnd };
}

/**
 * {@link readTerm} that also returns the {@link NodeSpan} tree of the term (offsets are 0-based
 * UTF-8 byte offsets into `source`; the root's `leadingStart` is 0).
 * @throws GcError `core/parse/*` as for {@link readTerm}.
 */
export function readTermSpans(source: Uint8Array | string): { source: Uint8Array; term: Term; node: NodeSpan } {
  const src = toBytes(source);
  const { term, node } = readOne(src, true);
  return { source: src, term, node: node! };
}

/** The body of {@link readTerm} and {@link readTermSpans}: exactly one term, with its node when `spans`. */
function readOne(src: Uint8Array, spans: boolean): { term: Term; node: NodeSpan | undefined } {
  const r = new Reader(src, true, spans);
  r.skipTrivia();
  if (r.pos >= r.len) throw r.error(PARSE_EOF, 'unexpected end of input: expected a term', r.len);
  const term = r.readForm(0);
  const node = r.lastSpan;
  r.skipTrivia();
  if (r.pos < r.len) throw r.error(PARSE_UNEXPECTED, 'trailing tokens after term', r.pos);
  return { term, node };
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
  return readOne(toBytes(source), false).term;
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
 * {@link scanModule} done by the term reader in its scan mode (no terms built): the reference
 * that {@link scanModule}'s fast loop is tested against, and what produces its errors.
 * @internal exported for tests and benchmarks; use {@link scanModule}.
 * @throws GcError `core/parse/*` as for {@link readModule}.
 */
export function scanModuleReader(source: Uint8Array | string): ScannedModule {
  const src = toBytes(source);
  const { forms, trailingStart } = eachForm(new Reader(src, false), (_term, start, end, leadingStart): FormSpan => ({ start, end, leadingStart }));
  return { source: src, forms, trailingStart };
}
