import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { printTerm } from '../../src/coreform/print.js';
import { kwMap, mapGetKw, str, vec, type MapTerm, type Term } from '../../src/coreform/term.js';
import { diffReport, diffWorkspaces } from '../../src/diff/diff.js';
import { decodeDiffReport } from '../../src/diff/protocol.js';
import { verifyDiffReport } from '../../src/diff/verify.js';
import { workspaceTerm, type Workspace } from '../../src/workspace/workspace.js';
import { items } from './helpers.js';
import { derivedArb, mutateAt, workspaceArb } from './arbitraries.js';

/** A third, minimal applier for the three diff ops (test oracle). */
function apply(base: Workspace, report: Term): string {
  const modules = new Map([...base.byPath].map(([p, f]) => [p, [...f.items]]));
  for (const op of items(mapGetKw(decodeDiffReport(report).patch, 'ops')) as MapTerm[]) {
    const path = (mapGetKw(op, 'module-path') as { value: string }).value;
    const name = (mapGetKw(op, 'op') as { name: string }).name;
    if (name === ':remove-module') modules.delete(path);
    else if (name === ':add-module') modules.set(path, [...items(mapGetKw(op, 'content'))]);
    else {
      const step = items(items(mapGetKw(op, 'path'))[0]);
      modules.get(path)![Number((step[1] as { value: bigint }).value)] = mapGetKw(op, 'new')!;
    }
  }
  const sorted = [...modules].sort(([a], [b]) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  return printTerm(vec(sorted.map(([p, f]) => kwMap({ 'module-path': str(p), forms: vec(f) }))));
}

const pairArb = workspaceArb.chain((a) => fc.tuple(fc.constant(a), fc.oneof(derivedArb(a), workspaceArb)));

describe('diff properties', () => {
  it('applying diff(a, b) to a gives b, and every report passes its verifier', () => {
    fc.assert(
      fc.property(pairArb, ([a, b]) => {
        const { request, report } = diffWorkspaces(a, b, { intent: 'p' });
        verifyDiffReport(request, report);
        expect(apply(a, report)).toBe(printTerm(workspaceTerm(b)));
      }),
      { numRuns: 300 },
    );
  });

  it('the report does not depend on the order of modules in the request', () => {
    fc.assert(
      fc.property(pairArb, fc.array(fc.nat()), ([a, b], seed) => {
        const { request, report } = diffWorkspaces(a, b);
        const shuffle = (t: Term): Term => {
          const out = [...items(t)];
          out.forEach((_, i) => {
            const j = (seed[i] ?? 0) % out.length;
            [out[i], out[j]] = [out[j]!, out[i]!];
          });
          return vec(out);
        };
        const fields = Object.fromEntries(request.entries.map(([k, v]) => [(k as { name: string }).name.slice(1), v]));
        const shuffled = kwMap({ ...fields, base: shuffle(fields.base!), target: shuffle(fields.target!) });
        expect(printTerm(diffReport(shuffled))).toBe(printTerm(report));
      }),
      { numRuns: 100 },
    );
  });

  it('a report with any single field mutated fails its verifier', () => {
    fc.assert(
      fc.property(pairArb, fc.array(fc.nat(), { minLength: 1, maxLength: 6 }), ([a, b], choices) => {
        const { request, report } = diffWorkspaces(a, b, { intent: 'p' });
        const mutated = mutateAt(report, choices);
        expect(printTerm(mutated)).not.toBe(printTerm(report));
        expect(() => verifyDiffReport(request, mutated)).toThrow(expect.objectContaining({ code: 'diff/verify-failed', exitCode: 50 }));
      }),
      { numRuns: 500 },
    );
  });
});
