// Invariants of the merge driver, checked on every fixture triple and on generated triples:
// - the exit code is 0 or 1;
// - exit 0 (structural or trivial): the result reads back, and every definition (and free comment
//   block) that one side changed and the other did not comes out exactly as that side wrote it
//   (with a rename the driver reports as carried over applied);
//   definitions one side deleted and the other left alone are gone;
// - exit 1 from the structural merge: every conflicting definition appears inside markers with
//   ours' text in the ours section and theirs' text in the theirs section, or (a conflict marked
//   inside a tree-merged form) the result read with every block resolved to ours, and
//   to theirs, reads back with that definition, and each block's ours and theirs sections differ;
// - merging (base, x, x) and (base, base, x) gives x byte for byte, also through the structural
//   merge alone (no whole-file shortcut).
import { expect } from 'vitest';
import { normalizeSide } from '../../src/textmerge/newline.js';
import type { MarkerOptions } from '../../src/textmerge/common/diff3.js';
import { mergeStructuralBytes, type DriverOutcome } from '../../src/textmerge/driver.js';
import type { SegmentedModule } from '../../src/textmerge/segment/element.js';
import { segmentModule } from '../../src/textmerge/segment/segments.js';

const dec = new TextDecoder();

function trySegment(bytes: Uint8Array): SegmentedModule | undefined {
  try {
    return segmentModule(normalizeSide(bytes).text);
  } catch {
    return undefined;
  }
}

/** Free comment block text → how many times it occurs. */
function commentCounts(m: SegmentedModule): Map<string, number> {
  const out = new Map<string, number>();
  for (const e of m.elements) {
    if (e.kind !== 'comment') continue;
    const text = dec.decode(m.text.subarray(e.start, e.end));
    out.set(text, (out.get(text) ?? 0) + 1);
  }
  return out;
}

/** key → body text, for def forms (and comment blocks when `comments`). */
function bodies(m: SegmentedModule, comments: boolean): Map<string, string> {
  const out = new Map<string, string>();
  for (const e of m.elements) {
    if (e.defName !== undefined || (comments && e.kind === 'comment')) out.set(e.key, dec.decode(m.text.subarray(e.start, e.end)));
  }
  return out;
}

/** The conflict blocks of a marked-up text: the ours, base and theirs sections (without final LF). */
export function conflictBlocks(text: string, size: number): { ours: string; base: string | undefined; theirs: string }[] {
  const lines = text.split('\n');
  const out: { ours: string; base: string | undefined; theirs: string }[] = [];
  const is = (l: string, c: string): boolean => l.startsWith(c.repeat(size)) && (l.length === size || l[size] === ' ');
  for (let i = 0; i < lines.length; i++) {
    if (!is(lines[i]!, '<')) continue;
    const ours: string[] = [];
    const base: string[] = [];
    const theirs: string[] = [];
    let section: string[] = ours;
    let sawBase = false;
    let j = i + 1;
    for (; j < lines.length && !is(lines[j]!, '>'); j++) {
      const l = lines[j]!;
      if (is(l, '|')) {
        section = base;
        sawBase = true;
      } else if (l === '='.repeat(size)) section = theirs;
      else section.push(l);
    }
    out.push({ ours: ours.join('\n'), base: sawBase ? base.join('\n') : undefined, theirs: theirs.join('\n') });
    i = j;
  }
  return out;
}

/** The text with every conflict block replaced by its `side` section. */
export function resolveBlocks(text: string, size: number, side: 'ours' | 'theirs'): string {
  const lines = text.split('\n');
  const out: string[] = [];
  const is = (l: string, c: string): boolean => l.startsWith(c.repeat(size)) && (l.length === size || l[size] === ' ');
  let section: 'none' | 'ours' | 'base' | 'theirs' = 'none';
  for (const l of lines) {
    if (section === 'none' && is(l, '<')) section = 'ours';
    else if (section !== 'none' && is(l, '|')) section = 'base';
    else if (section !== 'none' && l === '='.repeat(size)) section = 'theirs';
    else if (section !== 'none' && is(l, '>')) section = 'none';
    else if (section === 'none' || section === side) out.push(l);
  }
  return out.join('\n');
}

/** Checks the invariants listed at the top of this file. */
export function checkInvariants(base: Uint8Array, ours: Uint8Array, theirs: Uint8Array, outcome: DriverOutcome, markers: MarkerOptions): void {
  expect([0, 1]).toContain(outcome.exitCode);
  const result = outcome.result ?? ours;
  const sb = trySegment(base);
  const so = trySegment(ours);
  const st = trySegment(theirs);
  if (!sb || !so || !st) return;
  const structural = outcome.method === 'structural' || outcome.method === 'trivial';
  if (outcome.exitCode === 0 && structural) {
    const sr = trySegment(result);
    expect(sr, 'a clean result reads back').toBeDefined();
    // Renames the driver says it carried over: the other side's text with the new name,
    // keyed by the new name (a renamed definition is one definition).
    const carried = [...outcome.messages.join('\n').matchAll(/carried \w+' rename (\S+) → (\S+) into/g)].map((m) => [m[1]!, m[2]!] as const);
    const carry = (v: string | undefined): string | undefined => (v === undefined ? v : carried.reduce((x, [a, z]) => x.split(a).join(z), v));
    const carryKeys = (m: Map<string, string>): Map<string, string> => new Map([...m].map(([k, v]) => [carry(k)!, v]));
    const [b, o, t, r] = [sb, so, st, sr!].map((m) => carryKeys(bodies(m, false))) as [
      Map<string, string>,
      Map<string, string>,
      Map<string, string>,
      Map<string, string>,
    ];
    for (const k of new Set([...b.keys(), ...o.keys(), ...t.keys()])) {
      const [vb, vo, vt, vr] = [carry(b.get(k)), carry(o.get(k)), carry(t.get(k)), r.get(k)];
      if (vo === vt) expect(vr, `${k}: both sides agree`).toBe(vo);
      else if (vt === vb) expect(vr, `${k}: only ours changed it`).toBe(vo);
      else if (vo === vb) expect(vr, `${k}: only theirs changed it`).toBe(vt);
      else expect(vr, `${k}: both changed it; a clean merge keeps it`).toBeDefined();
    }
    // Free comment blocks: counted by text (equal blocks are interchangeable).
    const [cb, co, ct, cr] = [sb, so, st, sr!].map(commentCounts) as [Map<string, number>, Map<string, number>, Map<string, number>, Map<string, number>];
    for (const k of new Set([...cb.keys(), ...co.keys(), ...ct.keys()])) {
      const [nb, no, nt, nr] = [cb.get(k) ?? 0, co.get(k) ?? 0, ct.get(k) ?? 0, cr.get(k) ?? 0];
      if (no === nt) expect(nr, `comment ${k}`).toBe(no);
      else if (nt === nb) expect(nr, `comment ${k}: only ours changed it`).toBe(no);
      else if (no === nb) expect(nr, `comment ${k}: only theirs changed it`).toBe(nt);
    }
  }
  if (outcome.exitCode === 1 && outcome.method === 'structural') {
    const text = dec.decode(normalizeSide(result).text);
    const blocks = conflictBlocks(text, markers.markerSize);
    expect(blocks.length).toBe(outcome.conflicts.length);
    const o = bodies(so, false);
    const t = bodies(st, false);
    for (const c of outcome.conflicts) {
      if (c.name === undefined) continue;
      const key = [...o.keys(), ...t.keys()].find((k) => k.startsWith(`def:${c.name}#`));
      if (key === undefined) continue;
      const found = blocks.some((bl) => bl.ours === (o.get(key) ?? '') && bl.theirs === (t.get(key) ?? ''));
      if (found) continue;
      // Marked inside the form: both readings keep the definition; the blocks are real conflicts.
      for (const side of ['ours', 'theirs'] as const) {
        const reading = trySegment(new TextEncoder().encode(resolveBlocks(text, markers.markerSize, side)));
        expect(reading, `${side}' reading of the result reads back`).toBeDefined();
        expect(
          reading!.elements.some((e) => e.defName === c.name),
          `${side}' reading keeps ${c.name}`,
        ).toBe(true);
      }
      for (const bl of blocks) expect(bl.ours === bl.theirs, 'a conflict block whose sides are equal').toBe(false);
    }
  }
  // Idempotence laws through the structural merge alone.
  for (const x of [ours, theirs]) {
    const same = mergeStructuralBytes(base, x, x, 'gc', markers, Infinity);
    expect(Buffer.from(same.result).equals(x), '(base, x, x) gives x').toBe(true);
    const one = mergeStructuralBytes(base, base, x, 'gc', markers, Infinity);
    expect(Buffer.from(one.result).equals(x), '(base, base, x) gives x').toBe(true);
    expect(one.conflicts).toEqual([]);
  }
}
