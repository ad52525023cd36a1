// The reduced merge: segmentReduced keeps every stretch of base that neither side
// changed as one opaque run and merges the changed windows only. It must give exactly what the
// whole merge gives (text, pieces and the side each comes from, conflicts, messages, errors), or
// refuse and leave the merge to the whole one. Every generated triple here is merged both ways
// (`reduce: 'always'` and `'never'`) and compared; the counts check that the reduction really ran
// on most of the large ones, so the comparison is not vacuous.
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mergeModuleText, type TextMergeOptions, type TextMergeResult } from '../../src/textmerge/module.js';
import { isRun } from '../../src/textmerge/segment/opaque-run.js';
import { segmentReduced } from '../../src/textmerge/segment/reduced-segmentation.js';
import { segmentModule } from '../../src/textmerge/segment/segments.js';
import type { MarkerOptions } from '../../src/textmerge/common/diff3.js';
import { scanFormBounds } from '../../src/coreform/scan.js';
import { random } from '../helpers/random.js';
import { moduleGenerator, NAMES, SEPARATORS } from './module-generator.js';

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const dec = (b: Uint8Array): string => Buffer.from(b).toString('utf8');
const markers: MarkerOptions = { markerSize: 7, style: 'diff3', oursLabel: 'ours', baseLabel: 'base', theirsLabel: 'theirs' };

/** A merge's outcome as comparable text: every field of the result, or the error's code. */
function outcome(base: Uint8Array, ours: Uint8Array, theirs: Uint8Array, options: TextMergeOptions): { shown: string; r: TextMergeResult | undefined } {
  try {
    const r = mergeModuleText(base, ours, theirs, options);
    const pieces = r.pieces.map((p) => [dec(p.bytes), p.from?.side, p.from?.start, p.from?.end]);
    return { shown: JSON.stringify({ text: dec(r.text), pieces, conflicts: r.conflicts, messages: r.messages, merged: r.stats.merged }), r };
  } catch (error) {
    return { shown: `error ${(error as { code?: string }).code ?? (error as Error).message}`, r: undefined };
  }
}

/** Merges both ways; returns whether the reduced merge ran (and fails the test when they differ). */
function bothWays(base: string, ours: string, theirs: string, options: Omit<TextMergeOptions, 'reduce'> = { markers }): boolean {
  const b = enc(base);
  const o = enc(ours);
  const t = enc(theirs);
  const reduced = outcome(b, o, t, { ...options, reduce: 'always' });
  const whole = outcome(b, o, t, { ...options, reduce: 'never' });
  if (reduced.shown !== whole.shown) {
    throw new Error(`reduced and whole merges differ\n${JSON.stringify([base, ours, theirs])}\nreduced: ${reduced.shown}\nwhole:   ${whole.shown}`);
  }
  return reduced.r?.stats.reduced ?? false;
}

/** segmentReduced on strings, with base scanned as mergeModuleText scans it. */
function reducedSides(base: string, ours: string, theirs: string, always: boolean): ReturnType<typeof segmentReduced> {
  return segmentReduced(enc(base), enc(ours), enc(theirs), scanFormBounds(enc(base)), Infinity, always);
}

describe('reduced merge = whole merge', () => {
  it('on 2,000 generated small modules (edits anywhere)', () => {
    const rnd = random(20261202);
    const g = moduleGenerator(rnd);
    let reduced = 0;
    for (let n = 0; n < 2000; n++) {
      const names = NAMES.slice(0, 6);
      const base = g.module(1 + Math.floor(rnd() * 8), names);
      const seps = base.map(() => g.pick(SEPARATORS));
      if (bothWays(g.render(base, seps), g.render(g.mutate(base, names), seps), g.render(g.mutate(base, names), seps))) reduced++;
    }
    expect(reduced).toBeGreaterThan(150);
  });

  it('on 1,500 generated large modules with local edits on each side', () => {
    const rnd = random(20261203);
    const g = moduleGenerator(rnd);
    let reduced = 0;
    for (let n = 0; n < 1500; n++) {
      const names = Array.from({ length: 400 }, (_, i) => `n${i}`);
      const size = 20 + Math.floor(rnd() * 30);
      const base = g.module(size, names);
      const seps = base.map(() => g.pick(['\n\n', '\n\n', '\n', '\n\n\n']));
      const at = (): [number, number] => {
        const i = Math.floor(rnd() * size);
        return [i, Math.min(size, i + 1 + Math.floor(rnd() * 3))];
      };
      // Each side edits one or two places (two: the side's change is two windows apart).
      const edit = (): string[] => {
        const [from, to] = at();
        let x = g.mutate(base, names, from, to);
        if (rnd() < 0.5) {
          const [from2, to2] = at();
          if (from2 >= to + 2 && to2 <= x.length) x = g.mutate(x, names, from2, to2);
        }
        return x;
      };
      const o = edit();
      const t = rnd() < 0.1 ? base : edit();
      const sideSeps = (els: string[]): string[] => els.map((_, i) => seps[i] ?? '\n\n');
      if (bothWays(g.render(base, seps), g.render(o, sideSeps(o)), g.render(t, sideSeps(t)), { markers, prefer: rnd() < 0.3 ? 'theirs' : 'ours' })) reduced++;
    }
    expect(reduced).toBeGreaterThan(450);
  });

  it('on the triples adversarial testing found where an earlier build differed', () => {
    // A name defined in two windows, one side replacing the first definition and the other editing
    // the second: the side's key indices shift, so the whole merge aligns an element across a run.
    // The build before the window check placed the conflict elsewhere; now the whole merge decides.
    const cases = JSON.parse(readFileSync(join(import.meta.dirname, 'reduced-regressions.json'), 'utf8')) as {
      base: string;
      ours: string;
      theirs: string;
      options: { prefer?: 'ours' | 'theirs' };
    }[];
    expect(cases.length).toBe(10);
    for (const c of cases) bothWays(c.base, c.ours, c.theirs, { markers, ...c.options });
  });

  it('on every fixture triple', () => {
    const dir = join(import.meta.dirname, '../../fixtures/merge');
    let n = 0;
    for (const name of readdirSync(dir)) {
      if (!existsSync(join(dir, name, 'Base.gc'))) continue;
      const read = (f: string): string =>
        readFileSync(join(dir, name, f), 'utf8')
          .replace(/\r\n/g, '\n')
          .replace(/^\uFEFF/, '');
      bothWays(read('Base.gc'), read('Left.gc'), read('Right.gc'));
      n++;
    }
    expect(n).toBeGreaterThanOrEqual(40);
  });
});

/** A module of `count` documented definitions, `edit(i)` replacing the body of definition i. */
function bench(count: number, edit: (i: number) => string | undefined = () => undefined): string {
  const forms = ["; app/bench: generated module.\n\n(def ::meta\n  '{:caps []})\n"];
  for (let i = 0; i < count; i++) forms.push(`;; Step ${i}.\n(def app/bench::step${i}\n  (fn (x)\n    ${edit(i) ?? `(prim int/add x ${i})`}))\n`);
  return `${forms.join('\n')}\napp/bench::step0\n`;
}

describe('segmentReduced', () => {
  it('keeps what neither side changed as runs: two edits far apart merge on a handful of elements', () => {
    const base = bench(2000);
    const ours = bench(2000, (i) => (i === 1 ? '(prim int/mul x 2)' : undefined));
    const theirs = bench(2000, (i) => (i === 1998 ? '(prim int/sub x 1)' : undefined));
    const sides = reducedSides(base, ours, theirs, false)!;
    expect(sides).toBeDefined();
    expect(sides.base.elements.length).toBeLessThan(10);
    expect(sides.base.elements.filter(isRun).length).toBe(3);
    expect(segmentModule(enc(base)).elements.length).toBe(2003);
    const r = mergeModuleText(enc(base), enc(ours), enc(theirs), { markers });
    expect(r.stats.reduced).toBe(true);
    expect(dec(r.text)).toBe(bench(2000, (i) => (i === 1 ? '(prim int/mul x 2)' : i === 1998 ? '(prim int/sub x 1)' : undefined)));
    expect(bothWays(base, ours, theirs)).toBe(true);
  });

  it('splits a side that edits the top and the bottom into two windows', () => {
    const base = bench(2000);
    const ours = bench(2000, (i) => (i === 1 || i === 1995 ? '(prim int/mul x 2)' : undefined));
    const theirs = bench(2000, (i) =>
      i === 1998 ? '(prim int/sub x 1)' : i === 1000 ? '(prim int/sub x 1000)))\n\n(def app/bench::new (fn (x) x' : undefined,
    );
    const sides = reducedSides(base, ours, theirs, false)!;
    expect(sides).toBeDefined();
    expect(sides.base.elements.length).toBeLessThan(16);
    expect(sides.base.elements.filter(isRun).length).toBe(5);
    const r = mergeModuleText(enc(base), enc(ours), enc(theirs), { markers });
    expect(r.stats.reduced).toBe(true);
    expect(bothWays(base, ours, theirs)).toBe(true);
    // A definition moved across a run: the whole merge decides (the order merge weighs runs).
    const moved = base
      .replace(';; Step 5.\n(def app/bench::step5\n  (fn (x)\n    (prim int/add x 5)))\n\n', '')
      .replace('\napp/bench::step0\n', '\n;; Step 5.\n(def app/bench::step5\n  (fn (x)\n    (prim int/add x 5)))\n\napp/bench::step0\n');
    expect(moved).not.toBe(base);
    expect(bothWays(base, moved, theirs)).toBe(false);
  });

  it('conflicts and their line numbers come out as in the whole merge', () => {
    const base = bench(300);
    const ours = bench(300, (i) => (i === 150 ? '(prim int/mul x 2)' : i === 3 ? '(prim int/add x 33)' : undefined));
    const theirs = bench(300, (i) => (i === 150 ? '(prim int/sub x 1)' : undefined));
    expect(bothWays(base, ours, theirs)).toBe(true);
    const r = mergeModuleText(enc(base), enc(ours), enc(theirs), { markers });
    expect(r.stats.reduced).toBe(true);
    expect(r.conflicts.map((c) => c.name)).toEqual(['app/bench::step150']);
    expect(dec(r.text).split('\n')[r.conflicts[0]!.line - 1]).toBe('<<<<<<< ours');
  });

  it('refuses a window whose key a run also has, and the whole merge decides', () => {
    const base = bench(300);
    // Ours adds a second definition of a name a run defines: its key index depends on the run.
    const ours = bench(300, (i) => (i === 10 ? '(prim int/mul x 2)))\n\n(def app/bench::step250\n  (fn (x) x' : undefined));
    const theirs = bench(300, (i) => (i === 280 ? '(prim int/sub x 1)' : undefined));
    expect(reducedSides(base, ours, theirs, true)).toBeUndefined();
    expect(bothWays(base, ours, theirs)).toBe(false);
    // A free comment block whose text a run holds.
    const ours2 = bench(300, (i) => (i === 10 ? '(prim int/mul x 2)))\n\n;; Step 200.\n\n(def app/bench::extra (fn (x) x' : undefined));
    expect(reducedSides(base, ours2, theirs, true)).toBeUndefined();
    expect(bothWays(base, ours2, theirs)).toBe(false);
    // A non-definition form a run also has.
    const ours3 = bench(300, (i) => (i === 10 ? '(prim int/mul x 2)))\n\napp/bench::step0\n\n(def app/bench::extra (fn (x) x' : undefined));
    expect(reducedSides(base, ours3, theirs, true)).toBeUndefined();
    expect(bothWays(base, ours3, theirs)).toBe(false);
  });

  it('runs the semantic pass on the windows: a rename carried over, a dangling reference, a removed reference', () => {
    // Ours renames step7 (its definition and its one use, both near the top); theirs adds a use far below.
    const base = bench(300).replace('(prim int/add x 5)', '(app/bench::step7 x)');
    const ours = base.replace('(app/bench::step7 x)', '(app/bench::seven x)').replace('(def app/bench::step7\n', '(def app/bench::seven\n');
    const theirs = base.replace('(prim int/add x 280)', '(app/bench::step7 280)');
    expect(bothWays(base, ours, theirs)).toBe(true);
    const r = mergeModuleText(enc(base), enc(ours), enc(theirs), { markers });
    expect(r.messages).toEqual(["carried ours' rename app/bench::step7 → app/bench::seven into theirs' new reference in (def app/bench::step280 …)"]);
    expect(dec(r.text)).toContain('(app/bench::seven 280)');
    // Ours deletes step7 instead: theirs' new use is a dangling reference.
    const deleted = base
      .replace(';; Step 7.\n(def app/bench::step7\n  (fn (x)\n    (prim int/add x 7)))\n\n', '')
      .replace('(app/bench::step7 x)', '(prim int/add x 5)');
    expect(deleted).not.toBe(base);
    expect(bothWays(base, deleted, theirs)).toBe(true);
    expect(mergeModuleText(enc(base), enc(deleted), enc(theirs), { markers }).conflicts.map((c) => c.code)).toEqual(['form/dangling-reference']);
    // A removed use of a name that forms in a run still mention: the reduced merge reads just those forms.
    const used = base.replace('(prim int/add x 150)', '(app/bench::step7 150)');
    expect(bothWays(used, used.replace('(app/bench::step7 x)', '(app/bench::step8 x)'), used.replace('(prim int/add x 280)', '(prim int/add x 281)'))).toBe(
      true,
    );
  });

  it('carries a rename into the other side’s edits on the windows; a renamed definition moved across a run hands over', () => {
    // Ours renames step7 (its definition and its use in step5); theirs edits step7's body, wraps
    // the use and edits step280 far below.
    const base = bench(300).replace('(prim int/add x 5)', '(app/bench::step7 x)');
    const ours = base.replace('(app/bench::step7 x)', '(app/bench::seven x)').replace('(def app/bench::step7\n', '(def app/bench::seven\n');
    const theirs = base
      .replace('(prim int/add x 7)', '(prim int/add x 77)')
      .replace('(app/bench::step7 x)', '(prim int/neg (app/bench::step7 x))')
      .replace('(prim int/add x 280)', '(prim int/add x 281)');
    expect(bothWays(base, ours, theirs)).toBe(true);
    expect(bothWays(base, theirs, ours)).toBe(true);
    const r = mergeModuleText(enc(base), enc(ours), enc(theirs), { markers });
    expect(r.conflicts).toEqual([]);
    expect(r.messages).toEqual([
      "carried ours' rename app/bench::step7 → app/bench::seven into theirs' edit of (def app/bench::step5 …)",
      "carried ours' rename app/bench::step7 → app/bench::seven into theirs' edit of (def app/bench::step7 …)",
    ]);
    expect(dec(r.text)).toBe(theirs.replace('(app/bench::step7 x)', '(app/bench::seven x)').replace('(def app/bench::step7\n', '(def app/bench::seven\n'));
    // Ours also moves the renamed definition to the end: its window is not base's, the whole merge decides.
    const step7 = ';; Step 7.\n(def app/bench::seven\n  (fn (x)\n    (prim int/add x 7)))\n\n';
    const moved = ours.replace(step7, '').replace('\napp/bench::step0\n', `\n${step7}app/bench::step0\n`);
    expect(moved).not.toBe(ours);
    expect(bothWays(base, moved, theirs)).toBe(false);
    const m = mergeModuleText(enc(base), enc(moved), enc(theirs), { markers });
    expect([m.conflicts, m.stats.reduced]).toEqual([[], false]);
    expect(dec(m.text)).toContain('(def app/bench::seven\n  (fn (x)\n    (prim int/add x 77)))\n\napp/bench::step0\n');
  });

  it('counts a run that defines a name as mentioning it (the name is not gone)', () => {
    // Ours drops its only use of step200, which a run defines: the run's definition is read, and
    // the name stays (as in the whole merge), so nothing is carried over or marked.
    const base = bench(300).replace('(prim int/add x 5)', '(app/bench::step200 x)');
    const ours = base.replace('(app/bench::step200 x)', '(prim int/add x 5)');
    const theirs = base.replace('(prim int/add x 280)', '(app/bench::step200 280)');
    expect(bothWays(base, ours, theirs)).toBe(true);
    const r = mergeModuleText(enc(base), enc(ours), enc(theirs), { markers });
    expect([r.messages, r.conflicts]).toEqual([[], []]);
  });

  it('reads a side only in its window, and refuses when the side does not end its window as base does', () => {
    const base = bench(100);
    const theirs = bench(100, (i) => (i === 90 ? '(prim int/sub x 1)' : undefined));
    // Ours opens a comment at the end of its window that would run on into the next line's form.
    const ours = base.replace('(prim int/add x 5)))\n', '(prim int/add x 5))) ;\n');
    expect(bothWays(base, ours, theirs)).toBe(true);
    // Ours leaves its window with a comment line directly above base's next element.
    const ours2 = base.replace('(prim int/add x 5)))\n\n', '(prim int/add x 5)))\n; joins\n');
    expect(reducedSides(base, ours2, theirs, true)).toBeUndefined();
    expect(bothWays(base, ours2, theirs)).toBe(false);
    // A side that does not read: the whole merge reports the error.
    const broken = base.replace('(prim int/add x 5)))', '(prim int/add x 5))');
    expect(reducedSides(base, broken, theirs, true)).toBeUndefined();
    expect(bothWays(base, broken, theirs)).toBe(false);
  });

  it('appends after a last form that has no final line break', () => {
    expect(bothWays(";; doc\n'(q a)", ";; doc\n'(q a)\n", ";; doc\n'(q a); added\n(def m::c (m::d 1))\n")).toBe(false);
    const base = `${bench(50).trimEnd()}`;
    expect(bothWays(base, `${base} ; note\n`, base.replace('(prim int/add x 3)', '(prim int/add x 4)'))).toBe(true);
  });

  it('is not used when the windows hold more than half of base (auto)', () => {
    const base = bench(20);
    const ours = bench(20, (i) => (i < 15 ? '(prim int/mul x 2)' : undefined));
    const theirs = bench(20, (i) => (i === 18 ? '(prim int/sub x 1)' : undefined));
    expect(reducedSides(base, ours, theirs, false)).toBeUndefined();
    expect(reducedSides(base, ours, theirs, true)).toBeDefined();
    expect(mergeModuleText(enc(base), enc(ours), enc(theirs), { markers }).stats.reduced).toBe(false);
  });
});
