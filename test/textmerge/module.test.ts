import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TEXT_UNSAFE, alignElements, mergeModuleText } from '../../src/textmerge/module.js';
import { segmentModule } from '../../src/textmerge/segment/segments.js';
import { TimeoutError } from '../../src/textmerge/common/deadline.js';
import { gitMergeBytes } from '../../src/textmerge/line-based.js';
import { mergeFileBytes, mergeStructuralBytes } from '../../src/textmerge/driver.js';
import type { MarkerOptions } from '../../src/textmerge/common/diff3.js';
import { GcError } from '../../src/util/errors.js';
import { checkInvariants } from './invariants.js';
import { dec, enc } from './bytes.js';

const markers: MarkerOptions = { markerSize: 7, style: 'diff3', oursLabel: 'ours', baseLabel: 'base', theirsLabel: 'theirs' };

function merge(base: string, ours: string, theirs: string): { text: string; codes: string[] } {
  const r = mergeModuleText(enc(base), enc(ours), enc(theirs), { markers });
  return { text: dec(r.text), codes: r.conflicts.map((c) => c.code) };
}

describe('module.ts: structural merge of one module', () => {
  it('merges edits of adjacent definitions that git reports as conflicting', () => {
    expect(merge('(def a 1)\n(def b 2)\n', '(def a 10)\n(def b 2)\n', '(def a 1)\n(def b 20)\n')).toEqual({
      text: '(def a 10)\n(def b 20)\n',
      codes: [],
    });
  });

  it('marks only the conflicting form, with its base text in diff3 style', () => {
    const r = merge('(def a 1)\n\n(def b 2)\n', '(def a 10)\n\n(def b 3)\n', '(def a 11)\n\n(def b 2)\n');
    expect(r.codes).toEqual(['form/divergent-edit']);
    expect(r.text).toBe('<<<<<<< ours\n(def a 10)\n||||||| base\n(def a 1)\n=======\n(def a 11)\n>>>>>>> theirs\n\n(def b 3)\n');
  });

  it('uses plain markers in merge style', () => {
    const r = mergeModuleText(enc('(def a 1)\n'), enc('(def a 2)\n'), enc('(def a 3)\n'), { markers: { ...markers, style: 'merge' } });
    expect(dec(r.text)).toBe('<<<<<<< ours\n(def a 2)\n=======\n(def a 3)\n>>>>>>> theirs\n');
  });

  it('reports delete/modify and divergent add/add', () => {
    expect(merge('(def a 1)\n(def b 2)\n', '(def b 2)\n', '(def a 5)\n(def b 2)\n').codes).toEqual(['form/delete-modify']);
    expect(merge('(def a 1)\n', '(def a 1)\n(def n 1)\n', '(def n 2)\n(def a 1)\n').codes).toEqual(['form/divergent-add']);
  });

  it('keeps a comment-only edit of one side and a code edit of the other in one form', () => {
    expect(merge(';; doc\n(def a 1)\n', ';; better doc\n(def a 1)\n', ';; doc\n(def a 2)\n').text).toBe(';; better doc\n(def a 2)\n');
  });

  it('never fuses a form into a preceding comment', () => {
    // Ours adds a same-line comment to a; theirs adds b on a's line: b must go to a new line.
    const r = merge('(def a 1)\n', '(def a 1) ; one\n', '(def a 1) (def b 2)\n');
    expect(r.text).toBe('(def a 1) ; one\n(def b 2)\n');
  });

  it('aligns unmatched non-def forms by position', () => {
    const b = segmentModule(enc('(def a 1)\n(f 1)\n'));
    const o = segmentModule(enc('(def a 1)\n(f 2)\n'));
    expect(Array.from(alignElements(b.elements, o.elements))).toEqual([0, 1]);
  });

  it('throws on unreadable sides and honours the deadline', () => {
    expect(() => merge('(def a 1)\n', '(def a', '(def a 2)\n')).toThrow(GcError);
    expect(() => mergeModuleText(enc('(def a 1)\n'), enc('(def a 2)\n'), enc('(def a 1)\n'), { markers, deadline: 0 })).toThrow(TimeoutError);
  });

  it('refuses incompatible reorders with merge/text/unsafe', () => {
    const base = '(def a 1)\n(def b 1)\n(def c 1)\n(def d 1)\n';
    expect(() => merge(base, '(def c 1)\n(def a 1)\n(def b 1)\n(def d 1)\n', '(def a 1)\n(def b 1)\n(def d 1)\n(def c 1)\n')).toThrow(
      expect.objectContaining({ code: TEXT_UNSAFE }),
    );
  });

  it('handles 100,000-deep nesting without overflowing the stack', () => {
    const deep = '(def d ' + '('.repeat(100_000) + 'x' + ')'.repeat(100_000) + ')\n';
    const r = merge(deep + '(def a 1)\n', deep + '(def a 2)\n', deep.replace('x', 'y') + '(def a 1)\n');
    expect(r.codes).toEqual([]);
    expect(r.text).toBe(deep.replace('x', 'y') + '(def a 2)\n');
  });

  it('merges a large module (4,000 definitions) byte for byte outside the two edits', () => {
    const forms = Array.from({ length: 4000 }, (_, i) => `(def app/big::f${i}\n  (fn (x)\n    (prim int/add x ${i})))\n`);
    const base = forms.join('\n');
    const ours = base.replace('int/add x 10)', 'int/add x 11)');
    const theirs = base.replace('int/add x 3000)', 'int/add x 3001)');
    const r = mergeStructuralBytes(enc(base), enc(ours), enc(theirs), 'gc', markers, Infinity);
    expect(r.conflicts).toEqual([]);
    expect(dec(r.result)).toBe(base.replace('int/add x 10)', 'int/add x 11)').replace('int/add x 3000)', 'int/add x 3001)'));
  });
});

// ---------------------------------------------------------------------------------------------
// Generated triples: a base module and two sides made of random edits.

type El =
  { kind: 'def'; name: string; value: string; doc: string | undefined; long: boolean } | { kind: 'expr'; text: string } | { kind: 'comment'; text: string };

const value = fc.constantFrom('1', '2', '"a ) ; b"', '(f x)', '[1 2 3]', "'(q r)", '"x\\ny"', '(g "(")');
const defEl = (names: string[]): fc.Arbitrary<El> =>
  fc.record({
    kind: fc.constant('def' as const),
    name: fc.constantFrom(...names),
    value,
    doc: fc.option(fc.constantFrom(';; doc', ';; other doc'), { nil: undefined }),
    long: fc.boolean(),
  });
const otherEl: fc.Arbitrary<El> = fc.oneof(
  fc.record({ kind: fc.constant('expr' as const), text: fc.constantFrom('main', '(main 1)', "'(data)") }),
  fc.record({ kind: fc.constant('comment' as const), text: fc.constantFrom('; section', '; todo\n; more') }),
);
const baseEls = fc
  .array(fc.oneof({ weight: 4, arbitrary: defEl(['a', 'b', 'c', 'd', 'e', 'f']) }, { weight: 1, arbitrary: otherEl }), { maxLength: 7 })
  .map((els) => {
    const seen = new Set<string>();
    return els.filter((e) => e.kind !== 'def' || (!seen.has(e.name) && seen.add(e.name)));
  });

type Edit = { op: 'value' | 'doc' | 'delete' | 'move' | 'insert' | 'sep'; at: number; to: number; el: El; v: string };
const edit: fc.Arbitrary<Edit> = fc.record({
  op: fc.constantFrom('value', 'doc', 'delete', 'move', 'insert', 'sep'),
  at: fc.nat(20),
  to: fc.nat(20),
  el: fc.oneof(defEl(['x', 'y', 'a']), otherEl),
  v: value,
});

function applyEdits(els: El[], edits: Edit[], seps: string[]): { els: El[]; seps: string[] } {
  const out = els.map((e) => ({ ...e }));
  const s = [...seps];
  for (const e of edits) {
    const n = out.length;
    const i = n > 0 ? e.at % n : 0;
    const target = out[i];
    if (e.op === 'value' && target?.kind === 'def') target.value = e.v;
    else if (e.op === 'doc' && target?.kind === 'def') target.doc = target.doc ? undefined : ';; new doc';
    else if (e.op === 'delete' && n > 0) out.splice(i, 1);
    else if (e.op === 'move' && n > 1) out.splice(e.to % n, 0, out.splice(i, 1)[0]!);
    else if (e.op === 'insert') {
      if (e.el.kind === 'def' && out.some((x) => x.kind === 'def' && x.name === (e.el as { name: string }).name)) continue;
      out.splice(e.at % (n + 1), 0, e.el);
    } else if (e.op === 'sep') s[e.at % s.length] = s[e.at % s.length] === '\n\n' ? '\n' : '\n\n';
  }
  return { els: out, seps: s };
}

function render(els: El[], seps: string[], finalNewline: boolean): string {
  const parts = els.map((e) => {
    if (e.kind === 'comment') return e.text;
    if (e.kind === 'expr') return e.text;
    const body = e.long ? `(def ${e.name}\n  (fn (p)\n    ${e.value}))` : `(def ${e.name} ${e.value})`;
    return e.doc ? `${e.doc}\n${body}` : body;
  });
  let out = '';
  parts.forEach((p, i) => {
    out += (i > 0 ? (seps[i % seps.length] ?? '\n\n') : '') + p;
  });
  // A comment block must stay free-standing: it is always followed by a blank line.
  out = out.replace(/(; section|; more)\n(?!\n)/g, '$1\n\n');
  return out + (finalNewline && out !== '' ? '\n' : '');
}

describe('module.ts: invariants on generated triples', () => {
  it('exit 0/1, clean results keep every one-sided change, conflicts show both sides, idempotence laws', () => {
    fc.assert(
      fc.property(
        baseEls,
        fc.array(edit, { minLength: 1, maxLength: 3 }),
        fc.array(edit, { minLength: 1, maxLength: 3 }),
        fc.array(fc.constantFrom('\n', '\n\n', '\n\n\n'), { minLength: 1, maxLength: 3 }),
        fc.boolean(),
        fc.constantFrom('\n', '\r\n'),
        (els, oe, te, seps, finalNl, eol) => {
          const o = applyEdits(els, oe, seps);
          const t = applyEdits(els, te, seps);
          const fix = (s: string): Uint8Array => enc(s.replace(/\n/g, eol));
          const base = fix(render(els, seps, finalNl));
          const ours = fix(render(o.els, o.seps, finalNl));
          const theirs = fix(render(t.els, t.seps, finalNl));
          const outcome = mergeFileBytes(base, ours, theirs, { mode: 'gc', markers }, () => gitMergeBytes(base, ours, theirs, markers));
          checkInvariants(base, ours, theirs, outcome, markers);
          expect(outcome.method === 'structural' || outcome.method === 'trivial' || outcome.reason?.includes('reordered')).toBe(true);
        },
      ),
      { numRuns: Number(process.env.GCPATCH_PROPERTY_RUNS ?? 400) },
    );
  });
});
