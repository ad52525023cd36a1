/**
 * Two merges the fuzzing of real modules got wrong, with exact expected bytes:
 * - one side renames a definition, the other inserts a form or a comment block directly before it:
 *   the insertion stays before the renamed definition (src/textmerge/semantic-pass.ts pairs the
 *   renamed definition with base's for the order merge);
 * - disjoint edits inside one `let` binding (often on one line) merge like any other sub-form
 *   when the binding names stay (src/textmerge/tree.ts `binderRule`); a binder renamed against an
 *   edit still conflicts.
 * The generated part splices both edits into every definition of the ledger fixture's modules
 * (fixtures/refactor/ledger: comments, `::meta`, CRLF, multi-line bodies); the expected result is
 * built from the inputs (theirs' text with ours' rename applied), not from the merge.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mergeStructuralBytes } from '../../src/textmerge/driver.js';
import { ROOT } from '../helpers/cli.js';

const enc = new TextEncoder();
const dec = new TextDecoder();
const MARKERS = { markerSize: 7, style: 'merge' as const, oursLabel: 'ours', baseLabel: 'base', theirsLabel: 'theirs' };

function merge(base: string, ours: string, theirs: string): { text: string; conflicts: string[] } {
  const r = mergeStructuralBytes(enc.encode(base), enc.encode(ours), enc.encode(theirs), 'gc', MARKERS, Infinity);
  return { text: dec.decode(r.result), conflicts: r.conflicts.map((c) => c.code) };
}

/** Both orders of the sides give `expected` with no conflict. */
function expectBoth(base: string, a: string, b: string, expected: string): void {
  expect(merge(base, a, b)).toEqual({ text: expected, conflicts: [] });
  expect(merge(base, b, a)).toEqual({ text: expected, conflicts: [] });
}

const MODULE = `(def ::meta '{:exports [app/shop::price app/shop::total]})

;; The unit price of an item.
(def app/shop::price
  (fn (item) (prim map/get item :price)))

(def app/shop::total
  (fn (items)
    (let ((sum (core/list::fold items 0 (fn (acc i) (prim int/add acc (app/shop::price i)))))
          (tax 7))
      (prim int/add sum tax))))
`;
const RENAMED = MODULE.replaceAll('app/shop::price', 'app/shop::unit-price');

describe('an insertion directly before a definition the other side renamed stays before it', () => {
  it('a new form', () => {
    const theirs = MODULE.replace(';; The unit price', '(def app/shop::currency :eur)\n\n;; The unit price');
    expectBoth(MODULE, RENAMED, theirs, theirs.replaceAll('app/shop::price', 'app/shop::unit-price'));
    expect(merge(MODULE, RENAMED, theirs).text).toBe(`(def ::meta '{:exports [app/shop::unit-price app/shop::total]})

(def app/shop::currency :eur)

;; The unit price of an item.
(def app/shop::unit-price
  (fn (item) (prim map/get item :price)))

(def app/shop::total
  (fn (items)
    (let ((sum (core/list::fold items 0 (fn (acc i) (prim int/add acc (app/shop::unit-price i)))))
          (tax 7))
      (prim int/add sum tax))))
`);
  });

  it('a comment block', () => {
    const theirs = MODULE.replace(';; The unit price', '; Prices are in minor units.\n; See app/shop::total.\n\n;; The unit price');
    expectBoth(MODULE, RENAMED, theirs, theirs.replaceAll('app/shop::price', 'app/shop::unit-price'));
  });

  it('a form right before a definition without comments, on CRLF lines', () => {
    const base = '(def app/m::a 1)\r\n(def app/m::b (fn (x) (app/m::a x)))\r\n(def app/m::c 3)\r\n';
    const ours = base.replaceAll('app/m::b', 'app/m::bee');
    const theirs = base.replace('(def app/m::b', '(def app/m::new 5)\r\n(def app/m::b');
    expectBoth(base, ours, theirs, '(def app/m::a 1)\r\n(def app/m::new 5)\r\n(def app/m::bee (fn (x) (app/m::a x)))\r\n(def app/m::c 3)\r\n');
  });
});

describe('edits inside one let binding merge like other sub-forms', () => {
  it('disjoint atom edits in one binding, on one line', () => {
    const ours = MODULE.replace('(core/list::fold items 0 ', '(core/list::fold items 1 ');
    const theirs = MODULE.replace('(prim int/add acc (app/shop::price i))', '(prim int/sub acc (app/shop::price i))');
    expectBoth(
      MODULE,
      ours,
      theirs,
      MODULE.replace('(core/list::fold items 0 ', '(core/list::fold items 1 ').replace('(prim int/add acc (app', '(prim int/sub acc (app'),
    );
  });

  it('two bindings, one edited by each side; a binding and the body', () => {
    const ours = MODULE.replace('(tax 7)', '(tax 8)');
    const theirs = MODULE.replace('items 0 ', 'items 100 ');
    expectBoth(MODULE, ours, theirs, MODULE.replace('(tax 7)', '(tax 8)').replace('items 0 ', 'items 100 '));
    const body = MODULE.replace('(prim int/add sum tax)', '(prim int/mul sum tax)');
    expectBoth(MODULE, ours, body, ours.replace('(prim int/add sum tax)', '(prim int/mul sum tax)'));
  });

  it('controls: the same atom changed differently conflicts; a binder renamed against an edit conflicts', () => {
    const seven = (n: string): string => MODULE.replace('(tax 7)', `(tax ${n})`);
    expect(merge(MODULE, seven('8'), seven('9')).conflicts).toEqual(['form/divergent-edit']);
    const renamedBinder = MODULE.replace('(tax 7)', '(vat 7)').replace('sum tax)', 'sum vat)');
    expect(merge(MODULE, renamedBinder, seven('9')).conflicts).toEqual(['form/divergent-edit']);
  });
});

describe('generated: every definition of the ledger modules, renamed on one side, an insertion before it on the other', () => {
  const dir = join(ROOT, 'fixtures/refactor/ledger');
  const files = readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.gc'))
    .sort();

  it('covers the fixture', () => {
    expect(files.length).toBeGreaterThan(15);
  });

  for (const file of files) {
    it(file, () => {
      const base = readFileSync(join(dir, file), 'utf8');
      const eol = base.includes('\r\n') ? '\r\n' : '\n';
      const lines = base.split(eol);
      let cases = 0;
      for (let i = 0; i < lines.length; i++) {
        const m = /^\(def ([a-z][\w/.-]*::[\w?!*<>=+-]+)(?=[\s)]|$)/.exec(lines[i]!);
        if (!m) continue;
        const name = m[1]!;
        const fresh = `${name}-renamed`;
        // Whole symbols only: the name followed by a delimiter.
        const rename = (text: string): string => text.replace(new RegExp(`${name.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}(?=[\\s)\\]}])`, 'g'), fresh);
        // The element starts at the comment lines directly above the definition.
        let start = i;
        while (start > 0 && /^\s*;/.test(lines[start - 1]!)) start--;
        const before = lines.slice(0, start).join(eol) + (start > 0 ? eol : '');
        const after = lines.slice(start).join(eol);
        const ns = name.slice(0, name.indexOf('::'));
        for (const insertion of [`(def ${ns}::inserted-${cases} 42)${eol}`, `; inserted note ${cases}${eol}${eol}`]) {
          const theirs = before + insertion + after;
          const ours = rename(base);
          const r = merge(base, ours, theirs);
          expect({ at: `${name} + ${JSON.stringify(insertion)}`, ...r }).toEqual({
            at: `${name} + ${JSON.stringify(insertion)}`,
            text: rename(theirs),
            conflicts: [],
          });
        }
        cases++;
      }
      expect(cases).toBeGreaterThan(0);
    });
  }
});
