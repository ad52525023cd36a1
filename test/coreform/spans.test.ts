import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { readModule, readModuleSpans, readTerm, readTermSpans, type NodeSpan } from '../../src/coreform/read.js';
import { termsEqual } from '../../src/coreform/term.js';
import { dataTerm } from './arbitrary.js';
import { messyModule, rng } from './messy.js';

const enc = new TextEncoder();
const dec = new TextDecoder();

/** Checks every invariant the NodeSpan docstring promises, for one node tree; returns the node count. */
function checkTree(src: Uint8Array, root: NodeSpan): number {
  let count = 0;
  const stack: NodeSpan[] = [root];
  while (stack.length > 0) {
    const n = stack.pop()!;
    count++;
    expect(n.leadingStart).toBeLessThanOrEqual(n.start);
    expect(n.start).toBeLessThan(n.end);
    const trivia = dec.decode(src.subarray(n.leadingStart, n.start));
    expect(trivia).toMatch(/^(\s|;[^\n]*(\n|$))*$/);
    // The node's own text reads back as its term.
    expect(termsEqual(readTerm(src.subarray(n.start, n.end)), n.term)).toBe(true);
    if (n.kind === 'atom' || n.kind === 'quote') expect(n.closeStart).toBe(n.end);
    if (n.kind === 'quote') {
      expect(src[n.start]).toBe(0x27);
      expect(n.children).toHaveLength(1);
      expect(n.children[0]!.leadingStart).toBe(n.start + 1);
      expect(n.children[0]!.end).toBe(n.end);
    }
    if (n.kind === 'list' || n.kind === 'vec' || n.kind === 'map') {
      expect(n.closeStart).toBe(n.end - 1);
      expect(String.fromCharCode(src[n.start]!, src[n.closeStart]!)).toBe({ list: '()', vec: '[]', map: '{}' }[n.kind]);
      let at = n.start + 1;
      for (const c of n.children) {
        expect(c.leadingStart).toBe(at);
        at = c.end;
      }
      expect(dec.decode(src.subarray(at, n.closeStart))).toMatch(/^(\s|;[^\n]*\n)*$/);
      if (n.kind === 'map') expect(n.children.length % 2).toBe(0);
    }
    stack.push(...n.children);
  }
  return count;
}

describe('reader: source spans of every node', () => {
  it('records kinds, spans, trivia and children of a hand-written module', () => {
    const text = ';; head\n(def f ; the f\n  (fn [x] \'(a b)))\n\n{:k [1 "s"] :k 2}\n';
    const m = readModuleSpans(text);
    expect(m.forms).toHaveLength(2);
    const f = m.forms[0]!;
    expect([f.leadingStart, f.start, f.end]).toEqual([0, 8, 41]);
    expect(f.node).toMatchObject({ kind: 'list', start: 8, end: 41, leadingStart: 0, closeStart: 40 });
    const [def, name, fn] = f.node.children;
    expect([def!.kind, def!.start, def!.end, def!.leadingStart]).toEqual(['atom', 9, 12, 9]);
    expect([name!.start, name!.end, name!.leadingStart]).toEqual([13, 14, 12]);
    expect(dec.decode(m.source.subarray(fn!.leadingStart, fn!.start))).toBe(' ; the f\n  ');
    const quote = fn!.children[2]!;
    expect(quote.kind).toBe('quote');
    expect(dec.decode(m.source.subarray(quote.start, quote.end))).toBe("'(a b)");
    expect(quote.children[0]!.kind).toBe('list');
    const map = m.forms[1]!.node;
    expect(map.kind).toBe('map');
    // Source order, before the repeated key is dropped.
    expect(map.children.map((c) => dec.decode(m.source.subarray(c.start, c.end)))).toEqual([':k', '[1 "s"]', ':k', '2']);
    expect(map.term.kind === 'map' && map.term.entries.length).toBe(1);
    checkTree(m.source, f.node);
    checkTree(m.source, map);
  });

  it('gives the same terms, spans and errors as readModule', () => {
    for (const text of ['', ' ; c', "(a 'b) [c]\n", '(a', '"\\q"', '{1}', "'", '())']) {
      let plain: unknown;
      let spanned: unknown;
      try {
        const r = readModule(text);
        plain = r.forms.map((f) => [f.leadingStart, f.start, f.end, f.term]);
      } catch (e) {
        plain = (e as { code: string }).code + ':' + (e as { location: { offset: number } }).location.offset;
      }
      try {
        const r = readModuleSpans(text);
        spanned = r.forms.map((f) => [f.leadingStart, f.start, f.end, f.term]);
        for (const f of r.forms) expect([f.node.start, f.node.end, f.node.leadingStart, f.node.term]).toEqual([f.start, f.end, f.leadingStart, f.term]);
      } catch (e) {
        spanned = (e as { code: string }).code + ':' + (e as { location: { offset: number } }).location.offset;
      }
      expect(spanned).toEqual(plain);
    }
  });

  it('readTermSpans reads one term with its tree', () => {
    const r = readTermSpans('  ( x  ; c\n  [y] )  ');
    expect(r.node).toMatchObject({ kind: 'list', start: 2, end: 18, leadingStart: 0 });
    expect(r.node.children.map((c) => c.kind)).toEqual(['atom', 'vec']);
    expect(() => readTermSpans('a b')).toThrow(expect.objectContaining({ code: 'core/parse/unexpected' }));
    expect(() => readTermSpans(' ')).toThrow(expect.objectContaining({ code: 'core/parse/eof' }));
  });

  it('is iterative: 200,000 nested lists and quotes read without overflowing the stack', () => {
    const depth = 200_000;
    const text = "'(".repeat(depth) + 'x' + ')'.repeat(depth);
    const m = readModuleSpans(enc.encode(text));
    let n: NodeSpan = m.forms[0]!.node;
    let levels = 0;
    while (n.children.length > 0) {
      n = n.children[0]!;
      levels++;
    }
    expect(levels).toBe(2 * depth);
    expect(n.kind).toBe('atom');
    expect(n.start).toBe(2 * depth);
  });

  it('property: every node of hand-formatted modules satisfies the span invariants', () => {
    fc.assert(
      fc.property(fc.array(dataTerm, { minLength: 1, maxLength: 4 }), fc.integer(), (forms, seed) => {
        const text = messyModule(forms, rng(seed));
        const m = readModuleSpans(text);
        expect(m.forms).toHaveLength(forms.length);
        m.forms.forEach((f, i) => {
          expect(termsEqual(f.term, forms[i]!)).toBe(true);
          checkTree(m.source, f.node);
        });
      }),
      { numRuns: 200 },
    );
  });
});
