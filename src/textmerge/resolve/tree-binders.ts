/**
 * Scope safety of the tree merge (`tree-merge.ts` `binderRule`) for `(fn PARAMS …)` and
 * `(let BINDINGS …)`: which bindings a side only added, whether binder lists bind the same names,
 * whether a side's edit mentions a name, a pure parameter rename, and carrying such a rename into a
 * term or a form's text.
 */
import type { NodeSpan } from '../../coreform/read.js';
import { map as mapOf, pair, sym, termsEqual, vec, type Term } from '../../coreform/term.js';
import { concatBytes } from '../common/diff3.js';
import { symbolCounts } from './name-analysis.js';
import { Bail, MAX_TREE_DEPTH } from './tree-merge-nodes.js';

/**
 * The names of the bindings `to` adds to the `let` binding list `from`, when that is all it does:
 * `from`'s bindings are kept unchanged and in order (compared as terms), each added binding is a
 * `(NAME EXPR)` list with a symbol NAME no base binding has. Undefined otherwise (a binding removed,
 * renamed or changed; not a list of bindings; nothing added).
 */
export function addedBindings(from: NodeSpan, to: NodeSpan): Set<string> | undefined {
  if (from.kind !== 'list' || to.kind !== 'list' || to.children.length <= from.children.length) return undefined;
  const baseNames = new Set<string>();
  for (const c of from.children) {
    const n = bindingName(c);
    if (n === undefined) return undefined;
    baseNames.add(n);
  }
  const added = new Set<string>();
  let k = 0;
  for (const c of to.children) {
    if (k < from.children.length && termsEqual(c.term, from.children[k]!.term)) {
      k++;
      continue;
    }
    const n = bindingName(c);
    if (n === undefined || baseNames.has(n) || added.has(n)) return undefined;
    added.add(n);
  }
  return k === from.children.length ? added : undefined;
}

/** True when the `let` binding lists `from` and `to` bind the same names in the same order (each child a `(NAME EXPR)` binding). */
export function sameBinders(from: NodeSpan, to: NodeSpan): boolean {
  if (from.kind !== 'list' || to.kind !== 'list' || from.children.length !== to.children.length) return false;
  for (let i = 0; i < from.children.length; i++) {
    const n = bindingName(from.children[i]!);
    if (n === undefined || n !== bindingName(to.children[i]!)) return false;
  }
  return true;
}

/** NAME of a `(NAME EXPR)` binding node, else undefined. */
function bindingName(n: NodeSpan): string | undefined {
  if (n.kind !== 'list' || n.children.length !== 2) return undefined;
  const name = n.children[0]!.term;
  return name.kind === 'sym' ? name.name : undefined;
}

/**
 * True when a symbol in `names` occurs in what `side` changed of base's `(let BINDINGS BODY…)`
 * `base` (BINDINGS unchanged on `side`): the children of a list or vector that differ from
 * base's, found as the children between the common prefix and suffix (compared as terms) and
 * descended into when the two stretches have the same length, otherwise read whole. An occurrence
 * the edit binds itself still counts (the answer errs towards a conflict). Iterative.
 */
export function editMentions(base: NodeSpan, side: NodeSpan, names: ReadonlySet<string>): boolean {
  const stack: [NodeSpan, NodeSpan][] = [[base, side]];
  while (stack.length > 0) {
    const [x, y] = stack.pop()!;
    if (termsEqual(x.term, y.term)) continue;
    if (x.kind !== y.kind || (x.kind !== 'list' && x.kind !== 'vec' && x.kind !== 'quote')) {
      if (mentionsAny(y.term, names)) return true;
      continue;
    }
    const xs = x.children;
    const ys = y.children;
    let pre = 0;
    while (pre < xs.length && pre < ys.length && termsEqual(xs[pre]!.term, ys[pre]!.term)) pre++;
    let suf = 0;
    while (suf < xs.length - pre && suf < ys.length - pre && termsEqual(xs[xs.length - 1 - suf]!.term, ys[ys.length - 1 - suf]!.term)) suf++;
    if (xs.length === ys.length) for (let i = pre; i < xs.length - suf; i++) stack.push([xs[i]!, ys[i]!]);
    else for (let i = pre; i < ys.length - suf; i++) if (mentionsAny(ys[i]!.term, names)) return true;
  }
  return false;
}

/** True when a symbol of `t` is named in `names`. */
function mentionsAny(t: Term, names: ReadonlySet<string>): boolean {
  for (const n of symbolCounts(t).keys()) if (names.has(n)) return true;
  return false;
}

/** old → new parameter names when `to` renames some of `from`'s symbols one for one, else undefined. */
export function paramRenames(from: NodeSpan, to: NodeSpan): Map<string, string> | undefined {
  if (from.kind !== 'list' || to.kind !== 'list' || from.children.length !== to.children.length) return undefined;
  const m = new Map<string, string>();
  for (let i = 0; i < from.children.length; i++) {
    const a = from.children[i]!.term;
    const z = to.children[i]!.term;
    if (a.kind !== 'sym' || z.kind !== 'sym') return undefined;
    if (a.name !== z.name) m.set(a.name, z.name);
  }
  return m.size > 0 ? m : undefined;
}

/** `t` with every symbol named in `renames` replaced (iterative; terms are immutable). */
export function substitute(t: Term, renames: ReadonlyMap<string, string>): Term {
  const walk = (x: Term, depth: number): Term => {
    if (depth > MAX_TREE_DEPTH) throw new Bail('too deep');
    switch (x.kind) {
      case 'sym': {
        const n = renames.get(x.name);
        return n === undefined ? x : sym(n);
      }
      case 'pair':
        return pair(walk(x.car, depth + 1), walk(x.cdr, depth + 1));
      case 'vec':
        return vec(x.items.map((i) => walk(i, depth + 1)));
      case 'map':
        return mapOf(x.entries.map(([k, v]) => [walk(k, depth + 1), walk(v, depth + 1)] as const));
      default:
        return x;
    }
  };
  return walk(t, 0);
}

/** The text of `n` with every symbol atom named in `renames` replaced by its new name. */
export function substituteText(text: Uint8Array, n: NodeSpan, renames: ReadonlyMap<string, string>): Uint8Array {
  const parts: Uint8Array[] = [];
  let pos = n.start;
  const stack: NodeSpan[] = [n];
  const hits: NodeSpan[] = [];
  while (stack.length > 0) {
    const x = stack.pop()!;
    if (x.kind === 'atom') {
      if (x.term.kind === 'sym' && renames.has(x.term.name)) hits.push(x);
    } else for (const c of x.children) stack.push(c);
  }
  hits.sort((p, q) => p.start - q.start);
  for (const h of hits) {
    parts.push(text.subarray(pos, h.start), Buffer.from(renames.get((h.term as { name: string }).name)!, 'utf8'));
    pos = h.end;
  }
  parts.push(text.subarray(pos, n.end));
  return concatBytes(parts);
}
