// segmentLike reads a merge side only where it differs from base and reuses
// base's elements elsewhere. It must give exactly what segmentModule gives on the whole side: the
// same elements (kinds, spans, keys, names, trailing comments) and the same errors. Edits here are
// element-level (insert, replace, delete) and byte-level (a `;`, `"`, bracket or backslash typed
// anywhere), which change how far from the edit the text tokenizes differently.
import { describe, expect, it } from 'vitest';
import type { SegmentedModule } from '../../src/textmerge/segment/element.js';
import { segmentLike } from '../../src/textmerge/segment/segment-like-base.js';
import { segmentModule } from '../../src/textmerge/segment/segments.js';
import { random } from '../helpers/random.js';
import { enc } from './bytes.js';

const ELEMENTS = [
  '(def m::a 1)',
  '(def m::a 2)',
  '(def m::b (f x))',
  'm::x',
  '; c',
  '; c2',
  ';; doc\n(def m::c 3)',
  '(def m::d 4) ; note',
  "'(q)",
  '(f "a ; b")',
  '(g 1)',
  '(g 1)',
  '(def m::é "ü")',
];
const SEPARATORS = ['\n\n', '\n', ' ', '', '\n\n\n', '\n ', ' \n'];
const TYPED = ['', ' ', '\n', ';', 'x', ')', '(h)', '\n; z\n', '"', '\\', 'é', '(def m::a 9)', '\n\n', '[', '{'];

function view(m: SegmentedModule): unknown[] {
  return m.elements.map((e) => [e.kind, e.start, e.end, e.formStart, e.formEnd, e.key, e.defName, e.endsWithComment, e.isDef, e.nameHash]);
}

function outcome(f: () => SegmentedModule): { elements?: unknown[]; trailStart?: number; error?: string } {
  try {
    const m = f();
    return { elements: view(m), trailStart: m.trailStart };
  } catch (error) {
    return { error: `${(error as { code?: string }).code} ${(error as Error).message}` };
  }
}

describe('textmerge/segments.ts segmentLike: a side read only where it changed', () => {
  it('equals segmentModule of the whole side on 6,000 generated edits', () => {
    const rnd = random(15);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
    let compared = 0;
    let reused = 0;
    for (let n = 0; n < 6000; n++) {
      const els = Array.from({ length: 1 + Math.floor(rnd() * (n % 2 === 0 ? 8 : 40)) }, () => pick(ELEMENTS));
      const render = (xs: string[]): string => xs.map((x, i) => (i ? pick(SEPARATORS) : pick(['', '\n', '; lead\n'])) + x).join('') + pick(['\n', '', ' \n']);
      const baseText = render(els);
      let sideText: string;
      if (rnd() < 0.5) {
        const x = [...els];
        x.splice(Math.floor(rnd() * (x.length + 1)), rnd() < 0.5 ? 1 : 0, pick(ELEMENTS));
        sideText = render(x);
      } else {
        const i = Math.floor(rnd() * (baseText.length + 1));
        sideText = baseText.slice(0, i) + pick(TYPED) + baseText.slice(i + Math.floor(rnd() * 3));
      }
      let base: SegmentedModule;
      try {
        base = segmentModule(enc(baseText));
      } catch {
        continue;
      }
      const side = enc(sideText);
      const like = outcome(() => segmentLike(side, base));
      expect(like, JSON.stringify([baseText, sideText])).toEqual(outcome(() => segmentModule(side)));
      compared++;
      if (like.elements) {
        const m = segmentLike(side, base);
        if (m.elements.some((e) => base.elements.includes(e))) reused++;
      }
    }
    expect(compared).toBeGreaterThan(5000);
    // Not vacuous: sides reuse base's element objects (the rest are short, edited up front, or
    // repeat a key near the edit, which reads the side whole; the next test covers a large module).
    expect(reused / compared).toBeGreaterThan(0.05);
  });

  it('reads a large side only around its edit: shared element objects before and after it', () => {
    const defs = Array.from({ length: 2000 }, (_, i) => `;; Step ${i}.\n(def m::s${i}\n  (fn (x) (prim int/add x ${i})))`);
    const base = segmentModule(enc(`${defs.join('\n\n')}\n`));
    // A same-length edit: everything but the edited element and its neighbours is base's own object.
    const same = [...defs];
    same[1000] = same[1000]!.replace('int/add', 'int/mul');
    const m = segmentLike(enc(`${same.join('\n\n')}\n`), base);
    expect(m.elements.length).toBe(2000);
    // (the edited element and its two neighbours are re-read: their extent may depend on it)
    expect(m.elements.filter((e, i) => e === base.elements[i]).length).toBe(1997);
    expect(m.elements[1000]).not.toBe(base.elements[1000]);
    expect(view(m)).toEqual(view(segmentModule(enc(`${same.join('\n\n')}\n`))));
    // A longer edit: the elements before it are shared, those after it are moved copies.
    const longer = [...defs];
    longer[1000] = ';; Step 1000, changed.\n(def m::s1000\n  (fn (x) (prim int/mul x 1000)))';
    const l = segmentLike(enc(`${longer.join('\n\n')}\n`), base);
    expect(l.elements.filter((e, i) => e === base.elements[i]).length).toBe(999);
    expect(view(l)).toEqual(view(segmentModule(enc(`${longer.join('\n\n')}\n`))));
  });
});
