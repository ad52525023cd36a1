// Tree merge inside one form (docs/driver.md "Inside a form: tree merge"): property tests on generated trees, the renderer that
// widens conflicts to whole lines, the semantic pass on generated modules, and the memory cap of
// the alignment (docs/driver.md "Memory": a large form rewritten on both sides falls back to the line merge).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseModule } from '../../src/coreform/read.js';
import { termsEqual } from '../../src/coreform/term.js';
import { TEXT_TOO_LARGE, myersDiff, type MarkerOptions } from '../../src/textmerge/common/diff3.js';
import { mergeFileBytes, mergeStructuralBytes } from '../../src/textmerge/driver.js';
import { mergeFormTree, readingOf, renderTree } from '../../src/textmerge/resolve/tree-merge.js';
import { isGcError } from '../../src/util/errors.js';

const enc = new TextEncoder();
const dec = new TextDecoder();
const markers: MarkerOptions = { markerSize: 7, style: 'diff3', oursLabel: 'ours', baseLabel: 'base', theirsLabel: 'theirs' };

/** A generated tree: containers of leaves; map children alternate unique keyword keys and values. */
type Node = { t: 'leaf'; s: string } | { t: 'list' | 'vec' | 'map'; items: Node[]; multiline: boolean };

const leaf = fc.oneof(fc.integer({ min: 0, max: 99 }).map(String), fc.constantFrom('a', 'b', ':x', ':y', '"s"', 'nil'));
const tree: fc.Arbitrary<Node> = fc.letrec<{ node: Node }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf.map((s) => ({ t: 'leaf', s }) as Node),
    fc.record({ t: fc.constantFrom('list' as const, 'vec' as const), items: fc.array(tie('node'), { minLength: 1, maxLength: 4 }), multiline: fc.boolean() }),
    fc
      .record({ vals: fc.array(tie('node'), { minLength: 1, maxLength: 4 }), multiline: fc.boolean() })
      .map(({ vals, multiline }) => ({ t: 'map', multiline, items: vals.flatMap((v, i) => [{ t: 'leaf', s: `:k${i}` } as Node, v]) }) as Node),
  ),
})).node;

function print(n: Node, indent = '  '): string {
  if (n.t === 'leaf') return n.s;
  const [open, close] = n.t === 'list' ? ['(', ')'] : n.t === 'vec' ? ['[', ']'] : ['{', '}'];
  const sep = n.multiline ? `\n${indent} ` : ' ';
  return open + n.items.map((c) => print(c, `${indent} `)).join(sep) + close;
}

/** Paths (child indices) of the editable leaves: every leaf except map keys. */
function leafPaths(n: Node, path: number[] = [], out: number[][] = []): number[][] {
  if (n.t === 'leaf') out.push(path);
  else n.items.forEach((c, i) => (n.t === 'map' && i % 2 === 0 ? undefined : leafPaths(c, [...path, i], out)));
  return out;
}

function setLeaf(n: Node, path: readonly number[], s: string): Node {
  if (path.length === 0) return { t: 'leaf', s };
  if (n.t === 'leaf') return n;
  const items = [...n.items];
  items[path[0]!] = setLeaf(items[path[0]!]!, path.slice(1), s);
  return { ...n, items };
}

const form = (n: Node): string => `(def app/m::f\n  '${print(n)})`;
const module = (n: Node): Uint8Array => enc.encode(`; generated\n\n${form(n)}\n\napp/m::f\n`);

/** A tree with two distinct leaf paths (neither a prefix of the other: leaves never are). */
const withTwoLeaves = tree
  .filter((n) => leafPaths(n).length >= 2)
  .chain((n) => {
    const paths = leafPaths(n);
    return fc
      .record({ n: fc.constant(n), i: fc.nat(paths.length - 1), j: fc.nat(paths.length - 1) })
      .filter(({ i, j }) => i !== j)
      .map(({ n, i, j }) => ({ n, p: paths[i]!, q: paths[j]! }));
  });

describe('tree merge on generated trees', () => {
  it('(base, x, base) → x and (base, base, x) → x byte for byte', () => {
    fc.assert(
      fc.property(withTwoLeaves, ({ n, p }) => {
        const b = module(n);
        const x = module(setLeaf(n, p, '1000'));
        for (const [o, t] of [
          [x, b],
          [b, x],
        ] as const) {
          const r = mergeStructuralBytes(b, o, t, 'gc', markers, Infinity);
          expect(r.conflicts).toEqual([]);
          expect(Buffer.from(r.result).equals(x)).toBe(true);
        }
        const tr = mergeFormTree(enc.encode(form(n)), enc.encode(form(setLeaf(n, p, '1000'))), enc.encode(form(n)));
        expect(tr && dec.decode(readingOf(tr.segments, 'ours'))).toBe(form(setLeaf(n, p, '1000')));
      }),
      { numRuns: 150 },
    );
  });

  it('edits of two different leaves merge cleanly, the result holds both, and swapping sides gives the same form', () => {
    fc.assert(
      fc.property(withTwoLeaves, ({ n, p, q }) => {
        const b = module(n);
        const o = module(setLeaf(n, p, '1001'));
        const t = module(setLeaf(n, q, '1002'));
        const want = parseModule(module(setLeaf(setLeaf(n, p, '1001'), q, '1002')));
        const r1 = mergeStructuralBytes(b, o, t, 'gc', markers, Infinity);
        const r2 = mergeStructuralBytes(b, t, o, 'gc', markers, Infinity);
        expect(r1.conflicts).toEqual([]);
        expect(r2.conflicts).toEqual([]);
        for (const r of [r1, r2]) {
          const got = parseModule(r.result);
          expect(got.length).toBe(want.length);
          got.forEach((g, k) => expect(termsEqual(g, want[k]!)).toBe(true));
        }
        expect(dec.decode(r1.result)).toBe(dec.decode(r2.result));
      }),
      { numRuns: 200 },
    );
  });

  it('the same leaf changed differently conflicts; swapping sides swaps the sections; markers sit on whole lines', () => {
    fc.assert(
      fc.property(withTwoLeaves, ({ n, p }) => {
        const b = module(n);
        const o = module(setLeaf(n, p, '2001'));
        const t = module(setLeaf(n, p, '2002'));
        const r1 = mergeStructuralBytes(b, o, t, 'gc', markers, Infinity);
        const r2 = mergeStructuralBytes(b, t, o, 'gc', markers, Infinity);
        expect(r1.conflicts.length).toBeGreaterThan(0);
        const swap = (s: string): string => s.replaceAll('2001', '\u0000').replaceAll('2002', '2001').replaceAll('\u0000', '2002');
        expect(swap(dec.decode(r2.result))).toBe(dec.decode(r1.result));
        for (const line of dec
          .decode(r1.result)
          .split('\n')
          .filter((l) => /[<=>|]{7}/.test(l))) {
          expect(line).toMatch(/^(<{7} ours|\|{7} base|={7}|>{7} theirs)$/);
        }
      }),
      { numRuns: 150 },
    );
  });
});

describe('renderTree', () => {
  it('widens a conflict to its whole line and keeps the rest of the form', () => {
    const r = mergeFormTree(enc.encode('(f a\n  b\n  c)'), enc.encode('(f a\n  B1\n  c)'), enc.encode('(f a\n  B2\n  c)'))!;
    expect(r.conflicts).toBe(1);
    const out = renderTree(r.segments, markers);
    expect(dec.decode(out.bytes)).toBe('(f a\n<<<<<<< ours\n  B1\n||||||| base\n  b\n=======\n  B2\n>>>>>>> theirs\n  c)');
    expect(out.markerLines).toEqual([1]);
  });
  it('a conflict on the last line ends the text with the closing marker (no extra LF)', () => {
    const r = mergeFormTree(enc.encode('(f a\n  b)'), enc.encode('(f a\n  x)'), enc.encode('(f a\n  y)'))!;
    expect(dec.decode(renderTree(r.segments, markers).bytes)).toBe('(f a\n<<<<<<< ours\n  x)\n||||||| base\n  b)\n=======\n  y)\n>>>>>>> theirs');
  });
});

describe('semantic pass on generated modules', () => {
  const names = ['app/m::d0', 'app/m::d1', 'app/m::d2', 'app/m::d3'];
  it('no clean result holds a reference, added by one side, to a definition the other side removed', () => {
    fc.assert(
      fc.property(fc.nat(3), fc.nat(3), fc.boolean(), fc.boolean(), (removed, user, viaNew, oursRemoves) => {
        const def = (n: string, body: string): string => `(def ${n}\n  ${body})\n`;
        const baseForms = names.map((n, i) => def(n, `(prim int/add ${i} 1)`));
        const removing = baseForms.filter((_, i) => i !== removed);
        const user2 = user === removed ? (user + 1) % 4 : user;
        const using = viaNew
          ? [...baseForms, def('app/m::fresh', `(${names[removed]} 7)`)]
          : baseForms.map((f, i) => (i === user2 ? def(names[i]!, `(${names[removed]} ${i})`) : f));
        const b = enc.encode(baseForms.join('\n'));
        const r = enc.encode(removing.join('\n'));
        const u = enc.encode(using.join('\n'));
        const [o, t] = oursRemoves ? [r, u] : [u, r];
        const outcome = mergeFileBytes(b, o, t, { mode: 'gc', markers }, () => ({ ok: false, text: new Uint8Array(0), conflicts: 0, message: 'not used' }));
        const referencesRemoved = (bytes: Uint8Array): boolean => {
          const forms = parseModule(bytes);
          const text = forms.map((f) => JSON.stringify(f, (_, v) => (typeof v === 'bigint' ? String(v) : v))).join('\n');
          return text.includes(`"${names[removed]}"`);
        };
        const clean = outcome.exitCode === 0;
        expect(clean && referencesRemoved(outcome.result ?? o), 'a clean result references a removed definition').toBe(false);
        // A conflict is on the dangling reference (or the deleted definition's edit).
        expect(clean || outcome.conflicts.some((c) => c.code === 'form/dangling-reference' || c.code === 'form/delete-modify')).toBe(true);
      }),
      { numRuns: 100 },
    );
  });
});

describe('memory cap', () => {
  it('myersDiff refuses to save more frontier entries than its budget', () => {
    const a = Int32Array.from({ length: 400 }, (_, i) => i);
    const b = Int32Array.from({ length: 400 }, (_, i) => 1000 + i);
    let error: unknown;
    try {
      myersDiff(a, b, Infinity, 10_000);
    } catch (e) {
      error = e;
    }
    expect(isGcError(error) && error.code === TEXT_TOO_LARGE).toBe(true);
    expect(myersDiff(a, a, Infinity, 10)).toEqual([]);
  });

  it('a large form rewritten differently on both sides falls back to the line merge', () => {
    const big = (tag: string): Uint8Array => {
      const rows = Array.from({ length: 4000 }, (_, i) => `    [${i} "${tag}-${i}"]`);
      return enc.encode(`(def app/m::table\n  '[\n${rows.join('\n')}])\n\napp/m::table\n`);
    };
    const base = big('base');
    expect(base.length).toBeGreaterThan(59_000);
    let lineMergeCalls = 0;
    const outcome = mergeFileBytes(base, big('ours'), big('theirs'), { mode: 'gc', markers, timeoutMs: 60_000 }, () => {
      lineMergeCalls++;
      return { ok: true, text: enc.encode('line merge\n'), conflicts: 1, message: '' };
    });
    expect(outcome.method).toBe('line');
    expect(outcome.reason).toContain(TEXT_TOO_LARGE);
    expect(lineMergeCalls).toBe(1);
    expect(outcome.exitCode).toBe(1);
    // The same form with one row changed on each side is merged structurally (the cap is not hit).
    const edit = (tag: string, row: number): Uint8Array => enc.encode(dec.decode(base).replace(`"base-${row}"`, `"${tag}"`));
    const small = mergeFileBytes(base, edit('ours', 10), edit('theirs', 3000), { mode: 'gc', markers, timeoutMs: 60_000 }, () => {
      throw new Error('line merge not expected');
    });
    expect(small.method).toBe('structural');
    expect(small.exitCode).toBe(0);
    // Both rows changed, everything else byte for byte as in the base.
    expect(dec.decode(small.result!)).toBe(dec.decode(base).replace('"base-10"', '"ours"').replace('"base-3000"', '"theirs"'));
  });
});
