/** Format-preserving apply (docs/patches.md "How apply writes modules"): exact expected bytes per op (fixtures/render/cases.json). */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { canonicalizeSource, canonicalizeSourceSpans } from '../../../src/coreform/canon.js';
import { hashModule } from '../../../src/coreform/hash.js';
import { printModule } from '../../../src/coreform/print.js';
import { readTerm } from '../../../src/coreform/read.js';
import { applyOpsInMemory } from '../../../src/patch/ops/apply-ops.js';
import { normalizePatch } from '../../../src/patch/protocol/normalize.js';
import { ModuleRenderer } from '../../../src/patch/render/render.js';
import { packageStateFromSources } from '../../../src/patch/protocol/state.js';
import { FIXTURES } from '../helpers.js';

interface Case {
  name: string;
  before: string;
  op: string;
  extra: string[];
  expected: Record<string, { mode: string; text: string }>;
}

const CASES = JSON.parse(readFileSync(join(FIXTURES, 'render', 'cases.json'), 'utf8')) as Case[];
const MANIFEST = `schema = 1\nname = "p"\nversion = "1.0.0"\nobligations = []\n\n[[modules]]\npath = "a.gc"\n`;
const enc = new TextEncoder();
const dec = new TextDecoder();

function run(before: string, op: string) {
  const state = packageStateFromSources(MANIFEST, { 'a.gc': before });
  return applyOpsInMemory(state, normalizePatch(readTerm(`{:version 1 :intent "" :provenance {} :ops [${op}]}`))).state;
}

describe('format-preserving rendering: fixtures with exact bytes', () => {
  it('covers every module-editing op', () => {
    const ops = new Set(CASES.map((c) => /:op :([a-z-]+)/.exec(c.op)![1]));
    for (const op of [
      'rename-symbol',
      'replace-node',
      'split-module',
      'rewrite-imports',
      'rewrite-exports',
      'migrate-contract-signature',
      'move-module',
      'add-module',
    ]) {
      expect(ops).toContain(op);
    }
  });
  for (const c of CASES) {
    const { name } = c;
    it(name, () => {
      const after = run(c.before, c.op);
      const renderer = new ModuleRenderer(new Map([['a.gc', enc.encode(c.before)], ...c.extra.map((p) => [p, undefined] as [string, undefined])]));
      expect([...after.modules.keys()].sort()).toEqual(Object.keys(c.expected).sort());
      // the same renderer given the apply's own read of the original (one reader pass for both)
      const original = enc.encode(c.before);
      const seeded = new ModuleRenderer(
        new Map([['a.gc', original], ...c.extra.map((p) => [p, undefined] as [string, undefined])]),
        new Map([['a.gc', canonicalizeSourceSpans(original)]]),
      );
      for (const [path, forms] of after.modules) {
        const r = renderer.render(path, forms);
        expect(r.fallback).toBeUndefined();
        expect({ mode: r.mode, text: dec.decode(r.bytes) }).toEqual(c.expected[path]);
        expect(r.readBack).toBe(true);
        expect(hashModule(canonicalizeSource(r.bytes))).toBe(hashModule(forms));
        expect(seeded.render(path, forms)).toEqual(r);
        // --canonical gives the reference's whole-module print of the same forms.
        const canonical = renderer.render(path, forms, { canonical: true });
        expect(dec.decode(canonical.bytes)).toBe(printModule(forms));
        expect(canonical.mode).toBe('canonical');
        expect(canonical.readBack).toBe(false);
      }
    });
  }

  it('a replaced node inside a hand-formatted form is re-indented to where it stands', () => {
    const c = CASES.find((x) => x.name.startsWith('replace-node'))!;
    const lines = c.expected['a.gc']!.text.split('\n');
    expect(lines[3]).toBe('    (if (p::long-predicate-name args)');
    expect(lines[4]!.startsWith('      ')).toBe(true);
  });

  it('falls back to canonical print, and says why, when the edited text would not read back', () => {
    // `"s"x` is two forms; replacing the string by the symbol y would make one symbol `yx`.
    const before = '"s"x\n';
    const after = run(before, '{:op :replace-node :module-path "a.gc" :path [[:form 0]] :new y}');
    const r = new ModuleRenderer(new Map([['a.gc', enc.encode(before)]])).render('a.gc', after.modules.get('a.gc')!);
    expect(r.mode).toBe('canonical');
    expect(r.fallback).toMatch(/reads back as 1 forms, not 2/);
    expect(r.readBack).toBe(false);
    expect(dec.decode(r.bytes)).toBe('y\n\nx\n');
  });

  it('a read given for other bytes than the original is not used', () => {
    const before = enc.encode('; c\n(def p::x 1)\n');
    const after = run('; c\n(def p::x 1)\n', '{:op :rename-symbol :module-path "a.gc" :from p::x :to p::y}');
    const stale = canonicalizeSourceSpans('(def p::z 2)\n');
    const r = new ModuleRenderer(new Map([['a.gc', before]]), new Map([['a.gc', stale]])).render('a.gc', after.modules.get('a.gc')!);
    expect([r.mode, dec.decode(r.bytes)]).toEqual(['preserved', '; c\n(def p::y 1)\n']);
  });

  it('a module whose forms did not change keeps its bytes (CRLF and all)', () => {
    const before = '; c\r\n(def p::x 1)\r\n';
    const r = new ModuleRenderer(new Map([['a.gc', enc.encode(before)]])).render('a.gc', canonicalizeSource(before));
    expect(r.mode).toBe('kept');
    expect(dec.decode(r.bytes)).toBe(before);
  });
});

describe('format-preserving rendering: deep input', () => {
  it('a form nested deeper than MAX_EDIT_DEPTH (3,000 levels) is printed canonically, only that form', () => {
    const depth = 3_000;
    const before = `;; keep me\n(def p::x 1) ; one\n\n(def p::deep ${'['.repeat(depth)}p::x${']'.repeat(depth)})\n`;
    const after = run(before, '{:op :rename-symbol :module-path "a.gc" :from p::x :to "p::y"}');
    const r = new ModuleRenderer(new Map([['a.gc', enc.encode(before)]])).render('a.gc', after.modules.get('a.gc')!);
    expect(r.fallback).toBeUndefined();
    expect(r.mode).toBe('preserved');
    expect(r.canonicalForms).toBe(1);
    const text = dec.decode(r.bytes);
    expect(text.startsWith(';; keep me\n(def p::y 1) ; one\n\n(def p::deep')).toBe(true);
    expect(hashModule(canonicalizeSource(r.bytes))).toBe(hashModule(after.modules.get('a.gc')!));
  });

  it('a moderately deep form (500 levels) is still edited in place', () => {
    const before = `(def p::deep ${'['.repeat(500)}p::x ; here\n${']'.repeat(500)})\n`;
    const after = run(before, '{:op :rename-symbol :module-path "a.gc" :from p::x :to "p::y"}');
    const r = new ModuleRenderer(new Map([['a.gc', enc.encode(before)]])).render('a.gc', after.modules.get('a.gc')!);
    expect(dec.decode(r.bytes)).toBe(before.replace('p::x', 'p::y'));
  });
});
