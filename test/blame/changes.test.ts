// semanticChanges and the form keys, pure (no git): a scored table of before/after packages, and a
// property: reformatting and comments are never a change.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalizeSource } from '../../src/coreform/canon.js';
import { semanticChanges, touchesModule, touchesSymbol, type SemanticChange } from '../../src/blame/changes.js';
import type { CommitPackageSnapshot, Relocation } from '../../src/blame/evidence.js';
import { keyedForms, metaLists } from '../../src/blame/forms.js';
import { parseManifest } from '../../src/workspace/manifest.js';
import { parseManifestTable } from '../../src/workspace/manifest-write.js';

/** A snapshot from module texts (manifest order = object order) and extra manifest lines. */
function pkg(modules: Record<string, string>, extra = ''): CommitPackageSnapshot {
  const manifestText =
    `name = "p"\nversion = "0.1.0"\nobligations = []\n${extra}` +
    Object.keys(modules)
      .map((m) => `\n[[modules]]\npath = "${m}"\n`)
      .join('');
  const list = Object.entries(modules).map(([path, text]) => {
    const forms = canonicalizeSource(text);
    return { path, file: path, bytes: new TextEncoder().encode(text), forms, hash: '', pin: undefined };
  });
  return {
    commit: '0'.repeat(40),
    dir: '',
    manifestPath: 'package.toml',
    manifestText,
    manifest: parseManifest(manifestText),
    table: parseManifestTable(manifestText),
    policies: new Map(),
    modules: list,
    byPath: new Map(list.map((m) => [m.path, m])),
  };
}

const META_A = "(def ::meta '{:caps [] :imports [p/b::x] :exports [p/a::f p/a::g]})\n";
const A = `${META_A}(def p/a::f (fn (x) x))\n(def p/a::g 1)\n(p/a::f 2)\n`;
const B = "(def ::meta '{:caps [] :exports [p/b::x]})\n(def p/b::x 3)\n";

const rename = (from: string, to: string, refactorKind = 'rename', target = ''): Relocation => ({ refactorKind, from, to, target, address: 'a'.repeat(64) });

const cases: {
  name: string;
  before: Record<string, string>;
  after: Record<string, string>;
  extra?: [string, string];
  relocations?: Relocation[];
  expected: SemanticChange[];
}[] = [
  { name: 'nothing', before: { 'a.gc': A }, after: { 'a.gc': A }, expected: [] },
  { name: 'a reformat and a comment', before: { 'a.gc': A }, after: { 'a.gc': `; note\n${A.replace('(fn (x) x)', '(fn (x)\n   x)')}` }, expected: [] },
  {
    name: 'a changed definition',
    before: { 'a.gc': A },
    after: { 'a.gc': A.replace('(def p/a::g 1)', '(def p/a::g 2)') },
    expected: [{ kind: 'changed', module: 'a.gc', key: 'def:p/a::g', symbol: 'p/a::g' }],
  },
  {
    name: 'an added and a removed definition',
    before: { 'a.gc': A },
    after: { 'a.gc': A.replace('(def p/a::g 1)', '(def p/a::h 1)') },
    expected: [
      { kind: 'removed', module: 'a.gc', key: 'def:p/a::g', symbol: 'p/a::g' },
      { kind: 'added', module: 'a.gc', key: 'def:p/a::h', symbol: 'p/a::h' },
    ],
  },
  {
    name: 'a rename by evidence',
    before: { 'a.gc': A },
    after: { 'a.gc': A.replace('(def p/a::g 1)', '(def p/a::h 1)') },
    relocations: [rename('p/a::g', 'p/a::h')],
    expected: [{ kind: 'renamed', module: 'a.gc', symbol: 'p/a::h', from: { symbol: 'p/a::g', module: 'a.gc' }, byEvidence: true }],
  },
  {
    name: 'a move by evidence into a new module',
    before: { 'a.gc': A },
    after: { 'a.gc': A.replace('(def p/a::g 1)\n', ''), 'c.gc': '(def p/c::g 1)\n' },
    relocations: [rename('p/a::g', 'p/c::g', 'move', 'c.gc')],
    expected: [
      { kind: 'module-added', module: 'c.gc', symbols: ['p/c::g'] },
      { kind: 'manifest', keys: ['modules'] },
      { kind: 'moved', module: 'c.gc', symbol: 'p/c::g', from: { symbol: 'p/a::g', module: 'a.gc' }, byEvidence: true },
    ],
  },
  {
    name: 'a definition moved by hand, keeping its symbol',
    before: { 'a.gc': A, 'b.gc': B },
    after: { 'a.gc': A.replace('(def p/a::g 1)\n', ''), 'b.gc': `${B}(def p/a::g 1)\n` },
    expected: [{ kind: 'moved', module: 'b.gc', symbol: 'p/a::g', from: { symbol: 'p/a::g', module: 'a.gc' }, byEvidence: false }],
  },
  {
    name: '::meta exports, imports and caps, set-wise',
    before: { 'a.gc': A },
    after: { 'a.gc': A.replace(META_A, "(def ::meta '{:caps [io/print] :imports [] :exports [p/a::g p/a::f p/a::k]})\n") },
    expected: [
      { kind: 'caps', module: 'a.gc', added: ['io/print'], removed: [] },
      { kind: 'exports', module: 'a.gc', added: ['p/a::k'], removed: [] },
      { kind: 'imports', module: 'a.gc', added: [], removed: ['p/b::x'] },
    ],
  },
  {
    name: 'another ::meta key',
    before: { 'a.gc': A },
    after: { 'a.gc': A.replace(':caps []', ':caps [] :types {p/a::f ?}') },
    expected: [{ kind: 'changed', module: 'a.gc', key: 'meta', symbol: '::meta' }],
  },
  {
    name: 'a top-level expression',
    before: { 'a.gc': A },
    after: { 'a.gc': A.replace('(p/a::f 2)', '(p/a::f 3)') },
    expected: [{ kind: 'changed', module: 'a.gc', key: 'form:0', symbol: undefined }],
  },
  {
    name: 'a module added and one removed, manifest keys',
    before: { 'a.gc': A },
    after: { 'b.gc': B },
    extra: ['', 'tests = ["p/b::x"]\n'],
    expected: [
      { kind: 'module-added', module: 'b.gc', symbols: ['p/b::x'] },
      { kind: 'module-removed', module: 'a.gc', symbols: ['p/a::f', 'p/a::g'] },
      { kind: 'manifest', keys: ['modules', 'tests'] },
    ],
  },
];

describe('semanticChanges', () => {
  for (const c of cases) {
    const { name } = c;
    it(name, () => {
      const before = pkg(c.before, c.extra?.[0]);
      const after = pkg(c.after, c.extra?.[1]);
      expect(semanticChanges(before, after, c.relocations ?? [])).toEqual(c.expected);
    });
  }

  it('filters by module (either side of a move) and by symbol (old or new name)', () => {
    const moved: SemanticChange = { kind: 'moved', module: 'c.gc', symbol: 'p/c::g', from: { symbol: 'p/a::g', module: 'a.gc' }, byEvidence: true };
    expect([touchesModule(moved, 'a.gc'), touchesModule(moved, 'c.gc'), touchesModule(moved, 'b.gc')]).toEqual([true, true, false]);
    expect([touchesSymbol(moved, 'p/a::g'), touchesSymbol(moved, 'p/c::g'), touchesSymbol(moved, 'p/b::x')]).toEqual([true, true, false]);
    expect(touchesSymbol({ kind: 'exports', module: 'a.gc', added: ['p/a::k'], removed: [] }, 'p/a::k')).toBe(true);
    expect(touchesModule({ kind: 'manifest', keys: ['version'] }, 'a.gc')).toBe(false);
  });

  it('never reports a change for whitespace and comments (property)', () => {
    const gap = fc.constantFrom(' ', '\n', '  ', '\n\n', ' ; a comment\n', '\t');
    fc.assert(
      fc.property(fc.array(gap, { minLength: 8, maxLength: 8 }), (gaps) => {
        let i = 0;
        const spaced = A.replace(/ /g, () => gaps[i++ % gaps.length]!);
        const before = pkg({ 'a.gc': A });
        const after = pkg({ 'a.gc': `; header\n${spaced}` });
        return semanticChanges(before, after, []).length === 0;
      }),
      { numRuns: 100 },
    );
  });
});

describe('form keys', () => {
  it('keys definitions by symbol, ::meta as meta, other forms by place; repeats get #2', () => {
    const forms = canonicalizeSource(`${A}(def p/a::g 2)\n(p/a::g)\n`);
    expect(keyedForms(forms).map((f) => [f.index, f.key, f.symbol])).toEqual([
      [0, 'meta', '::meta'],
      [1, 'def:p/a::f', 'p/a::f'],
      [2, 'def:p/a::g', 'p/a::g'],
      [3, 'form:0', undefined],
      [4, 'def:p/a::g#2', 'p/a::g'],
      [5, 'form:1', undefined],
    ]);
  });

  it('reads the ::meta symbol lists, quoted or bare', () => {
    expect(metaLists(canonicalizeSource(META_A)[0])).toEqual({ exports: ['p/a::f', 'p/a::g'], imports: ['p/b::x'], caps: [] });
    expect(metaLists(canonicalizeSource('(def ::meta {:exports [p/a::f]})')[0])).toEqual({ exports: ['p/a::f'], imports: [], caps: [] });
    expect(metaLists(canonicalizeSource('(def p/a::f 1)')[0])).toEqual({ exports: [], imports: [], caps: [] });
  });
});
