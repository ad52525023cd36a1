// The structural merge's safety net: the render proves most readings cheaply
// (runs copied verbatim from one side plus a boundary rule at every seam) and re-reads only what it
// cannot prove. The cheap proof must never accept a reading the full re-read rejects: every
// generated merge here runs with `checkSafetyNet`, which re-reads every proven reading as well and
// throws when the two disagree. Inputs are built to hit the boundary rule's corners: comment
// blocks one line above forms, comments on a form's last line, forms and bare symbols on one line
// with no separator, moved and added elements whose separators come from different sides.
import { describe, expect, it } from 'vitest';
import type { TextMergeResult } from '../../src/textmerge/module.js';
import { cleanBoundary } from '../../src/textmerge/render/safety-net.js';
import { segmentModule } from '../../src/textmerge/segment/segments.js';
import type { MarkerOptions } from '../../src/textmerge/common/diff3.js';
import { GcError } from '../../src/util/errors.js';
import { random } from '../helpers/random.js';
import { mergeSameAsWhole } from './same-as-whole.js';
import { enc } from './bytes.js';
import { moduleGenerator, NAMES, SEPARATORS } from './module-generator.js';

const NAMES6 = NAMES.slice(0, 6);

describe('textmerge safety net: the cheap proof never accepts what the full re-read rejects', () => {
  it('holds on 3,000 generated merges, and settles most clean ones without a full re-read', () => {
    const rnd = random(20261201);
    const g = moduleGenerator(rnd);
    let merged = 0;
    let proven = 0;
    let unsafe = 0;
    for (let n = 0; n < 3000; n++) {
      const base = g.module(1 + Math.floor(rnd() * 7), NAMES6);
      const seps = base.map(() => g.pick(SEPARATORS));
      const sides = [g.render(base, seps), g.render(g.mutate(base, NAMES6), seps), g.render(g.mutate(base, NAMES6), seps)] as const;
      const markers: MarkerOptions = { markerSize: 7, style: rnd() < 0.5 ? 'diff3' : 'merge', oursLabel: 'ours', baseLabel: 'base', theirsLabel: 'theirs' };
      let r: TextMergeResult;
      try {
        r = mergeSameAsWhole(enc(sides[0]), enc(sides[1]), enc(sides[2]), { markers, checkSafetyNet: true });
      } catch (error) {
        // A rejection by the full re-read (merge/text/unsafe) or an unreadable side is fine; a
        // disagreement between the two nets is a plain Error and fails the test.
        if (error instanceof GcError) {
          unsafe++;
          continue;
        }
        throw new Error(`case ${n}: ${(error as Error).message}\n${JSON.stringify(sides)}`);
      }
      merged++;
      if (r.stats.fullRereads === 0) proven++;
    }
    expect(merged).toBeGreaterThan(2000);
    expect(unsafe).toBeLessThan(1000);
    // The cheap proof is not vacuous: most merges need no full re-read.
    expect(proven / merged).toBeGreaterThan(0.6);
  });

  it('proves a seam between a merged form and an addition on its line', () => {
    // Theirs adds a bare symbol right after a form that ours changed, with no separator: the seam
    // is between a merged element and a verbatim one.
    const base = '(def m::a 1)\n\n(def m::b 2)\n';
    const ours = '(def m::a 10)\n\n(def m::b 2)\n';
    const theirs = '(def m::a 1)\n\n(def m::b 2) m::x\n';
    const r = mergeSameAsWhole(enc(base), enc(ours), enc(theirs), {
      markers: { markerSize: 7, style: 'merge', oursLabel: 'ours', baseLabel: 'base', theirsLabel: 'theirs' },
      checkSafetyNet: true,
    });
    expect(new TextDecoder().decode(r.text)).toBe('(def m::a 10)\n\n(def m::b 2) m::x\n');
    expect(r.conflicts).toEqual([]);
  });

  it('the boundary rule: two elements it accepts re-read as exactly those two, whatever surrounds them', () => {
    const elements = ['(def m::a 1)', '(def m::a 1) ; note', 'm::x', '"s"', "'q", '; c', '; c1\n; c2', ';; doc\n(def m::b 2)', '[1 2]', '-5', 'b"x"'];
    const seps = ['', ' ', '\n', '\n\n', ' \n ', '\t'];
    const contexts = ['', '(def m::z 0)\n\n', '; before\n\n', '(def m::z 0) '];
    let accepted = 0;
    let rejected = 0;
    for (const prev of elements) {
      const p = segmentModule(enc(prev), Infinity, false).elements;
      if (p.length !== 1) throw new Error(`fixture ${prev} is not one element`);
      for (const next of elements) {
        for (const sep of seps) {
          const ok = cleanBoundary(
            p[0]!.kind,
            p[0]!.endsWithComment,
            prev.charCodeAt(prev.length - 1),
            sep.split('\n').length - 1,
            sep.length,
            next.charCodeAt(0),
            sep.length > 0 ? sep.charCodeAt(0) : -1,
          );
          if (!ok) {
            rejected++;
            continue;
          }
          accepted++;
          for (const before of contexts) {
            // A context whose own boundary with `prev` the rule rejects is not this pair's case.
            if (before.endsWith(' ') && prev.startsWith(';')) continue;
            for (const after of ['', '\n\n(def m::y 9)']) {
              const text = before + prev + sep + next + after;
              const els = segmentModule(enc(text), Infinity, false).elements.map((e) => text.slice(e.start, e.end));
              expect(els.slice(before === '' ? 0 : 1, (before === '' ? 0 : 1) + 2), JSON.stringify(text)).toEqual([prev, next]);
            }
          }
        }
      }
    }
    // Both answers occur: the rule is neither vacuous nor always "re-read".
    expect(accepted).toBeGreaterThan(300);
    expect(rejected).toBeGreaterThan(50);
  });
});
