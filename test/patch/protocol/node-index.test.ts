import { describe, expect, it } from 'vitest';
import { canonicalizeSource } from '../../../src/coreform/canon.js';
import { hashModule, hashTerm, semanticNodeId } from '../../../src/coreform/hash.js';
import { printTerm } from '../../../src/coreform/print.js';
import { readTerm } from '../../../src/coreform/read.js';
import { int, kw, kwMap, mapGet, str, vec, type Term } from '../../../src/coreform/term.js';
import { verifyNodeIndexReport } from '../../../src/patch/protocol/node-index-verify.js';
import { nodeIndexRecords, nodeIndexReport, nodeIndexRequest, resolveNodeId } from '../../../src/patch/protocol/node-index.js';
import { pathTerm } from '../../../src/patch/protocol/path.js';
import { codeOf } from '../helpers.js';

// main.gc of docs/reference/package-toml.md §6 item 2: a ::meta form, (def canonical/patch::value 1), the symbol.
const MAIN = canonicalizeSource(`(def ::meta '{:exports [canonical/patch::value]})\n(def canonical/patch::value 1)\ncanonical/patch::value\n`);

describe('node index (GenesisCode `docs/spec/PATCH_SCHEMA.md` "Stable Node IDs", docs/reference/patch-protocols.md §3.3)', () => {
  const records = nodeIndexRecords('main.gc', MAIN);
  it('ids match the §2 vectors', () => {
    const byRepr = new Map(records.map((r) => [r.pathRepr, r]));
    const literal = byRepr.get('[\n  [:form 1]\n  [:pair-cdr]\n  [:pair-cdr]\n  [:pair-car]]')!;
    expect(literal.nodeId).toBe('aa6e400ccab85383b39a032955e3025cd4e9f16207219f1076241861dc9f9a01');
    expect(literal.termTag).toBe('int');
    expect(literal.termH).toBe(hashTerm(int(1)));
    expect(byRepr.get('[\n  [:form 0]]')!.nodeId).toBe('edb76fec26d9bf63dbf862e13d48d54792b1fb26cc33343d1ca1309e9885e681');
  });
  it('is a complete preorder: pair, car subtree, cdr subtree (tails and nil included); map values by key order', () => {
    const recs = nodeIndexRecords('m.gc', [readTerm('(a {:y 2 :x 1} [b])')]);
    expect(recs.map((r) => `${r.termTag}:${printTerm(pathTerm(r.path)).replace(/\s+/g, '')}`)).toEqual([
      'pair:[[:form0]]',
      'sym:[[:form0][:pair-car]]',
      'pair:[[:form0][:pair-cdr]]',
      'map:[[:form0][:pair-cdr][:pair-car]]',
      'int:[[:form0][:pair-cdr][:pair-car][:map:x]]',
      'int:[[:form0][:pair-cdr][:pair-car][:map:y]]',
      'pair:[[:form0][:pair-cdr][:pair-cdr]]',
      'vec:[[:form0][:pair-cdr][:pair-cdr][:pair-car]]',
      'sym:[[:form0][:pair-cdr][:pair-cdr][:pair-car][:vec0]]',
      'nil:[[:form0][:pair-cdr][:pair-cdr][:pair-cdr]]',
    ]);
    for (const r of recs) expect(r.nodeId).toBe(semanticNodeId('m.gc', pathTerm(r.path)));
  });
  it('incremental ids agree with the direct formula for long map keys (multi-line steps)', () => {
    const key = str('k'.repeat(120));
    const recs = nodeIndexRecords('m.gc', [vec([kwMap({ a: int(1) }), { kind: 'map', entries: [[key, int(2)]] }])]);
    for (const r of recs) expect(r.nodeId).toBe(semanticNodeId('m.gc', pathTerm(r.path)));
  });
  it('resolves ids; unknown ids fail', () => {
    expect(resolveNodeId('main.gc', MAIN, 'aa6e400ccab85383b39a032955e3025cd4e9f16207219f1076241861dc9f9a01').map((s) => s.tag)).toEqual([
      'form',
      'pair-cdr',
      'pair-cdr',
      'pair-car',
    ]);
    expect(codeOf(() => resolveNodeId('main.gc', MAIN, 'f'.repeat(64)))).toBe('patch/unknown-node-id');
    // the same path in another module is a different id
    expect(codeOf(() => resolveNodeId('other.gc', MAIN, 'aa6e400ccab85383b39a032955e3025cd4e9f16207219f1076241861dc9f9a01'))).toBe('patch/unknown-node-id');
  });
  // 25,000 elements: over twice the ~11,400 frames the simplest recursive function reaches on Node 20's
  // default stack, so any walk that recursed per level would overflow. 100,000 levels: bench/scale.js.
  it('handles deep terms without recursion (25,000-element list)', () => {
    const long = readTerm(`(${'x '.repeat(25_000)})`);
    const last = resolveNodeId('d.gc', [long], semanticNodeId('d.gc', vec([vec([kw('form'), int(0)]), ...Array(25_000).fill(vec([kw('pair-cdr')]))])));
    expect(last.length).toBe(25_001);
  });
  it('the closed report', () => {
    const report = nodeIndexReport(nodeIndexRequest('main.gc', MAIN));
    expect(report.entries.map(([k]) => (k as { name: string }).name)).toEqual([':kind', ':module-h', ':module-path', ':nodes', ':ok', ':profile', ':v']);
    expect(mapGet(report, kw('module-h'))).toEqual(str(hashModule(MAIN)));
    const nodes = mapGet(report, kw('nodes')) as unknown as { items: unknown[] };
    expect(nodes.items.length).toBe(records.length);
    const first = nodes.items[0] as never;
    expect((first as { entries: [{ name: string }][] }).entries.map(([k]) => k.name)).toEqual([
      ':module-path',
      ':node-id',
      ':path',
      ':path-repr',
      ':term-h',
      ':term-tag',
    ]);
    expect(codeOf(() => nodeIndexReport(nodeIndexRequest('../x.gc', MAIN)))).toBe('patch/non-portable-path');
  });
});

describe('node-index report verifier', () => {
  const request = nodeIndexRequest('main.gc', MAIN);
  const good = nodeIndexReport(request);
  const nodes = (mapGet(good, kw('nodes')) as unknown as { items: Term[] }).items;
  const withNodes = (items: Term[]) =>
    ({ kind: 'map', entries: good.entries.map(([k, v]) => [k, (k as { name: string }).name === ':nodes' ? vec(items) : v]) }) as Term;
  it('accepts the producer report', () => {
    expect(verifyNodeIndexReport(request, good).length).toBe(nodes.length);
  });
  it('rejects missing, reordered, duplicated or mistagged inventory', () => {
    expect(codeOf(() => verifyNodeIndexReport(request, withNodes(nodes.slice(1))))).toBe('patch/report-mismatch');
    expect(codeOf(() => verifyNodeIndexReport(request, withNodes([nodes[1]!, nodes[0]!, ...nodes.slice(2)])))).toBe('patch/report-mismatch');
    const dup = (n: Term, id: Term) =>
      ({
        kind: 'map',
        entries: (n as unknown as { entries: [Term, Term][] }).entries.map(([k, v]) => [k, (k as { name: string }).name === ':node-id' ? id : v]),
      }) as Term;
    const firstId = mapGet(nodes[0] as never, kw('node-id'))!;
    expect(codeOf(() => verifyNodeIndexReport(request, withNodes([nodes[0]!, dup(nodes[1]!, firstId), ...nodes.slice(2)])))).toBe('patch/report-mismatch');
    const retag = {
      kind: 'map',
      entries: (nodes[0] as unknown as { entries: [Term, Term][] }).entries.map(([k, v]) => [k, (k as { name: string }).name === ':term-tag' ? str('int') : v]),
    } as Term;
    expect(codeOf(() => verifyNodeIndexReport(request, withNodes([retag, ...nodes.slice(1)])))).toBe('patch/report-mismatch');
    expect(codeOf(() => verifyNodeIndexReport(nodeIndexRequest('other.gc', MAIN), good))).toBe('patch/report-mismatch');
  });
});
