import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalizeModule } from '../../src/coreform/canon.js';
import { defName, formsEqual } from '../../src/coreform/forms.js';
import { printTerm } from '../../src/coreform/print.js';
import { parseModule, readTerm } from '../../src/coreform/read.js';
import { int, listItems, pair, sym, type Term } from '../../src/coreform/term.js';
import { dataTerm } from './arbitrary.js';

/** True when every pair in `t`, at any depth, starts a proper (nil-terminated) list. */
function onlyProperLists(t: Term): boolean {
  const stack = [t];
  while (stack.length > 0) {
    const u = stack.pop()!;
    if (u.kind === 'pair') {
      const items = listItems(u);
      if (items === undefined) return false;
      stack.push(...items);
    } else if (u.kind === 'vec') stack.push(...u.items);
    else if (u.kind === 'map') for (const [k, v] of u.entries) stack.push(k, v);
  }
  return true;
}

/** The head test `(def SYMBOL …` without the proper-list requirement (what a form label needs). */
function defHeadName(form: Term): string | undefined {
  if (form.kind !== 'pair' || form.car.kind !== 'sym' || form.car.name !== 'def') return undefined;
  return form.cdr.kind === 'pair' && form.cdr.car.kind === 'sym' ? form.cdr.car.name : undefined;
}

/** The canonical forms of `raw`, or none when they are not valid CoreForm (canonicalize refuses them). */
function canonicalOrNone(raw: Term[]): Term[] {
  try {
    return canonicalizeModule(raw);
  } catch {
    return [];
  }
}

describe('defName', () => {
  it('names the symbol a (def NAME …) form defines', () => {
    expect(defName(readTerm('(def main (fn (x) x))'))).toBe('main');
    expect(defName(readTerm('(def main)'))).toBe('main');
    expect(defName(readTerm('(def ::meta {:a 1} extra)'))).toBe('::meta');
  });

  it('is undefined for anything else', () => {
    for (const text of ['(def)', '(def 1 2)', '(def "x" 2)', '(fn (x) x)', '[def x 1]', 'def', '((def) x 1)', '42']) {
      expect(defName(readTerm(text)), text).toBeUndefined();
    }
  });

  it('needs a proper list: an improper (def x . 3), which no reader or canonicalizer builds, is not a def', () => {
    const improper = pair(sym('def'), pair(sym('x'), int(3)));
    expect(defName(improper)).toBeUndefined();
    expect(defHeadName(improper)).toBe('x');
    // A dot is a symbol constituent: `(def x . 3)` reads as a proper list of four items.
    const read = readTerm('(def x . 3)');
    expect(listItems(read)?.length).toBe(4);
    expect(defName(read)).toBe('x');
  });

  it('agrees with the head test on every form read or canonicalized (they hold only proper lists)', () => {
    fc.assert(
      fc.property(fc.oneof(fc.constant(sym('def')), dataTerm), fc.array(dataTerm, { maxLength: 3 }), (head, rest) => {
        const text = `(${[head, ...rest].map((t) => printTerm(t)).join(' ')})`;
        const raw = parseModule(text);
        const forms = [...raw, ...canonicalOrNone(raw)];
        for (const form of forms) {
          expect(onlyProperLists(form)).toBe(true);
          expect(defName(form)).toBe(defHeadName(form));
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('formsEqual', () => {
  const a = parseModule('(def x 1) (def y [1 2])');
  it('compares term by term', () => {
    expect(formsEqual(a, parseModule('(def x 1)\n; c\n(def y [1 2])'))).toBe(true);
    expect(formsEqual(a, a)).toBe(true);
    expect(formsEqual(a, parseModule('(def x 1) (def y [1 3])'))).toBe(false);
    expect(formsEqual(a, parseModule('(def x 1)'))).toBe(false);
    expect(formsEqual([], [])).toBe(true);
  });
  it('treats undefined as an absent module, equal only to undefined', () => {
    expect(formsEqual(undefined, undefined)).toBe(true);
    expect(formsEqual(undefined, [])).toBe(false);
    expect(formsEqual([], undefined)).toBe(false);
  });
});
