import { describe, expect, it } from 'vitest';
import { printTerm } from '../../../src/coreform/print.js';
import { readTerm } from '../../../src/coreform/read.js';
import { kw, kwMap, mapGet, NIL, str, vec, type MapTerm, type Term } from '../../../src/coreform/term.js';
import { normalizePatch } from '../../../src/patch/protocol/normalize.js';
import { opReferencedPaths, preflightReport, preflightRequest, type PathStateRecord } from '../../../src/patch/protocol/preflight.js';
import { verifyPreflightReport } from '../../../src/patch/protocol/preflight-verify.js';
import { codeOf } from '../helpers.js';

const plan = (ops: string) => normalizePatch(readTerm(`{:version 1 :intent "" :provenance {} :ops [${ops}]}`));
const OPS = `{:op :add-module :module-path "n.gc" :content ""}
  {:op :rename-symbol :module-path "n.gc" :from a :to b}
  {:op :move-module :from-module-path "a.gc" :to-module-path "m.gc"}
  {:op :split-module :from-module-path "m.gc" :to-module-path "s.gc" :symbols [x]}
  {:op :update-manifest}
  {:op :remove-module :module-path "s.gc"}`;

describe('preflight (docs/reference/patch-protocols.md §3.6)', () => {
  const p = plan(OPS);
  const states: PathStateRecord[] = [
    { path: 'a.gc', state: 'file' },
    { path: 'm.gc', state: 'absent' },
    { path: 'n.gc', state: 'absent' },
    { path: 's.gc', state: 'absent' },
  ];
  it('references every op path, sorted', () => {
    expect(opReferencedPaths(p.ops)).toEqual(['a.gc', 'm.gc', 'n.gc', 's.gc']);
  });
  it('walks the virtual state in op order', () => {
    const request = preflightRequest(p.normalized, states);
    const report = preflightReport(request);
    expect(mapGet(report, kw('ok'))).toEqual({ kind: 'bool', value: true });
    expect(mapGet(report, kw('conflict'))).toEqual(NIL);
    expect((mapGet(report, kw('checks')) as unknown as { items: unknown[] }).items.length).toBe(7);
    expect(printTerm(mapGet(report, kw('final-path-states'))!).replace(/\s+/g, ' ')).toBe(
      '[ {:path "a.gc" :state "absent"} {:path "m.gc" :state "file"} {:path "n.gc" :state "file"} {:path "s.gc" :state "absent"}]',
    );
    expect(verifyPreflightReport(request, report)).toMatchObject({ ok: true, checkCount: 7 });
  });
  it('stops at the first conflict', () => {
    const request = preflightRequest(
      p.normalized,
      states.map((s) => (s.path === 'm.gc' ? { ...s, state: 'file' as const } : s)),
    );
    const report = preflightReport(request);
    expect(printTerm(mapGet(report, kw('conflict'))!)).toBe(
      '{\n  :actual "file"\n  :code "patch/path-state-conflict"\n  :expected "absent"\n  :op :move-module\n  :ordinal 2\n  :path "m.gc"}',
    );
    expect(verifyPreflightReport(request, report)).toMatchObject({ ok: false, conflict: { ordinal: 2, path: 'm.gc' } });
  });
  it('an unbound path is a conflict with actual "unbound"', () => {
    const request = preflightRequest(
      p.normalized,
      states.filter((s) => s.path !== 'n.gc'),
    );
    expect(verifyPreflightReport(request, preflightReport(request)).conflict).toMatchObject({ actual: 'unbound', path: 'n.gc' });
  });
  it('rejects unsorted path states and non-normalized patches', () => {
    const request = preflightRequest(p.normalized, states);
    const unsorted = kwMap({
      ...Object.fromEntries(request.entries.map(([k, v]) => [(k as { name: string }).name.slice(1), v])),
      'path-states': vec([...(mapGet(request, kw('path-states')) as unknown as { items: Term[] }).items].reverse()),
    });
    expect(codeOf(() => preflightReport(unsorted))).toBe('patch/wrong-value');
    const raw = readTerm('{:version 1 :intent "" :provenance {} :ops [{:op :update-manifest}]}');
    expect(codeOf(() => preflightReport(preflightRequest(raw as MapTerm, [])))).toBe('patch/wrong-value');
  });
  describe('the verifier rejects tampered reports', () => {
    const request = preflightRequest(p.normalized, states);
    const good = preflightReport(request);
    const edit = (k: string, v: Term): Term =>
      kwMap({ ...Object.fromEntries(good.entries.map(([key, val]) => [(key as { name: string }).name.slice(1), val])), [k]: v });
    const cases: [string, Term][] = [
      ['dropped check', edit('checks', vec((mapGet(good, kw('checks')) as unknown as { items: Term[] }).items.slice(1)))],
      ['ok flipped', edit('ok', { kind: 'bool', value: false })],
      ['wrong patch-h', edit('patch-h', str('0'.repeat(64)))],
      ['wrong path-states-h', edit('path-states-h', str('0'.repeat(64)))],
      ['invented conflict', edit('conflict', kwMap({ code: str('patch/path-state-conflict') }))],
      ['extra field', edit('extra', NIL)],
      ['wrong final states', edit('final-path-states', vec([]))],
    ];
    for (const [name, report] of cases) {
      it(name, () => expect(codeOf(() => verifyPreflightReport(request, report))).toBe('patch/report-mismatch'));
    }
  });
});
