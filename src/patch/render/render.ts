/**
 * Format-preserving module rendering (docs/patches.md "How apply writes modules"): the bytes `gcpatch apply` and `gcpatch refactor
 * apply` write for a module are its ORIGINAL text with only the changed text edited, not the
 * canonical print of its forms. The forms are decided elsewhere (the op engine, exactly as the
 * reference's canonical apply: docs/reference/patch-protocols.md §3.7); this file only decides the bytes.
 *
 * How a module's text is made, given its new canonical forms and the texts of the touched modules
 * before the patch (its own, and "donors": the other modules of the patch, for split and move):
 * 1. The new forms equal the canonical forms of the module's own text → its bytes unchanged; of
 *    a donor's text (`:move-module`) → the donor's bytes.
 * 2. Otherwise the new forms are aligned with the old ones (equal canonical forms, then forms of the
 *    same `def` name / head, then by position). An equal form keeps its text; an edited one keeps its
 *    text except the nodes that changed (`form-edit.ts`); a removed form's text and its attached
 *    comment lines go; a new form takes its text and attached comments from a donor that had it
 *    (`:split-module`), or else the canonical print. Comments after a form on its own line, blank
 *    lines and the module's trailing trivia stay. A BOM and CRLF line ends stay as they were.
 * 3. The whole text is read back and its canonical forms compared with the new forms. If they
 *    differ, the text is built again with every edited form read back on its own (a form whose
 *    text does not give exactly its new canonical form is printed canonically, counted in
 *    `canonicalForms`) and checked again; if it still differs, the module is written in canonical
 *    print and {@link RenderedModule.fallback} says why. The result
 *    is therefore never a wrong module: `hash-module` of what is written always equals that of the
 *    canonical apply.
 */
import { canonicalizeForm, canonicalizeSource, canonicalizeSourceSpans } from '../../coreform/canon.js';
import { defName, formsEqual } from '../../coreform/forms.js';
import { printTerm } from '../../coreform/print.js';
import { readTerm, type NodeSpan, type SpannedForm, type SpannedModule } from '../../coreform/read.js';
import { termsEqual, type Term } from '../../coreform/term.js';
import { isGcError } from '../../util/errors.js';
import { modulePrint } from '../protocol/module-memo.js';
import { editForm, indentAt, indentPrint, type TextEdit } from './form-edit.js';

/** How a module's bytes were made. */
export type RenderMode =
  /** The canonical print (`--canonical`, a new module with no donor text, or a fallback). */
  | 'canonical'
  /** The module's (or a donor's) bytes, unchanged. */
  | 'kept'
  /** The original text with edits. */
  | 'preserved';

/** The bytes to write for one module and how they were made. */
export interface RenderedModule {
  /** UTF-8 bytes of the module file. */
  bytes: Uint8Array;
  mode: RenderMode;
  /** Top-level forms whose own text could not be kept and were printed canonically (0 for `kept`/`canonical`). */
  canonicalForms: number;
  /**
   * True when these very bytes were read and canonicalized by the renderer and gave exactly the
   * forms asked for (every `kept` and `preserved` result); false for a canonical print that was
   * not read back.
   */
  readBack: boolean;
  /**
   * Set when format-preserving rendering was asked for but the module was written in canonical
   * print because the edited text did not read back as the expected forms: the reason (for the
   * user: "wrote <path> in canonical print: …"). Undefined otherwise.
   */
  fallback?: string;
}

/** One parsed text: its forms with node spans, each form's canonical form, and its line end. */
interface ParsedText {
  path: string;
  source: Uint8Array;
  forms: SpannedForm[];
  canon: readonly Term[];
  trailingStart: number;
  eol: string;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
const LF = 0x0a;

/** A cheap key to find candidate equal forms: the def name, or the head symbol, or the kind. */
function formKey(t: Term): string {
  if (t.kind === 'pair') {
    const head = t.car;
    if (head.kind === 'sym') {
      const name = defName(t);
      return name !== undefined ? `def ${name}` : `(${head.name}`;
    }
    return '(';
  }
  return t.kind;
}

/**
 * The layout of a text as segments: `gap[i]` (blank lines and comments not attached to a form),
 * then `own[i]` = form `i`'s attached comment block (comment lines directly above it, no blank line
 * between), its text and the rest of its last line (a same-line `; comment` and the line end); after
 * the last form, `rest`. Concatenated in order they are the text. Offsets are UTF-8 bytes.
 */
interface Layout {
  gapStart: number[];
  ownStart: number[];
  ownEnd: number[];
}

function isBlank(c: number | undefined): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0d;
}

function layoutOf(p: ParsedText): Layout {
  const src = p.source;
  const n = p.forms.length;
  const gapStart: number[] = [];
  const ownStart: number[] = [];
  const ownEnd: number[] = [];
  for (let i = 0; i < n; i++) {
    const f = p.forms[i]!;
    // The previous form's line ends at the first LF of this form's leading trivia.
    let lineEnd = f.leadingStart;
    if (i > 0) {
      const lf = src.indexOf(LF, f.leadingStart);
      lineEnd = lf === -1 || lf >= f.start ? f.leadingStart : lf + 1;
      ownEnd.push(lineEnd);
    }
    gapStart.push(i === 0 ? 0 : lineEnd);
    // The attached comment block: whole comment lines directly above the form's line.
    let lineStart = f.start;
    while (lineStart > lineEnd && isBlank(src[lineStart - 1])) lineStart--;
    let attach = f.start;
    if (lineStart === lineEnd || src[lineStart - 1] === LF) {
      attach = lineStart;
      for (;;) {
        if (attach <= lineEnd) break;
        // The line above: [prev, attach - 1) without its LF.
        let prev = attach - 1;
        while (prev > lineEnd && src[prev - 1] !== LF) prev--;
        let q = prev;
        while (q < attach - 1 && isBlank(src[q])) q++;
        if (src[q] !== 0x3b) break;
        attach = prev;
      }
    } else attach = lineEnd; // same line as the previous form: all of the trivia goes with it
    ownStart.push(Math.max(attach, lineEnd));
  }
  if (n > 0) {
    const lf = src.indexOf(LF, p.trailingStart);
    ownEnd.push(lf === -1 ? p.trailingStart : lf + 1);
  }
  return { gapStart, ownStart, ownEnd };
}

/** The form's attached comment lines, text and same-line comment, for moving it to another module. */
function movableText(p: ParsedText, i: number): string {
  const l = layoutOf(p);
  const f = p.forms[i]!;
  const head = decoder.decode(p.source.subarray(l.ownStart[i]!, f.start)).replace(/^[ \t]+(?=\S)/, '');
  const tail = decoder.decode(p.source.subarray(f.end, l.ownEnd[i]!)).replace(/\r?\n$/, '');
  return (/^\s*$/.test(head) ? '' : head) + decoder.decode(p.source.subarray(f.start, f.end)) + tail;
}

/**
 * Pairs old forms with new forms, monotonically: equal canonical forms first (common prefix and
 * suffix, then a longest common subsequence when small enough), then inside each gap forms with the
 * same key (`def` name / head), then by position when the gap sizes agree.
 * @returns for each new form the old index it takes its text from (or -1), and whether it is equal.
 */
function align(old: readonly Term[], next: readonly Term[]): { from: number[]; equal: boolean[] } {
  const m = old.length;
  const n = next.length;
  const from = new Array<number>(n).fill(-1);
  const equal = new Array<boolean>(n).fill(false);
  let pre = 0;
  while (pre < m && pre < n && termsEqual(old[pre]!, next[pre]!)) {
    from[pre] = pre;
    equal[pre] = true;
    pre++;
  }
  let suf = 0;
  while (suf < m - pre && suf < n - pre && termsEqual(old[m - 1 - suf]!, next[n - 1 - suf]!)) {
    from[n - 1 - suf] = m - 1 - suf;
    equal[n - 1 - suf] = true;
    suf++;
  }
  const a0 = pre;
  const a1 = m - suf;
  const b0 = pre;
  const b1 = n - suf;
  // Anchors of equal forms inside the middle (LCS when it is small; otherwise none).
  const anchors: [number, number][] = [];
  const rows = a1 - a0;
  const cols = b1 - b0;
  if (rows > 0 && cols > 0 && rows * cols <= 250_000) {
    const w = cols + 1;
    const dp = new Uint32Array((rows + 1) * w);
    for (let i = rows - 1; i >= 0; i--) {
      for (let j = cols - 1; j >= 0; j--) {
        dp[i * w + j] = termsEqual(old[a0 + i]!, next[b0 + j]!) ? dp[(i + 1) * w + j + 1]! + 1 : Math.max(dp[(i + 1) * w + j]!, dp[i * w + j + 1]!);
      }
    }
    let i = 0;
    let j = 0;
    while (i < rows && j < cols) {
      if (termsEqual(old[a0 + i]!, next[b0 + j]!) && dp[i * w + j] === dp[(i + 1) * w + j + 1]! + 1) {
        anchors.push([a0 + i, b0 + j]);
        i++;
        j++;
      } else if (dp[(i + 1) * w + j]! >= dp[i * w + j + 1]!) i++;
      else j++;
    }
  }
  for (const [i, j] of anchors) {
    from[j] = i;
    equal[j] = true;
  }
  // Gaps between anchors: pair by key, else by position when sizes agree.
  const bounds: [number, number, number, number][] = [];
  let pa = a0;
  let pb = b0;
  for (const [i, j] of anchors) {
    bounds.push([pa, i, pb, j]);
    pa = i + 1;
    pb = j + 1;
  }
  bounds.push([pa, a1, pb, b1]);
  for (const [ga0, ga1, gb0, gb1] of bounds) {
    if (ga1 <= ga0 || gb1 <= gb0) continue;
    if (ga1 - ga0 === gb1 - gb0) {
      for (let k = 0; k < gb1 - gb0; k++) from[gb0 + k] = ga0 + k;
      continue;
    }
    let nextOld = ga0;
    for (let j = gb0; j < gb1; j++) {
      const key = formKey(next[j]!);
      for (let i = nextOld; i < ga1; i++) {
        if (formKey(old[i]!) === key) {
          from[j] = i;
          nextOld = i + 1;
          break;
        }
      }
    }
  }
  return { from, equal };
}

/**
 * Renders module texts for one apply. Construct it with the bytes of every touched module path
 * before the apply (undefined for paths that did not exist); call {@link render} per written path.
 * Parsed texts are cached, so donors are read once.
 */
export class ModuleRenderer {
  private readonly originals: ReadonlyMap<string, Uint8Array | undefined>;
  private readonly read: ReadonlyMap<string, { module?: SpannedModule; forms: readonly Term[] }>;
  private readonly parsed = new Map<string, ParsedText | null>();
  private donorIndex: Map<string, [ParsedText, number][]> | undefined;

  /**
   * @param originals module path → bytes before the apply (undefined: did not exist).
   * @param read originals the caller has read already: path → the spanned read of those very bytes
   *   and their canonical forms (`canonicalizeSourceSpans`); an entry with a `module` is used instead
   *   of reading the bytes again. Any other original is read here.
   */
  constructor(
    originals: ReadonlyMap<string, Uint8Array | undefined>,
    read: ReadonlyMap<string, { module?: SpannedModule; forms: readonly Term[] }> = new Map(),
  ) {
    this.originals = originals;
    this.read = read;
  }

  /** The parsed original of `path`, or null when it is absent or does not read and canonicalize. */
  private parse(path: string): ParsedText | null {
    let p = this.parsed.get(path);
    if (p !== undefined) return p;
    p = null;
    const source = this.originals.get(path);
    if (source !== undefined) {
      try {
        const given = this.read.get(path);
        const { module, forms: canon } = given?.module?.source === source ? { module: given.module, forms: given.forms } : canonicalizeSourceSpans(source);
        const lf = source.indexOf(LF);
        p = { path, source, forms: module.forms, canon, trailingStart: module.trailingStart, eol: lf > 0 && source[lf - 1] === 0x0d ? '\r\n' : '\n' };
      } catch (error) {
        if (!isGcError(error)) throw error;
      }
    }
    this.parsed.set(path, p);
    return p;
  }

  /** Donor forms by canonical print key, over every original except `except`. */
  private donors(except: string): Map<string, [ParsedText, number][]> {
    if (this.donorIndex === undefined) {
      this.donorIndex = new Map();
      for (const path of this.originals.keys()) {
        const p = this.parse(path);
        if (p === null) continue;
        p.canon.forEach((t, i) => {
          const key = formKey(t);
          const list = this.donorIndex!.get(key) ?? [];
          list.push([p, i]);
          this.donorIndex!.set(key, list);
        });
      }
    }
    const out = new Map<string, [ParsedText, number][]>();
    for (const [k, v] of this.donorIndex)
      out.set(
        k,
        v.filter(([p]) => p.path !== except),
      );
    return out;
  }

  /**
   * The bytes to write for `path` whose new canonical forms are `forms`.
   * @param path the module path (a key of the originals, or a new path).
   * @param forms the module's forms after the patch (canonical).
   * @param options `canonical: true` writes the canonical print (the reference's whole-module rewrite).
   * @returns the bytes and how they were made; never throws for text reasons (falls back instead).
   * @throws GcError `core/print/too-large` as `printModule`.
   */
  render(path: string, forms: readonly Term[], options: { canonical?: boolean } = {}): RenderedModule {
    const canonicalBytes = (): Uint8Array => encoder.encode(modulePrint(forms));
    if (options.canonical === true) return { bytes: canonicalBytes(), mode: 'canonical', canonicalForms: 0, readBack: false };
    const own = this.parse(path);
    if (own !== null && formsEqual(own.canon, forms)) return { bytes: own.source, mode: 'kept', canonicalForms: 0, readBack: true };
    if (own === null) {
      for (const other of this.originals.keys()) {
        if (other === path) continue;
        const p = this.parse(other);
        if (p !== null && p.forms.length > 0 && formsEqual(p.canon, forms)) return { bytes: p.source, mode: 'kept', canonicalForms: 0, readBack: true };
      }
    }
    // Fast path: build the text without checking each edited form, then read the whole text back
    // once. Only when that check fails, build it again checking every edited form on its own (a form
    // that does not read back right is printed canonically), and check the whole text again.
    let reason = '';
    for (const checkForms of [false, true]) {
      let text: string;
      let canonicalForms = 0;
      try {
        const r = this.renderText(path, own, forms, checkForms);
        text = r.text;
        canonicalForms = r.canonicalForms;
      } catch (error) {
        if (!isGcError(error)) throw error;
        reason = `the edited text could not be built (${error.message})`;
        continue;
      }
      const bytes = encoder.encode(text);
      const check = readBack(bytes, forms);
      if (check === undefined) {
        return { bytes, mode: own === null && canonicalForms === forms.length ? 'canonical' : 'preserved', canonicalForms, readBack: true };
      }
      reason = check;
    }
    return { bytes: canonicalBytes(), mode: 'canonical', canonicalForms: 0, readBack: false, fallback: reason };
  }

  private renderText(path: string, own: ParsedText | null, forms: readonly Term[], checkForms: boolean): { text: string; canonicalForms: number } {
    const eol = own?.eol ?? '\n';
    const sep = eol + eol;
    let donors: Map<string, [ParsedText, number][]> | undefined;
    let canonicalForms = 0;
    /** Text for a new form with no old form of its own: a donor's (with its comments) or the print. */
    const fresh = (t: Term): string => {
      donors ??= this.donors(path);
      for (const [p, i] of donors.get(formKey(t)) ?? []) {
        if (termsEqual(p.canon[i]!, t)) {
          const moved = movableText(p, i);
          return p.eol === eol ? moved : moved.replace(/\r?\n/g, eol);
        }
      }
      canonicalForms++;
      return indentPrint(printTerm(t), '', eol);
    };
    if (own === null) return { text: forms.map(fresh).join(sep) + (forms.length > 0 ? eol : ''), canonicalForms };
    const src = own.source;
    const { from, equal } = align(own.canon, forms);
    const layout = layoutOf(own);
    const m = own.forms.length;
    const out: string[] = [];
    const slice = (a: number, b: number): string => decoder.decode(src.subarray(a, b));
    let prevOld = -1;
    let skipGap = false;
    /** Emits what stays of the removed forms before old form `i`: nothing of theirs, and one gap less. */
    const dropUpTo = (i: number): void => {
      for (let k = prevOld + 1; k < i; k++) {
        if (k > 0) continue; // the gap before a removed form goes with it
        out.push(slice(layout.gapStart[0]!, layout.ownStart[0]!)); // the module header stays
        skipGap = true; // and the gap after the removed first form goes instead
      }
    };
    let endsLine = true;
    for (let j = 0; j < forms.length; j++) {
      const i = from[j]!;
      if (i < 0 || i <= prevOld) {
        const text = fresh(forms[j]!);
        if (prevOld < 0 && m > 0) {
          out.push(text + sep);
        } else {
          out.push((endsLine ? eol : sep) + text + (endsLine ? eol : ''));
        }
        continue;
      }
      dropUpTo(i);
      const f = own.forms[i]!;
      if (!skipGap) out.push(slice(layout.gapStart[i]!, layout.ownStart[i]!));
      skipGap = false;
      out.push(slice(layout.ownStart[i]!, f.start));
      if (equal[j]) out.push(slice(f.start, f.end));
      else {
        const edited = editFormText(own, i, forms[j]!, eol, checkForms);
        if (edited === undefined) {
          canonicalForms++;
          out.push(indentPrint(printTerm(forms[j]!), indentAt(src, f.start), eol));
        } else out.push(edited);
      }
      out.push(slice(f.end, layout.ownEnd[i]!));
      endsLine = layout.ownEnd[i]! > 0 && src[layout.ownEnd[i]! - 1] === LF;
      prevOld = i;
    }
    dropUpTo(m);
    let trailer = slice(m > 0 ? layout.ownEnd[m - 1]! : own.trailingStart, src.length);
    if (m === 0 && forms.length > 0) trailer = eol + trailer;
    else if (!endsLine && out.length > 0 && trailer.length === 0 && prevOld < m - 1 && prevOld >= 0) trailer = eol;
    const joined = out.join('') + trailer;
    return { text: joined, canonicalForms };
  }
}

/** The edited text of old form `i` made into `next`, or undefined when no in-place edit reads back right. */
function editFormText(p: ParsedText, i: number, next: Term, eol: string, check: boolean): string | undefined {
  const f = p.forms[i]!;
  // The in-place walk compares subterms at every level it descends, which is quadratic in nesting
  // depth; a pathologically deep form is printed canonically instead (still only that form).
  // (Each level of nesting takes at least one byte of the form's text, so a form no longer than
  // MAX_EDIT_DEPTH bytes cannot be deeper and needs no walk.)
  if (f.end - f.start > MAX_EDIT_DEPTH && nestingDepth(f.node) > MAX_EDIT_DEPTH) return undefined;
  let edits: TextEdit[] | undefined;
  try {
    edits = editForm(p.source, f.node, p.canon[i]!, next, eol);
  } catch (error) {
    if (!isGcError(error)) throw error;
    return undefined;
  }
  if (edits === undefined) return undefined;
  const parts: string[] = [];
  let at = f.start;
  for (const e of edits) {
    parts.push(decoder.decode(p.source.subarray(at, e.start)), e.text);
    at = e.end;
  }
  parts.push(decoder.decode(p.source.subarray(at, f.end)));
  const text = parts.join('');
  if (!check) return text;
  try {
    if (termsEqual(canonicalizeForm(readTerm(text), i), next)) return text;
  } catch (error) {
    if (!isGcError(error)) throw error;
  }
  return undefined;
}

/** Forms nested deeper than this are not edited in place (see {@link editFormText}). */
export const MAX_EDIT_DEPTH = 1000;

/** The nesting depth of a node tree (iterative). */
function nestingDepth(root: NodeSpan): number {
  let max = 0;
  const stack: [NodeSpan, number][] = [[root, 1]];
  while (stack.length > 0) {
    const [n, d] = stack.pop()!;
    if (d > max) max = d;
    for (const c of n.children) stack.push([c, d + 1]);
  }
  return max;
}

/**
 * Reads `bytes` back and compares its canonical forms with `forms`.
 * @returns undefined when equal, else the reason.
 */
function readBack(bytes: Uint8Array, forms: readonly Term[]): string | undefined {
  let got: Term[];
  try {
    got = canonicalizeSource(bytes);
  } catch (error) {
    if (!isGcError(error)) throw error;
    return `the edited text does not read back (${error.code}: ${error.message})`;
  }
  if (got.length !== forms.length) return `the edited text reads back as ${got.length} forms, not ${forms.length}`;
  for (let k = 0; k < got.length; k++) {
    if (!termsEqual(got[k]!, forms[k]!)) return `form ${k} of the edited text differs from the canonical result`;
  }
  return undefined;
}
