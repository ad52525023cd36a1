import { describe, expect, it } from 'vitest';
import { canonicalizeSource } from '../../src/coreform/canon.js';
import { hashTerm } from '../../src/coreform/hash.js';
import { int, kw, kwMap, str, vec, type MapTerm, type Term } from '../../src/coreform/term.js';
import { diffWorkspaces } from '../../src/diff/diff.js';
import { verifyDiffReport } from '../../src/diff/verify.js';
import { workspaceHash, type Workspace } from '../../src/workspace/workspace.js';
import { ws } from './helpers.js';

const form = (s: string) => canonicalizeSource(s)[0]!;
const replace = (p: string, i: number, f: Term) => kwMap({ op: kw('replace-node'), 'module-path': str(p), path: vec([vec([kw('form'), int(i)])]), new: f });
const add = (p: string, src: string) => kwMap({ op: kw('add-module'), 'module-path': str(p), content: vec(canonicalizeSource(src)) });
const remove = (p: string) => kwMap({ op: kw('remove-module'), 'module-path': str(p) });

/** A report for `ops` whose every hash and count is self-consistent, so only the op rules can fail. */
function forge(base: Workspace, target: Workspace, ops: MapTerm[]): { request: MapTerm; report: MapTerm } {
  const { request } = diffWorkspaces(base, target, { intent: 'i' });
  const patch = kwMap({ intent: str('i'), ops: vec(ops), provenance: kwMap({}), version: int(1) });
  const count = (n: string) =>
    int(ops.filter((o) => (o.entries.find(([k]) => (k as { name: string }).name === ':op')![1] as { name: string }).name === n).length);
  const report = kwMap({
    kind: str('genesis/patch-diff-v0.1'),
    profile: str('genesis/patch-authority-v0.1'),
    v: int(1),
    ok: { kind: 'bool', value: true },
    'request-h': str(hashTerm(request)),
    'base-h': str(workspaceHash(base)),
    'target-h': str(workspaceHash(target)),
    patch,
    'patch-h': str(hashTerm(patch)),
    'op-count': int(ops.length),
    'op-identities': vec(ops.map((o, i) => kwMap({ ordinal: int(i), 'op-h': str(hashTerm(o)) }))),
    stats: kwMap({ additions: count(':add-module'), removals: count(':remove-module'), replacements: count(':replace-node') }),
  });
  return { request, report };
}

describe('diff verifier', () => {
  const base = ws({ 'a.gc': '(def x 1)(def y 2)', 'b.gc': '(def z 1)' });
  const target = ws({ 'a.gc': '(def x 9)(def y 8)', 'b.gc': '(def z 1)(def w 2)' });
  const fails = (ops: MapTerm[], message: RegExp, t: Workspace = target) => {
    const { request, report } = forge(base, t, ops);
    expect(() => verifyDiffReport(request, report)).toThrow(message);
  };

  it('accepts the forged report of the producer’s own ops', () => {
    const { request, report } = forge(base, target, [
      replace('a.gc', 0, form('(def x 9)')),
      replace('a.gc', 1, form('(def y 8)')),
      remove('b.gc'),
      add('b.gc', '(def z 1)(def w 2)'),
    ]);
    expect(() => verifyDiffReport(request, report)).not.toThrow();
  });
  it('rejects descending form indices', () => {
    fails([replace('a.gc', 1, form('(def y 8)')), replace('a.gc', 0, form('(def x 9)')), remove('b.gc'), add('b.gc', '(def z 1)(def w 2)')], /not ascending/);
  });
  it('rejects duplicate replace-node ops', () => {
    fails(
      [
        replace('a.gc', 0, form('(def x 7)')),
        replace('a.gc', 0, form('(def x 9)')),
        replace('a.gc', 1, form('(def y 8)')),
        remove('b.gc'),
        add('b.gc', '(def z 1)(def w 2)'),
      ],
      /duplicate/,
    );
  });
  it('rejects module paths out of order', () => {
    fails([remove('b.gc'), add('b.gc', '(def z 1)(def w 2)'), replace('a.gc', 0, form('(def x 9)')), replace('a.gc', 1, form('(def y 8)'))], /ascending order/);
  });
  it('rejects a no-op replace-node', () => {
    const t = ws({ 'a.gc': '(def x 9)(def y 2)', 'b.gc': '(def z 1)' });
    fails([replace('a.gc', 0, form('(def x 9)')), replace('a.gc', 1, form('(def y 2)'))], /no-op/, t);
  });
  it('rejects a remove/add pair that keeps the form count (must be replace-node)', () => {
    fails([remove('a.gc'), add('a.gc', '(def x 9)(def y 8)'), remove('b.gc'), add('b.gc', '(def z 1)(def w 2)')], /keeps 2 top forms/);
  });
  it('rejects overlapping ops on one module', () => {
    fails([replace('a.gc', 0, form('(def x 9)')), replace('a.gc', 1, form('(def y 8)')), add('b.gc', '(def q 1)'), remove('b.gc')], /overlapping/);
  });
  it('rejects an unpaired remove of a module the target keeps', () => {
    fails([replace('a.gc', 0, form('(def x 9)')), replace('a.gc', 1, form('(def y 8)')), remove('b.gc')], /without a paired/);
  });
  it('rejects ops that do not reconstruct the target', () => {
    fails([replace('a.gc', 0, form('(def x 9)')), remove('b.gc'), add('b.gc', '(def z 1)(def w 2)')], /does not reproduce a.gc/);
  });
  it('rejects an out-of-range form index and a deeper path', () => {
    fails([replace('a.gc', 5, form('(def x 9)'))], /out of range/);
    const deep = kwMap({ op: kw('replace-node'), 'module-path': str('a.gc'), path: vec([vec([kw('form'), int(0)]), vec([kw('pair-car')])]), new: form('x') });
    fails([deep], /exactly \[\[:form i\]\]/);
  });
  it('reports a malformed op as a verification failure (exit 50), not invalid input', () => {
    const extra = kwMap({ op: kw('remove-module'), 'module-path': str('b.gc'), note: str('x') });
    const { request, report } = forge(base, target, [extra]);
    expect(() => verifyDiffReport(request, report)).toThrow(expect.objectContaining({ code: 'diff/verify-failed', exitCode: 50 }));
  });
  it('rejects an op kind outside diff’s three', () => {
    fails([kwMap({ op: kw('rename-symbol'), 'module-path': str('a.gc'), from: str('x'), to: str('y') })], /op must be/);
  });
});
