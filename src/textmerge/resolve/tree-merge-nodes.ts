/**
 * The pieces the tree merge (`tree-merge.ts`) builds a merged form from: the sides' texts, the
 * outcome of merging one node (its segments and the terms ours' and theirs' readings must give), the
 * children of a merged container, and the helpers on them — a node's bytes, a child's separator and
 * the merge of separators by rules 1–3, the alignment key of a child, the placing of theirs'
 * additions, and the term a container's merged children build.
 */
import { printTerm } from '../../coreform/print.js';
import type { NodeSpan } from '../../coreform/read.js';
import { listFrom, map as mapOf, vec, type Term } from '../../coreform/term.js';
import { sameBytes } from '../common/diff3.js';
import type { TreeSegment } from './tree-merge-output.js';

/** Deepest node nesting the tree merge descends into; deeper forms fall back to the line merge. */
export const MAX_TREE_DEPTH = 200;

/** Thrown inside the merge when the tree merge does not apply (the caller falls back). */
export class Bail extends Error {}

export interface Src {
  text: Uint8Array;
}

export interface Out {
  segs: TreeSegment[];
  o: Term;
  t: Term;
  conflicts: number;
}

const SEMI = 0x3b;

export function bytesOf(s: Src, n: NodeSpan): Uint8Array {
  return s.text.subarray(n.start, n.end);
}

export function take(s: Src, n: NodeSpan): Out {
  return { segs: [bytesOf(s, n)], o: n.term, t: n.term, conflicts: 0 };
}

export function conflictOut(B: Src, O: Src, T: Src, b: NodeSpan | undefined, o: NodeSpan, t: NodeSpan): Out {
  return {
    segs: [{ ours: bytesOf(O, o), base: b ? bytesOf(B, b) : new Uint8Array(0), theirs: bytesOf(T, t) }],
    o: o.term,
    t: t.term,
    conflicts: 1,
  };
}

/** Leading trivia of child `i` of `n` (the whitespace/comments before it). */
export function sepOf(s: Src, n: NodeSpan, i: number): Uint8Array {
  const c = n.children[i]!;
  return s.text.subarray(c.leadingStart, c.start);
}

function hasSemi(b: Uint8Array): boolean {
  return b.indexOf(SEMI) !== -1;
}

/** Rules 1–3 on a separator; both changed: ours when neither holds a comment, else undefined (conflict). */
export function mergeSep(b: Uint8Array | undefined, o: Uint8Array | undefined, t: Uint8Array | undefined): Uint8Array | undefined {
  if (o && t) {
    if (sameBytes(o, t)) return o;
    if (b && sameBytes(o, b)) return t;
    if (b && sameBytes(t, b)) return o;
    return hasSemi(o) || hasSemi(t) ? undefined : o;
  }
  return o ?? t ?? b ?? new Uint8Array(0);
}

/** Key of a child for alignment: its printed term (formatting-independent). */
export function keyOf(n: NodeSpan): string {
  return printTerm(n.term);
}

/** One child of a merged container: its separator and its merged body. */
export interface Child {
  sep: Uint8Array;
  out: Out;
}

/** The first child keeps the layout of ours' first child (no separator added or lost at the opener). */
export function fixFirstSep(out: Child[], O: Src, o: NodeSpan): void {
  if (out.length > 0 && o.children.length > 0) out[0] = { sep: sepOf(O, o, 0), out: out[0]!.out };
}

/** One of theirs' additions: its key, the key of its predecessor on theirs' side, its children. */
export interface Addition {
  key: string;
  after: string | undefined;
  children: Child[];
}

/**
 * Inserts theirs' additions after their predecessor key when it is in the result (at the front when
 * they had none, at the end when it is gone), after ours' additions at that spot. `stride`: children
 * per item (2 map entries, 1 items); `oursAdded`: keys ours added.
 */
export function placeAdditions(out: Child[], keys: readonly string[], added: readonly Addition[], stride: number, oursAdded: ReadonlySet<string>): Child[] {
  if (added.length === 0) return out;
  const items: Child[][] = [];
  for (let i = 0; i < out.length; i += stride) items.push(out.slice(i, i + stride));
  const itemKeys = [...keys];
  for (const a of added) {
    const at = a.after === undefined ? -1 : itemKeys.lastIndexOf(a.after);
    let pos = at !== -1 ? at + 1 : a.after === undefined ? 0 : items.length;
    // After ours' own additions at that spot (as the top-level order merge does).
    while (pos < items.length && oursAdded.has(itemKeys[pos]!)) pos++;
    items.splice(pos, 0, a.children);
    itemKeys.splice(pos, 0, a.key);
  }
  return items.flat();
}

export function build(kind: NodeSpan['kind'], items: Term[]): Term {
  if (kind === 'vec') return vec(items);
  if (kind === 'map') {
    const entries: [Term, Term][] = [];
    for (let i = 0; i + 1 < items.length; i += 2) entries.push([items[i]!, items[i + 1]!]);
    return mapOf(entries);
  }
  return listFrom(items);
}
