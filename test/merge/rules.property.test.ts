import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { printTerm } from '../../src/coreform/print.js';
import { kwMap, vec, type Term } from '../../src/coreform/term.js';
import { decodeMergeReport } from '../../src/merge/report.js';
import { mergeReport, mergeWorkspaces } from '../../src/merge/rules.js';
import { verifyMergeReport } from '../../src/merge/verify.js';
import { workspaceTerm, type Workspace } from '../../src/workspace/workspace.js';
import { items } from '../diff/helpers.js';
import { derivedArb, tripleArb, workspaceArb } from '../diff/arbitraries.js';

const run = (b: Workspace, l: Workspace, r: Workspace) => {
  const { request, report } = mergeWorkspaces(b, l, r, { intent: 'prop' });
  verifyMergeReport(request, report);
  return { request, report, decoded: decodeMergeReport(report) };
};

const baseAndOther = workspaceArb.chain((b) => fc.tuple(fc.constant(b), derivedArb(b)));

describe('merge properties', () => {
  it('merge(base, x, base) = x and merge(base, base, x) = x', () => {
    fc.assert(
      fc.property(baseAndOther, ([b, x]) => {
        const want = printTerm(workspaceTerm(x));
        const l = run(b, x, b).decoded;
        const r = run(b, b, x).decoded;
        expect(l.ok && r.ok).toBe(true);
        expect(printTerm(l.merged!)).toBe(want);
        expect(printTerm(r.merged!)).toBe(want);
      }),
      { numRuns: 200 },
    );
  });

  it('swapping left and right gives the same merge, or the same conflicts with left/right hashes swapped', () => {
    fc.assert(
      fc.property(tripleArb, ([b, l, r]) => {
        const lr = run(b, l, r).decoded;
        const rl = run(b, r, l).decoded;
        expect(rl.ok).toBe(lr.ok);
        const key = (c: (typeof lr.conflicts)[number], swap: boolean) =>
          [c.code, c.modulePath, c.formIndex, c.baseH, swap ? c.rightH : c.leftH, swap ? c.leftH : c.rightH].join(' ');
        // A merge: its text and hash; conflicts: each one's key (with left and right swapped back).
        const outcome = (d: typeof lr, swap: boolean) =>
          d.ok ? { merged: printTerm(d.merged!), mergedH: d.mergedH } : { conflicts: d.conflicts.map((c) => key(c, swap)) };
        expect(outcome(rl, true)).toEqual(outcome(lr, false));
      }),
      { numRuns: 300 },
    );
  });

  it('the report does not depend on module order in the request', () => {
    fc.assert(
      fc.property(tripleArb, fc.array(fc.nat()), ([b, l, r], seed) => {
        const { request, report } = run(b, l, r);
        const shuffle = (t: Term): Term => {
          const out = [...items(t)].reverse();
          out.forEach((_, i) => {
            const j = (seed[i] ?? 0) % out.length;
            [out[i], out[j]] = [out[j]!, out[i]!];
          });
          return vec(out);
        };
        const f = Object.fromEntries(request.entries.map(([k, v]) => [(k as { name: string }).name.slice(1), v]));
        const shuffled = kwMap({ ...f, base: shuffle(f.base!), left: shuffle(f.left!), right: shuffle(f.right!) });
        expect(printTerm(mergeReport(shuffled))).toBe(printTerm(report));
      }),
      { numRuns: 100 },
    );
  });

  it('exercises both outcomes and every conflict code', () => {
    const seen = new Set<string>();
    fc.assert(
      fc.property(tripleArb, ([b, l, r]) => {
        const d = run(b, l, r).decoded;
        seen.add(d.ok ? 'ok' : 'conflict');
        for (const c of d.conflicts) seen.add(c.code);
      }),
      { numRuns: 400, seed: 42 },
    );
    expect([...seen].sort()).toEqual(['conflict', 'form/divergent-edit', 'module/delete-modify', 'module/divergent-add', 'module/structural-divergence', 'ok']);
  });
});
