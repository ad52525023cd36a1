/**
 * An iterative bottom-up term rewriter used by the symbol-rewriting ops. Deep terms (long lists,
 * deep nesting) never recurse on the JS stack.
 */
import { map, type Term } from '../../coreform/term.js';

/** What a visitor decides for one node. */
export type RewriteStep<C> =
  /** Keep the node's children default-visited with the same context. */
  | undefined
  /** Use this term as the result; do not descend. */
  | { done: Term }
  /** Visit these children (each with its own context), then build the result from their results. */
  | { children: [Term, C][]; build: (rebuilt: Term[]) => Term };

/**
 * Rewrites `root` bottom-up. For each node, `visit(node, ctx)` either returns a replacement, a
 * custom child list, or `undefined` for the default: pairs visit car and cdr, vectors their items,
 * maps their keys and values (a map is rebuilt in canonical order; colliding keys: last wins).
 */
export function rewriteTerm<C>(root: Term, ctx: C, visit: (t: Term, ctx: C) => RewriteStep<C>): Term {
  type Frame = { n: number; build: (rebuilt: Term[]) => Term };
  const tasks: ([Term, C] | Frame)[] = [[root, ctx]];
  const values: Term[] = [];
  while (tasks.length > 0) {
    const task = tasks.pop()!;
    if (!Array.isArray(task)) {
      const base = values.length - task.n;
      const built = task.build(values.slice(base));
      values.length = base;
      values.push(built);
      continue;
    }
    const [t, c] = task;
    let step = visit(t, c);
    if (step === undefined) {
      switch (t.kind) {
        case 'pair':
          step = { children: [[t.car, c], [t.cdr, c]], build: ([car, cdr]) => ({ kind: 'pair', car: car!, cdr: cdr! }) };
          break;
        case 'vec':
          step = { children: t.items.map((x) => [x, c] as [Term, C]), build: (items) => ({ kind: 'vec', items }) };
          break;
        case 'map':
          step = {
            children: t.entries.flatMap(([k, v]) => [[k, c] as [Term, C], [v, c] as [Term, C]]),
            build: (kv) => map(Array.from({ length: kv.length / 2 }, (_, i) => [kv[2 * i]!, kv[2 * i + 1]!] as const)),
          };
          break;
        default:
          step = { done: t };
      }
    }
    if ('done' in step) {
      values.push(step.done);
      continue;
    }
    tasks.push({ n: step.children.length, build: step.build });
    for (let i = step.children.length - 1; i >= 0; i--) tasks.push(step.children[i]!);
  }
  return values[0]!;
}
