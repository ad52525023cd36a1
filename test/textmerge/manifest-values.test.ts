/**
 * docs/driver.md "The `package.toml` driver": the package.toml driver keeps every TOML value (quoted `"__proto__"`, `-0.0`,
 * signed `nan`, `inf`, dates and times, integers beyond 2^53), matches `[[modules]]` linearly and
 * stays within its time budget (20,000 and 60,000 modules), and a fast-check fuzz: every clean
 * result holds both sides' changes.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { hasLossySpelling, MANIFEST_UNSUPPORTED, mergeManifestText, parseManifestTable, tomlEqual } from '../../src/textmerge/manifest.js';
import { gitMergeBytes } from '../../src/textmerge/line-based.js';
import { mergeFileBytes, modifiedAndRemovedEntry } from '../../src/textmerge/driver.js';
import { isGcError } from '../../src/util/errors.js';
import { isTomlTable } from '../../src/workspace/manifest-write.js';
import { dec, enc } from './bytes.js';

const markers = { markerSize: 7, style: 'merge' as const, oursLabel: 'ours', baseLabel: 'base', theirsLabel: 'theirs' };

/** The driver's decision on three texts, with `git merge-file` as its line merge. */
function drive(base: string, ours: string, theirs: string, timeoutMs?: number) {
  const [b, o, t] = [enc(base), enc(ours), enc(theirs)];
  const r = mergeFileBytes(b, o, t, { mode: 'manifest', markers, ...(timeoutMs !== undefined ? { timeoutMs } : {}) }, () => gitMergeBytes(b, o, t, markers));
  // `result === undefined` means "keep ours as it is" (trivial merges, kept-ours).
  return { ...r, text: r.result === undefined ? ours : dec(r.result) };
}

const HEAD = 'name = "demo"\nversion = "0.1.0"\n';

describe('manifest driver: values that read as another value', () => {
  it('keeps a quoted "__proto__" key theirs added (line layout and reference layout)', () => {
    const base = `${HEAD}schema = 1\n`;
    // Non-adjacent: the line merge is clean.
    const far = drive(base, base.replace('"demo"', '"demo2"'), `${base}"__proto__" = "kept"\n`);
    expect(far.exitCode).toBe(0);
    const t1 = parseManifestTable(enc(far.text));
    expect(Object.hasOwn(t1, '__proto__')).toBe(true);
    expect(t1['__proto__']).toBe('kept');
    // Adjacent changes: the line merge conflicts, the reference writer must keep the key.
    const r = mergeManifestText(
      enc(base),
      enc(base.replace('schema = 1', 'schema = 2')),
      enc(`${base.replace('version = "0.1.0"', 'version = "0.2.0"')}"__proto__" = { a = 1 }\n`),
    );
    expect(r.layout).toBe('reference');
    const t2 = parseManifestTable(r.text);
    expect(Object.hasOwn(t2, '__proto__')).toBe(true);
    expect(tomlEqual(t2['__proto__'], parseManifestTable(enc('a = 1')))).toBe(true);
    expect(t2['schema']).toBe(2n);
    expect(t2['version']).toBe('0.2.0');
    // A "__proto__" table inside a module entry and in a sub-table.
    const mb = `${HEAD}\n[[modules]]\nhash = ""\npath = "a.gc"\n`;
    const mt = mergeManifestText(enc(mb), enc(mb.replace('"0.1.0"', '"0.3.0"')), enc(`${mb}"__proto__" = "x"\n`));
    const mods = parseManifestTable(mt.text)['modules'] as Record<string, unknown>[];
    expect(Object.hasOwn(mods[0]!, '__proto__')).toBe(true);
  });

  it('-0.0: a change from 0.0 is a change; exit 0 only with -0.0 in the result', () => {
    const base = `${HEAD}x = 0.0\ny = 1\n`;
    const far = drive(base, base.replace('"demo"', '"d2"'), base.replace('x = 0.0', 'x = -0.0'));
    expect(far.exitCode).toBe(0);
    expect(Object.is(parseManifestTable(enc(far.text))['x'], -0)).toBe(true);
    // Adjacent to ours' change: the reference writer would print 0.0, so it is refused and the
    // line merge decides (here: a conflict, with both sides in the markers).
    const near = drive(base, base.replace('y = 1', 'y = 2'), base.replace('x = 0.0', 'x = -0.0'));
    const kept = near.exitCode === 0 ? Object.is(parseManifestTable(enc(near.text))['x'], -0) : near.text.includes('x = -0.0');
    expect(kept, `exit ${near.exitCode}: -0.0 is lost\n${near.text}`).toBe(true);
    expect(() => mergeManifestText(enc(base), enc(base.replace('y = 1', 'y = 2')), enc(base.replace('x = 0.0', 'x = -0.0')))).toThrow(
      expect.objectContaining({ code: MANIFEST_UNSUPPORTED }),
    );
  });

  it('nan → -nan (and +nan) is not lost', () => {
    for (const spelling of ['-nan', '+nan']) {
      const base = `${HEAD}x = nan\ny = 1\n`;
      const far = drive(base, base.replace('"demo"', '"d2"'), base.replace('x = nan', `x = ${spelling}`));
      expect(far.exitCode).toBe(0);
      expect(far.text).toContain(`x = ${spelling}\n`);
      expect(far.text).toContain('name = "d2"');
      const near = drive(base, base.replace('y = 1', 'y = 2'), base.replace('x = nan', `x = ${spelling}`));
      expect(near.text).toContain(`x = ${spelling}\n`);
      expect(near.exitCode !== 0 || near.text.includes('y = 2'), `exit 0 without ours' y = 2\n${near.text}`).toBe(true);
    }
  });

  it('hasLossySpelling: signed nan in value positions and sub-millisecond times only', () => {
    for (const t of ['x = -nan', 'x = +nan\n', 'a = [1.0, -nan]', 'a = [\n    -nan,\n]', 't = 07:32:00.1234', 'x=-nan # c'])
      expect(hasLossySpelling(t), t).toBe(true);
    for (const t of ['name = "my-nano"', 'x = nan', 't = 07:32:00.123', 'tags = ["a-nanb"]']) expect(hasLossySpelling(t), t).toBe(false);
    // A package named like that still gets the reference layout when the line merge conflicts.
    const base = 'name = "my-nano"\nschema = 1\nversion = "0.1.0"\n';
    const r = mergeManifestText(enc(base), enc(base.replace('schema = 1', 'schema = 2')), enc(base.replace('"0.1.0"', '"0.2.0"')));
    expect(r.layout).toBe('reference');
  });

  it('inf, dates, times and integers beyond 2^53 read back exactly through the reference layout', () => {
    const base =
      `${HEAD}a = 1\nb = 2\nbig = 9223372036854775807\nneg = -9223372036854775808\nodt = 1979-05-27T07:32:00-08:00\n` +
      'ldt = 1979-05-27T07:32:00\nld = 1979-05-27\nlt = 07:32:00\nms = 1979-05-27T00:32:00.999Z\ni = inf\nni = -inf\n';
    const ours = base.replace('a = 1', 'a = 10').replace('big = 9223372036854775807', 'big = 9007199254740993');
    const theirs = base.replace('b = 2', 'b = 20').replace('lt = 07:32:00', 'lt = 07:32:01');
    const r = mergeManifestText(enc(base), enc(ours), enc(theirs));
    expect(r.layout).toBe('reference');
    const got = parseManifestTable(r.text);
    const want = parseManifestTable(enc(ours.replace('b = 2', 'b = 20').replace('lt = 07:32:00', 'lt = 07:32:01')));
    expect(tomlEqual(got, want)).toBe(true);
    expect(got['big']).toBe(9007199254740993n);
    expect(got['neg']).toBe(-9223372036854775808n);
    expect(got['i']).toBe(Infinity);
    expect((got['ld'] as Date).toISOString()).toBe('1979-05-27');
  });

  it('a time finer than a millisecond is never collapsed by the reference writer', () => {
    const base = `${HEAD}t = 1979-05-27T07:32:00.999999Z\ny = 1\n`;
    const theirs = base.replace('.999999Z', '.999998Z');
    const near = drive(base, base.replace('y = 1', 'y = 2'), theirs);
    expect(near.text).toContain('.999998Z');
    const far = drive(base, base.replace('"demo"', '"d2"'), theirs);
    expect(far.exitCode).toBe(0);
    expect(far.text).toContain('t = 1979-05-27T07:32:00.999998Z\n');
  });
});

/** A reference-style manifest with `n` modules; `pin(i)` gives module i's hash. */
function bigManifest(n: number, pin: (i: number) => string, skip = -1, extra?: number): string {
  const parts = ['dependencies = []\nname = "big"\nobligations = []\nschema = 1\nversion = "0.1.0"\n'];
  for (let i = 0; i < n; i++) {
    if (i === skip) continue;
    parts.push(`\n[[modules]]\nhash = "${pin(i)}"\npath = "src/m${i}.gc"\n`);
    if (extra === i) parts.push(`\n[[modules]]\nhash = "${'e'.repeat(64)}"\npath = "src/new.gc"\n`);
  }
  return parts.join('');
}

describe('manifest driver: large manifests stay within the budget', () => {
  for (const n of [20_000, 60_000]) {
    it(`${n} modules: re-pins on both sides, an addition and a removal merge (structurally or by the line merge)`, () => {
      const hex = (i: number, c: string) => (i % 97 === 0 ? c : '0').repeat(64);
      const base = bigManifest(n, () => '0'.repeat(64));
      // ours re-pins every 97th module and adds one; theirs re-pins the 97th+50 ones and removes one.
      const ours = bigManifest(n, (i) => hex(i, 'a'), -1, Math.floor(n / 2));
      const theirs = bigManifest(n, (i) => ((i + 47) % 97 === 0 ? 'b' : '0').repeat(64), 7);
      const want = bigManifest(n, (i) => (i % 97 === 0 ? 'a' : (i + 47) % 97 === 0 ? 'b' : '0').repeat(64), 7, Math.floor(n / 2));
      const r = drive(base, ours, theirs);
      expect(['structural', 'line']).toContain(r.method);
      expect(r.exitCode).toBe(0);
      expect(r.text).toBe(want);
      // Past a budget it cannot meet, the driver says so and takes the line merge: same bytes.
      const hurried = drive(base, ours, theirs, 1);
      expect(hurried.method).toBe('line');
      expect(hurried.reason).toMatch(/exceeded its 1 ms budget/);
      expect(hurried.text).toBe(want);
    }, 120_000);
  }
});

// ---------------------------------------------------------------------------------------------
// Fuzz: every clean result contains both sides' changes.

/** Value spellings, several of which read as the same value (signed nan, -0.0, sub-ms times). */
const SPELLINGS = [
  '0.0',
  '-0.0',
  'nan',
  '-nan',
  '+nan',
  'inf',
  '-inf',
  '1.5',
  '1e3',
  '1000.0',
  '1',
  '9007199254740993',
  '-9223372036854775808',
  '0x10',
  '16',
  '"a"',
  '"b"',
  '"__proto__"',
  'true',
  'false',
  '1979-05-27',
  '07:32:00',
  '07:32:00.001',
  '1979-05-27T07:32:00.999999Z',
  '1979-05-27T07:32:00.999998Z',
  '1979-05-27T07:32:00-08:00',
  '[]',
  '[1, 2]',
  '{ a = 1 }',
  '{ "__proto__" = 1 }',
];
const KEYS = ['"__proto__"', 'name', 'a', 'b', 'c', 'd', '"constructor"', '"toString"'];

type Doc = (string | undefined)[]; // spelling per key, undefined = absent

function render(doc: Doc, modules: (string | undefined)[]): string {
  const lines: string[] = [];
  doc.forEach((v, i) => {
    if (v !== undefined) lines.push(`${KEYS[i]} = ${v}`);
  });
  let text = lines.join('\n') + '\n';
  modules.forEach((h, i) => {
    if (h !== undefined) text += `\n[[modules]]\nhash = "${h}"\npath = "m${i}.gc"\n`;
  });
  return text;
}

const spelling = fc.option(fc.constantFrom(...SPELLINGS), { nil: undefined });
const pin = fc.option(fc.constantFrom('', 'a'.repeat(64), 'b'.repeat(64), 'c'.repeat(64)), { nil: undefined });
const side = (base: { doc: Doc; mods: (string | undefined)[] }) =>
  fc.record({
    doc: fc.tuple(...base.doc.map((v) => fc.oneof({ weight: 3, arbitrary: fc.constant(v) }, { weight: 1, arbitrary: spelling }))),
    mods: fc.tuple(...base.mods.map((v) => fc.oneof({ weight: 3, arbitrary: fc.constant(v) }, { weight: 1, arbitrary: pin }))),
  });
const triple = fc
  .record({ doc: fc.tuple(...KEYS.map(() => spelling)), mods: fc.tuple(pin, pin, pin) })
  .chain((base) => fc.tuple(fc.constant(base), side(base), side(base)));

const LOSSY = /[+-]nan|\.\d{4,}/;

/** The parsed value of a spelling (undefined = absent). */
function parseValue(v: string | undefined): unknown {
  return v === undefined ? undefined : parseManifestTable(enc(`x = ${v}\n`))['x'];
}

/** Same value: equal when read, and the same spelling where reading cannot tell spellings apart. */
function sameValue(a: string | undefined, b: string | undefined): boolean {
  if (a === b) return true;
  if (!tomlEqual(parseValue(a) as never, parseValue(b) as never)) return false;
  return !(LOSSY.test(a ?? '') || LOSSY.test(b ?? ''));
}

type Side = { doc: Doc; mods: (string | undefined)[] };

/** Side `mine`'s changes over base, and where it made none, `other`'s. */
function oneSided(mine: Side, other: Side, base: Side): Side {
  return {
    doc: mine.doc.map((v, i) => (sameValue(v, base.doc[i]) ? other.doc[i] : v)),
    mods: mine.mods.map((v, i) => (v === base.mods[i] ? other.mods[i] : v)),
  };
}

/** Checks that `result` holds every change `changed` made over base (spelling-exact where needed). */
function expectChange(result: string, changed: Side, base: Side): void {
  const t = parseManifestTable(enc(result));
  changed.doc.forEach((v, i) => {
    if (sameValue(v, base.doc[i])) return;
    const key = Object.keys(parseManifestTable(enc(`${KEYS[i]} = 1\n`)))[0]!;
    const got = Object.hasOwn(t, key) ? t[key] : undefined;
    if (v === undefined) expect(got).toBeUndefined();
    else {
      const want = parseValue(v) as never;
      if (isTomlTable(want) && isTomlTable(got)) {
        // Tables merge key by key (both sides may add entries to one table): the change is contained
        // when every entry of this side's table is in the result.
        for (const [k, w] of Object.entries(want)) expect(Object.hasOwn(got, k) && tomlEqual(got[k] as never, w as never)).toBe(true);
      } else expect(tomlEqual(got as never, want)).toBe(true);
      if (LOSSY.test(v)) expect(result).toMatch(new RegExp(`^(${KEYS[i]}|${key}) = ${v.replace(/[.+]/g, '\\$&')}$`, 'm'));
    }
  });
  const mods = new Map<string, string>();
  for (const m of (t['modules'] as Record<string, string>[] | undefined) ?? []) mods.set(m['path']!, m['hash']!);
  changed.mods.forEach((h, i) => {
    if (h === base.mods[i]) return;
    if (h === undefined) expect(mods.has(`m${i}.gc`)).toBe(false);
    else expect([h, '']).toContain(mods.get(`m${i}.gc`)); // '' = both re-pinned differently (pack again)
  });
}

describe('manifest driver fuzz (fast-check)', () => {
  it("every clean structural merge contains both sides' changes", () => {
    fc.assert(
      fc.property(triple, ([base, ours, theirs]) => {
        const [b, o, t] = [render(base.doc, base.mods), render(ours.doc, ours.mods), render(theirs.doc, theirs.mods)];
        let r;
        try {
          r = mergeManifestText(enc(b), enc(o), enc(t));
        } catch (error) {
          if (isGcError(error)) return; // a conflict or an unsupported value: the driver falls back
          throw error;
        }
        const text = dec(r.text);
        expectChange(text, oneSided(ours, theirs, base), base);
        expectChange(text, oneSided(theirs, ours, base), base);
      }),
      { numRuns: Number(process.env.GCPATCH_FUZZ_RUNS ?? 400) },
    );
  });

  it("every exit-0 driver result (structural or git merge-file) contains both sides' changes", () => {
    fc.assert(
      fc.property(triple, ([base, ours, theirs]) => {
        const [b, o, t] = [render(base.doc, base.mods), render(ours.doc, ours.mods), render(theirs.doc, theirs.mods)];
        const r = drive(b, o, t);
        expect(r.exitCode).toBeLessThanOrEqual(1);
        // Exit 1: no result, or one with conflict markers.
        expect(r.exitCode === 0 || r.result === undefined || /^<{7} /m.test(r.text)).toBe(true);
        if (r.exitCode !== 0) return;
        expectChange(r.text, oneSided(ours, theirs, base), base);
        expectChange(r.text, oneSided(theirs, ours, base), base);
      }),
      { numRuns: 60 },
    );
  });
});

describe('manifest driver: a clean line merge that lists an entry twice', () => {
  // Both sides add m1.gc with different pins at different places, and a value the structural
  // merge refuses (`-nan`) sends the file to git merge-file, which merges the two additions cleanly.
  const base = `${HEAD}x = -nan\n\n[[modules]]\nhash = ""\npath = "m0.gc"\n\n[[modules]]\nhash = "b"\npath = "m2.gc"\n`;
  const ours = `${HEAD}x = -nan\n\n[[modules]]\nhash = ""\npath = "m0.gc"\n\n[[modules]]\nhash = "b"\npath = "m1.gc"\n`;
  const theirs = `${HEAD}x = -nan\n\n[[modules]]\nhash = ""\npath = "m1.gc"\n\n[[modules]]\nhash = "b"\npath = "m2.gc"\n`;

  it('marks the whole file (ours, then theirs) instead of exiting 0 with module "m1.gc" twice', () => {
    const plain = dec(gitMergeBytes(enc(base), enc(ours), enc(theirs), markers).text);
    expect(plain.match(/path = "m1\.gc"/g)?.length).toBe(2); // what git merge-file alone gives
    const r = drive(base, ours, theirs);
    expect(r.exitCode).toBe(1);
    expect(r.text).toBe(`<<<<<<< ours\n${ours}=======\n${theirs}>>>>>>> theirs\n`);
    expect(r.messages.join('\n')).toContain('lists module "m1.gc" twice');
  });

  it('a clean line merge that lists each entry once still exits 0 (control)', () => {
    const theirsOnce = base.replace('version = "0.1.0"', 'version = "0.2.0"');
    const r = drive(base, ours, theirsOnce);
    expect(r.exitCode).toBe(0);
    expect(r.text).toBe(ours.replace('version = "0.1.0"', 'version = "0.2.0"'));
  });
});

describe('manifest driver: a clean line merge that hides an entry one side removed and the other changed', () => {
  // Found by the fuzz above: the structural merge refuses (m1.gc removed by theirs, re-pinned by
  // ours); git merge-file aligns the [[modules]] blocks so that it merges cleanly, keeping ours'
  // m1.gc and losing theirs' removal.
  const A = 'a'.repeat(64);
  const B = 'b'.repeat(64);
  const C = 'c'.repeat(64);
  const mod = (h: string, i: number): string => `\n[[modules]]\nhash = "${h}"\npath = "m${i}.gc"\n`;
  const base = `${HEAD}x = inf\n${mod(A, 0)}${mod('', 1)}${mod(C, 2)}`;
  const ours = `${HEAD}x = inf\n${mod(A, 0)}${mod(C, 1)}`;
  const theirs = `${HEAD}${mod(B, 0)}${mod(C, 2)}`;

  it("marks the whole file (ours, then theirs) instead of exiting 0 without theirs' removal", () => {
    const plain = gitMergeBytes(enc(base), enc(ours), enc(theirs), markers);
    expect(plain.conflicts).toBe(0); // what git merge-file alone gives: clean, m1.gc kept
    expect(dec(plain.text)).toContain('path = "m1.gc"');
    const r = drive(base, ours, theirs);
    expect(r.exitCode).toBe(1);
    expect(r.text).toBe(`<<<<<<< ours\n${ours}=======\n${theirs}>>>>>>> theirs\n`);
    expect(r.messages.join('\n')).toContain('one side removed module "m1.gc" and the other changed it');
  });

  it('names modify/remove of a module or a dependency, and nothing else (controls)', () => {
    const dep = (n: string, v: string): string => `\n[[dependencies]]\nname = "${n}"\nversion = "${v}"\n`;
    const of = (base: string, ours: string, theirs: string) => modifiedAndRemovedEntry(enc(base), enc(ours), enc(theirs));
    expect(of(base, ours, theirs)).toBe('module "m1.gc"');
    expect(of(base, theirs, ours)).toBe('module "m1.gc"');
    // removed by one side, unchanged by the other; removed by both; changed by both: not this case
    expect(of(base, `${HEAD}${mod(A, 0)}${mod(C, 2)}`, base)).toBeUndefined();
    expect(of(base, `${HEAD}${mod(A, 0)}`, `${HEAD}${mod(A, 0)}`)).toBeUndefined();
    expect(of(base, `${HEAD}${mod(B, 0)}${mod('', 1)}${mod(C, 2)}`, `${HEAD}${mod(C, 0)}${mod('', 1)}${mod(C, 2)}`)).toBeUndefined();
    expect(of(`${HEAD}${dep('lib', '1')}`, `${HEAD}${dep('lib', '2')}`, HEAD)).toBe('dependency "lib"');
    expect(of('not toml = = 1', HEAD, HEAD)).toBeUndefined();
  });
});
