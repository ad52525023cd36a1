/**
 * An iterative bottom-up term rewriter used by the symbol-rewriting ops. Deep terms (long lists,
 * deep nesting) never recurse on the JS stack.
 */
import { compareTerms, map, type Term } from '../../coreform/term.js';

/** What a visitor decides for one node. */
export type RewriteStep<C> =
  /** Keep the node's children default-visited with the same context. */
  | undefined
  /** Use this term as the result; do not descend. */
  | { done: Term }
  /** Visit these children (each with its own context), then build the result from their results. */
  | { children: [Term, C][]; build: (rebuilt: Term[]) => Term };

/** A node whose children are being rewritten: how many results it takes, and how to build it from them. */
class Frame {
  constructor(
    readonly n: number,
    /** The node itself, for the default children (its parts in order: car and cdr, items, or each key then value). */
    readonly node: Term | undefined,
    readonly build: ((rebuilt: Term[]) => Term) | undefined,
  ) {}
}

/**
 * Rewrites `root` bottom-up. For each node, `visit(node, ctx)` either returns a replacement, a
 * custom child list, or `undefined` for the default: pairs visit car and cdr, vectors their items,
 * maps their keys and values (a map is rebuilt in canonical order; colliding keys: last wins).
 * A default-visited node none of whose parts changed (each result the very same object) is kept as
 * it is rather than rebuilt, a map only when its keys are already in canonical order without
 * repeats, so the result is the same term either way and unchanged subtrees are shared.
 */
export function rewriteTerm<C>(root: Term, ctx: C, visit: (t: Term, ctx: C) => RewriteStep<C>): Term {
  const tasks: (Term | Frame)[] = [root];
  const contexts: C[] = [ctx];
  const values: Term[] = [];
  while (tasks.length > 0) {
    const task = tasks.pop()!;
    const c = contexts.pop()!;
    if (task instanceof Frame) {
      const base = values.length - task.n;
      const built = task.build !== undefined ? task.build(values.slice(base)) : rebuilt(task.node!, values, base);
      values.length = base;
      values.push(built);
      continue;
    }
    const t = task;
    const step = visit(t, c);
    if (step === undefined) {
      switch (t.kind) {
        case 'pair':
          tasks.push(new Frame(2, t, undefined), t.cdr, t.car);
          contexts.push(c, c, c);
          continue;
        case 'vec':
          tasks.push(new Frame(t.items.length, t, undefined));
          contexts.push(c);
          for (let i = t.items.length - 1; i >= 0; i--) {
            tasks.push(t.items[i]!);
            contexts.push(c);
          }
          continue;
        case 'map':
          tasks.push(new Frame(t.entries.length * 2, t, undefined));
          contexts.push(c);
          for (let i = t.entries.length - 1; i >= 0; i--) {
            tasks.push(t.entries[i]![1], t.entries[i]![0]);
            contexts.push(c, c);
          }
          continue;
        default:
          values.push(t);
          continue;
      }
    }
    if ('done' in step) {
      values.push(step.done);
      continue;
    }
    tasks.push(new Frame(step.children.length, undefined, step.build));
    contexts.push(c);
    for (let i = step.children.length - 1; i >= 0; i--) {
      tasks.push(step.children[i]![0]);
      contexts.push(step.children[i]![1]);
    }
  }
  return values[0]!;
}

/** The default rebuild of `node` from the results `values[base…]` of its parts (see {@link rewriteTerm}). */
function rebuilt(node: Term, values: readonly Term[], base: number): Term {
  switch (node.kind) {
    case 'pair': {
      const car = values[base]!;
      const cdr = values[base + 1]!;
      return car === node.car && cdr === node.cdr ? node : { kind: 'pair', car, cdr };
    }
    case 'vec': {
      const items = values.slice(base);
      return items.every((x, i) => x === node.items[i]) ? node : { kind: 'vec', items };
    }
    case 'map': {
      const e = node.entries;
      let same = true;
      for (let i = 0; i < e.length && same; i++) same = values[base + 2 * i] === e[i]![0] && values[base + 2 * i + 1] === e[i]![1];
      for (let i = 1; i < e.length && same; i++) same = compareTerms(e[i - 1]![0], e[i]![0]) < 0;
      if (same) return node;
      return map(Array.from({ length: e.length }, (_, i) => [values[base + 2 * i]!, values[base + 2 * i + 1]!] as const));
    }
    default:
      return node;
  }
}
