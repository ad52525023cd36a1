import { describe, expect, it } from 'vitest';
import { defName } from '../../src/coreform/forms.js';
import { separatorBefore } from '../../src/textmerge/segment/element.js';
import { segmentModule } from '../../src/textmerge/segment/segments.js';
import { readTerm } from '../../src/coreform/read.js';
import { GcError } from '../../src/util/errors.js';

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);

function view(src: string): { kind: string; key: string; body: string }[] {
  const m = segmentModule(enc(src));
  const text = new TextDecoder().decode(m.text);
  const b = Buffer.from(m.text);
  // The pieces concatenate back to the text.
  let rebuilt = '';
  m.elements.forEach((e, i) => {
    const sep = separatorBefore(m, i);
    rebuilt += b.subarray(sep.start, sep.end).toString() + b.subarray(e.start, e.end).toString();
  });
  rebuilt += b.subarray(m.trailStart).toString();
  expect(rebuilt).toBe(text);
  return m.elements.map((e) => ({ kind: e.kind, key: e.key, body: b.subarray(e.start, e.end).toString() }));
}

describe('textmerge/segments.ts: elements of a module', () => {
  it('attaches comment lines directly above a form and a comment after it on its line', () => {
    expect(view('; header\n\n;; doc\n(def a 1) ; note\n\n(def b 2)\n')).toEqual([
      { kind: 'comment', key: 'comment:; header#0', body: '; header' },
      { kind: 'form', key: 'def:a#0', body: ';; doc\n(def a 1) ; note' },
      { kind: 'form', key: 'def:b#0', body: '(def b 2)' },
    ]);
  });

  it('keys defs by name (with occurrence), other forms by canonical content', () => {
    const v = view("(def a 1)\n(def a 2)\n(f x y)\n(  (f x) y)\n'(q)\n");
    expect(v.map((e) => e.key)).toEqual(['def:a#0', 'def:a#1', 'form:((f x) y)#0', 'form:((f x) y)#1', 'form:(quote (q))#0']);
  });

  it('keeps forms on one line apart and comments inside strings inside the form', () => {
    const v = view('(def a "x ; y") (def b "(")\n');
    expect(v.map((e) => e.body)).toEqual(['(def a "x ; y")', '(def b "(")']);
  });

  it('handles empty and comment-only modules', () => {
    expect(view('')).toEqual([]);
    expect(view('\n\n')).toEqual([]);
    expect(view('; only a comment')).toEqual([{ kind: 'comment', key: 'comment:; only a comment#0', body: '; only a comment' }]);
  });

  it('reads the def name of raw forms', () => {
    expect(defName(readTerm('(def x 1)'))).toBe('x');
    expect(defName(readTerm('(def "x" 1)'))).toBeUndefined();
    expect(defName(readTerm('(f x 1)'))).toBeUndefined();
  });

  it('fails on unreadable text; keys a form that does not canonicalize by its raw print', () => {
    expect(() => segmentModule(enc('(def a'))).toThrow(GcError);
    expect(segmentModule(enc('(fn () x)')).elements[0]!.key).toBe('raw:(fn nil x)#0');
  });
});
