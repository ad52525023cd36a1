/**
 * In-place edits of one top-level form's text (format-preserving apply, docs/patches.md "How apply writes modules"): given the
 * form's node spans (the reader's `readModuleSpans`), its old canonical form and its new canonical
 * form, find the smallest source spans to replace so the text reads as the new form, keeping every
 * unchanged token, comment and line break of the author.
 *
 * The walk follows the source and the canonical forms together (docs/reference/coreform.md §1.3): a source
 * list `(f a b)` is the canonical left-nested application `((f a) b)`; `def`, `if`, `begin`, `prim`,
 * `seal`, `unseal`, `quote` and one-parameter one-body `fn` / one-body `let` keep their shape;
 * vectors, quoted data and map keys are data (unchanged by canonicalization). Where the two agree,
 * the walk descends to the children that changed; a changed atom is replaced by the print of the
 * new term; a list or vector whose items were added or removed keeps its unchanged leading and
 * trailing items and replaces the ones between. Where they do not agree (multi-parameter `fn`,
 * multi-binding `let`, …), a change that only swaps atoms (a rename, a contract-parameter
 * migration) is placed on the matching source tokens by occurrence order (canonicalization keeps
 * the left-to-right order of non-reserved atoms); anything else replaces that node's whole span with
 * the canonical print of its new term, indented to where it stands. Iterative throughout.
 *
 * The caller (`render.ts`) reads the edited form back and checks it; these edits are a proposal.
 */
import { RESERVED_HEADS } from '../../coreform/canon.js';
import { printAtom, printTerm } from '../../coreform/print.js';
import type { NodeSpan } from '../../coreform/read.js';
import { compareTerms, isAtom, listItems, termsEqual, type Term } from '../../coreform/term.js';

/** Replace the source bytes `[start, end)` (0-based UTF-8 offsets) with `text`. */
export interface TextEdit {
  start: number;
  end: number;
  text: string;
}

const LF = 0x0a;
const decoder = new TextDecoder();

/** A canonical print re-indented for where it stands: lines after the first get `indent`; `\n` → `eol`. */
export function indentPrint(text: string, indent: string, eol: string): string {
  if (!text.includes('\n')) return text;
  return text.split('\n').join(eol + indent);
}

/** Indentation for the lines after the first of a print placed at `offset` (the line's leading blanks, or spaces). */
export function indentAt(src: Uint8Array, offset: number): string {
  let k = offset;
  while (k > 0 && src[k - 1] !== LF) k--;
  let blank = true;
  for (let q = k; q < offset && blank; q++) blank = src[q] === 0x20 || src[q] === 0x09;
  return blank ? decoder.decode(src.subarray(k, offset)) : ' '.repeat(offset - k);
}

function print(src: Uint8Array, t: Term, at: number, eol: string): string {
  return printAtom(t) ?? indentPrint(printTerm(t), indentAt(src, at), eol);
}

/** Unwinds a left-nested application of `argc` arguments: `((f a) b)` → [f, a, b]. */
function unwindApplication(t: Term, argc: number): Term[] | undefined {
  const out: Term[] = [];
  let cur = t;
  for (let k = 0; k < argc; k++) {
    const two = listItems(cur);
    if (two === undefined || two.length !== 2) return undefined;
    out.push(two[1]!);
    cur = two[0]!;
  }
  out.push(cur);
  return out.reverse();
}

/** True for `(fn (p) body)` / `(let (…) body)`: the source list has its canonical list's items. */
function oneShape(r: NodeSpan): boolean {
  const head = r.children[0]?.term;
  if (head?.kind !== 'sym' || r.children.length !== 3) return false;
  if (head.name === 'let') return true;
  return head.name === 'fn' && r.children[1]!.kind === 'list' && r.children[1]!.children.length === 1;
}

/** Heads whose source list has the same items as its canonical list. */
const SAME_SHAPE = new Set(['def', 'if', 'begin', 'prim', 'seal', 'unseal', 'quote']);

/**
 * The canonical subterm of `t` for each source child of list node `r` under a canonical term of the
 * same source shape, or undefined when the shapes do not correspond.
 */
function listChildren(r: NodeSpan, t: Term): Term[] | undefined {
  const c = r.children.length;
  if (c === 0) return undefined;
  const head = r.children[0]!.term;
  if (head.kind === 'sym' && RESERVED_HEADS.has(head.name)) {
    const list = listItems(t);
    if (list === undefined || list.length !== c) return undefined;
    if (SAME_SHAPE.has(head.name)) return list;
    // `(fn (p) body)` and `(let (bindings…) body)` keep their shape; more parameters nest `fn`s
    // and more body expressions add a `begin`, so those do not correspond item by item.
    if (head.name === 'fn' && c === 3 && r.children[1]!.kind === 'list' && r.children[1]!.children.length === 1) return list;
    if (head.name === 'let' && c === 3) return list;
    return undefined;
  }
  if (c === 1) return [t];
  return unwindApplication(t, c - 1);
}

/** Source children of a map node in term order (by key, last equal key wins), as [key, value] nodes. */
function mapEntries(r: NodeSpan): [NodeSpan, NodeSpan][] | undefined {
  const pairs: [NodeSpan, NodeSpan][] = [];
  for (let i = 0; i + 1 < r.children.length; i += 2) pairs.push([r.children[i]!, r.children[i + 1]!]);
  const indexed = pairs.map((p, i) => [p, i] as const);
  indexed.sort((a, b) => compareTerms(a[0][0].term, b[0][0].term) || a[1] - b[1]);
  const out: [NodeSpan, NodeSpan][] = [];
  for (const [p] of indexed) {
    const last = out[out.length - 1];
    if (last !== undefined && compareTerms(last[0].term, p[0].term) === 0) out[out.length - 1] = p;
    else out.push(p);
  }
  return out.length === pairs.length ? out : undefined;
}

/** Atom leaves of a source node in term pre-order (maps by key), including `()` as nil. */
function sourceLeaves(root: NodeSpan): NodeSpan[] | undefined {
  const out: NodeSpan[] = [];
  const stack: NodeSpan[] = [root];
  while (stack.length > 0) {
    const n = stack.pop()!;
    if (n.kind === 'atom' || (n.kind === 'list' && n.children.length === 0)) {
      out.push(n);
      continue;
    }
    if (n.kind === 'map') {
      const entries = mapEntries(n);
      if (entries === undefined) return undefined;
      for (let i = entries.length - 1; i >= 0; i--) stack.push(entries[i]![1], entries[i]![0]);
      continue;
    }
    for (let i = n.children.length - 1; i >= 0; i--) stack.push(n.children[i]!);
  }
  return out;
}

/** Atom leaves of two same-shaped terms in pre-order, or undefined when their shapes differ. */
function termLeaves(a: Term, b: Term): [Term, Term][] | undefined {
  const out: [Term, Term][] = [];
  const stack: [Term, Term][] = [[a, b]];
  while (stack.length > 0) {
    const [x, y] = stack.pop()!;
    if (isAtom(x) || isAtom(y)) {
      if (!isAtom(x) || !isAtom(y)) return undefined;
      out.push([x, y]);
      continue;
    }
    if (x.kind === 'pair' && y.kind === 'pair') stack.push([x.cdr, y.cdr], [x.car, y.car]);
    else if (x.kind === 'vec' && y.kind === 'vec' && x.items.length === y.items.length) {
      for (let i = x.items.length - 1; i >= 0; i--) stack.push([x.items[i]!, y.items[i]!]);
    } else if (x.kind === 'map' && y.kind === 'map' && x.entries.length === y.entries.length) {
      for (let i = x.entries.length - 1; i >= 0; i--) stack.push([x.entries[i]![1], y.entries[i]![1]], [x.entries[i]![0], y.entries[i]![0]]);
    } else return undefined;
  }
  return out;
}

function atomKey(t: Term): string {
  return `${t.kind}:${printAtom(t)}`;
}

/**
 * Places an atoms-only change of `o` → `n` on the source tokens of `r`: the k-th changed occurrence
 * of an atom in `o`'s pre-order is the k-th source token of that atom. Undefined when the change is
 * not atoms-only, the counts disagree, or a reserved head would change.
 */
function leafEdits(r: NodeSpan, o: Term, n: Term): TextEdit[] | undefined {
  const pairs = termLeaves(o, n);
  if (pairs === undefined) return undefined;
  const leaves = sourceLeaves(r);
  if (leaves === undefined) return undefined;
  const seen = new Map<string, number>();
  const changes: { key: string; occurrence: number; to: Term }[] = [];
  for (const [x, y] of pairs) {
    const key = atomKey(x);
    const k = seen.get(key) ?? 0;
    seen.set(key, k + 1);
    if (!termsEqual(x, y)) {
      if (x.kind === 'sym' && RESERVED_HEADS.has(x.name)) return undefined;
      changes.push({ key, occurrence: k, to: y });
    }
  }
  const byKey = new Map<string, NodeSpan[]>();
  for (const leaf of leaves) {
    const key = atomKey(leaf.term);
    const list = byKey.get(key) ?? [];
    list.push(leaf);
    byKey.set(key, list);
  }
  const edits: TextEdit[] = [];
  for (const c of changes) {
    const list = byKey.get(c.key);
    if (list === undefined || list.length !== seen.get(c.key)) return undefined;
    const leaf = list[c.occurrence]!;
    edits.push({ start: leaf.start, end: leaf.end, text: printAtom(c.to)! });
  }
  return edits;
}

/**
 * The edits that turn list/vector node `r` (children `kids`, canonical items `o` → `n`) into `n`
 * when items were added or removed: unchanged leading and trailing items stay; the items between
 * are replaced by the prints of the new ones. Only for shapes where source children are items.
 */
function spliceItems(src: Uint8Array, r: NodeSpan, kids: readonly NodeSpan[], o: readonly Term[], n: readonly Term[], eol: string): TextEdit[] {
  let pre = 0;
  while (pre < o.length && pre < n.length && termsEqual(o[pre]!, n[pre]!)) pre++;
  let suf = 0;
  while (suf < o.length - pre && suf < n.length - pre && termsEqual(o[o.length - 1 - suf]!, n[n.length - 1 - suf]!)) suf++;
  const removed = kids.slice(pre, kids.length - suf);
  const added = n.slice(pre, n.length - suf);
  if (removed.length > 0) {
    const start = removed[0]!.start;
    const end = removed[removed.length - 1]!.end;
    if (added.length > 0) return [{ start, end, text: added.map((t) => print(src, t, start, eol)).join(' ') }];
    // Drop the removed items with the blanks before them (keep the first item's leading trivia).
    const from = pre === 0 ? start : removed[0]!.leadingStart;
    const to = pre === 0 && suf > 0 ? kids[kids.length - suf]!.start : end;
    return [{ start: from, end: to, text: '' }];
  }
  // Only insertions: after the last kept leading item, or right after the opening delimiter.
  const at = pre > 0 ? kids[pre - 1]!.end : r.start + 1;
  const text = added.map((t) => print(src, t, at, eol)).join(' ');
  return [{ start: at, end: at, text: pre > 0 ? ' ' + text : kids.length > 0 ? text + ' ' : text }];
}

/**
 * For a source `(fn (p1 … pk) b1 … bm)` or `(let (bindings…) b1 … bm)` whose canonical forms nest
 * (`(fn (p1) (fn (p2) …))`, a `(begin b1 … bm)` body): the source body nodes with their old and
 * new canonical terms, when the parameters / bindings are unchanged. Undefined otherwise.
 */
function bodyTriples(r: NodeSpan, o: Term, n: Term): [NodeSpan, Term, Term][] | undefined {
  const c = r.children.length;
  const head = r.children[0]?.term;
  if (c < 3 || head?.kind !== 'sym' || (head.name !== 'fn' && head.name !== 'let')) return undefined;
  const params = r.children[1]!;
  if (params.kind !== 'list') return undefined;
  let ob: Term | undefined = o;
  let nb: Term | undefined = n;
  const levels = head.name === 'fn' ? params.children.length : 1;
  for (let k = 0; k < levels; k++) {
    const oi: Term[] | undefined = ob === undefined ? undefined : listItems(ob);
    const ni: Term[] | undefined = nb === undefined ? undefined : listItems(nb);
    if (oi?.length !== 3 || ni?.length !== 3 || !termsEqual(oi[0]!, ni[0]!) || !termsEqual(oi[1]!, ni[1]!)) return undefined;
    ob = oi[2];
    nb = ni[2];
  }
  const bodies = r.children.slice(2);
  if (bodies.length === 1) return [[bodies[0]!, ob!, nb!]];
  const oi = listItems(ob!);
  const ni = listItems(nb!);
  if (oi?.length !== bodies.length + 1 || ni?.length !== bodies.length + 1) return undefined;
  const begin = oi[0]!;
  if (begin.kind !== 'sym' || begin.name !== 'begin' || !termsEqual(begin, ni[0]!)) return undefined;
  return bodies.map((b, i) => [b, oi[i + 1]!, ni[i + 1]!]);
}

/**
 * The source edits that make the form at `root` read as `next`, whose old canonical form is `prev`.
 * @param src the module's UTF-8 bytes (offsets in `root` refer to them).
 * @param root the form's node (from `readModuleSpans`).
 * @param prev the form's canonical form before; @param next after (both canonical).
 * @param eol the module's line end, for multi-line prints.
 * @returns non-overlapping edits in ascending order (possibly one replacing the whole form), or
 *   undefined when `prev` and `next` are equal.
 */
export function editForm(src: Uint8Array, root: NodeSpan, prev: Term, next: Term, eol: string): TextEdit[] | undefined {
  if (termsEqual(prev, next)) return undefined;
  const edits: TextEdit[] = [];
  const stack: [NodeSpan, Term, Term][] = [[root, prev, next]];
  while (stack.length > 0) {
    const [r, o, n] = stack.pop()!;
    if (termsEqual(o, n)) continue;
    const replace = (): void => {
      edits.push({ start: r.start, end: r.end, text: print(src, n, r.start, eol) });
    };
    if (r.kind === 'atom' || isAtom(o) || isAtom(n)) {
      replace();
      continue;
    }
    let kids: readonly NodeSpan[] | undefined;
    let os: Term[] | undefined;
    let ns: Term[] | undefined;
    let spliceable = false;
    if (r.kind === 'quote') {
      const oi = listItems(o);
      const ni = listItems(n);
      if (oi?.length === 2 && ni?.length === 2 && termsEqual(oi[0]!, ni[0]!)) {
        kids = r.children;
        os = [oi[1]!];
        ns = [ni[1]!];
      }
    } else if (r.kind === 'vec' && o.kind === 'vec' && n.kind === 'vec') {
      kids = r.children;
      os = [...o.items];
      ns = [...n.items];
      spliceable = true;
    } else if (r.kind === 'map' && o.kind === 'map' && n.kind === 'map' && o.entries.length === n.entries.length) {
      const entries = mapEntries(r);
      if (entries !== undefined && entries.length === o.entries.length && o.entries.every((e, i) => termsEqual(e[0], n.entries[i]![0]))) {
        kids = entries.map((e) => e[1]);
        os = o.entries.map((e) => e[1]);
        ns = n.entries.map((e) => e[1]);
      }
    } else if (r.kind === 'list') {
      const bodies = oneShape(r) ? undefined : bodyTriples(r, o, n);
      if (bodies !== undefined) {
        for (let i = bodies.length - 1; i >= 0; i--) stack.push(bodies[i]!);
        continue;
      }
      const head = r.children[0]?.term;
      const reserved = head?.kind === 'sym' && RESERVED_HEADS.has(head.name);
      const oc = listChildren(r, o);
      const nc = listChildren(r, n);
      if (oc !== undefined && nc !== undefined && oc.length === nc.length) {
        kids = r.children;
        os = oc;
        ns = nc;
        if (reserved && (head.name === 'fn' || head.name === 'let') && !termsEqual(oc[1]!, nc[1]!)) {
          kids = undefined; // parameter lists / bindings changed: handled as atoms or replaced
        }
      }
    }
    if (kids !== undefined && os !== undefined && ns !== undefined) {
      if (os.length === ns.length && kids.length === os.length) {
        for (let i = kids.length - 1; i >= 0; i--) stack.push([kids[i]!, os[i]!, ns[i]!]);
        continue;
      }
      if (spliceable && kids.length === os.length) {
        for (const item of spliceItems(src, r, kids, os, ns, eol)) edits.push(item);
        continue;
      }
    }
    const leaf = leafEdits(r, o, n);
    if (leaf !== undefined) for (const item of leaf) edits.push(item);
    else replace();
  }
  edits.sort((a, b) => a.start - b.start);
  return edits;
}
