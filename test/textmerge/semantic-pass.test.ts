// A rename one side made, carried into the other side's edits of the forms that use the old name
// (docs/driver.md "Renames and dangling references"), and `let` bindings one side adds merged with the other side's edit of the
// body (last block). Generated modules: one side renames `app/m::total` to `app/m::sum` everywhere (its text is
// base's with those symbols rewritten, as `sed` or `gcpatch refactor` leave it); the other edits
// the definition's body and the forms that use it (wraps or rewrites a call, changes parameters,
// adds a let binding or a use, deletes a form). Without a local binder of either name, a use of
// the new name or a removed use in the edit, the merge must be clean and exactly the editing
// side's text with the symbols renamed, in both orientations, through the reduced merge and the
// whole merge alike; with one, the merge must never be clean with a reference to the old name.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseModule } from '../../src/coreform/read.js';
import type { Term } from '../../src/coreform/term.js';
import type { MarkerOptions } from '../../src/textmerge/common/diff3.js';
import { mergeFileBytes, mergeStructuralBytes } from '../../src/textmerge/driver.js';
import { mergeModuleText } from '../../src/textmerge/module.js';
import { mergeSameAsWhole } from './same-as-whole.js';
import { symbolCounts } from '../../src/textmerge/resolve/name-analysis.js';
import { checkInvariants } from './invariants.js';
import { dec, enc } from './bytes.js';

const markers: MarkerOptions = { markerSize: 7, style: 'diff3', oursLabel: 'ours', baseLabel: 'base', theirsLabel: 'theirs' };

const OLD = 'app/m::total';
const NEW = 'app/m::sum';

/** One form that uses OLD, and how the editing side changed it (all false / 0: base's version). */
interface User {
  shape: 'add' | 'let' | 'call';
  d: number;
  /** The edit: a parameter added, the call wrapped, a let binding added, a second use, the use removed, the form deleted. */
  param: boolean;
  wrap: boolean;
  binding: boolean;
  extraUse: boolean;
  removed: boolean;
  deleted: boolean;
  /** Unsafe edits: a local binder named OLD around the body; a use of NEW beside the call, or around it. */
  shadow: boolean;
  usesNew: boolean;
  wrapNew: boolean;
}

interface Model {
  defFactor: number;
  users: User[];
  /** A form that does not use OLD, edited (its digit) or not. */
  other: number;
}

/** The module text of a model, with OLD spelled `name` (the renaming side's text is `render(base, NEW)`). */
function render(m: Model, name: string): string {
  const forms = [
    "; app/m: generated module.\n\n(def ::meta\n  '{:caps []\n    :exports [app/m::main]\n    :types {app/m::main ?}})",
    `;; Doubles.\n(def ${name}\n  (fn (n)\n    (prim int/mul n ${m.defFactor})))`,
  ];
  m.users.forEach((u, i) => {
    if (u.deleted) return;
    let call = u.removed ? 'x' : `(${name} x)`;
    if (u.wrap) call = `(prim int/neg ${call})`;
    if (u.wrapNew) call = `(${NEW} ${call})`;
    const extra = u.extraUse ? `(${name} ${u.d})` : String(u.d);
    const more = u.usesNew ? ` (${NEW} 0)` : '';
    let body: string;
    if (u.shape === 'add') body = `(prim int/add ${call} ${extra}${more})`;
    else if (u.shape === 'let') {
      const bindings = u.binding ? `((a (prim int/add x ${u.d}))\n          (b (prim int/mul x 2)))` : `((a (prim int/add x ${u.d})))`;
      body = `(let ${bindings}\n      (prim int/sub ${call.replace(/\bx\b/, 'a')} ${u.extraUse ? `(${name} a)` : '1'}${more}))`;
    } else body = `(prim int/add ${call} ${extra}${more})`;
    if (u.shadow) body = `(let ((${OLD} (fn (z) z)))\n      ${body})`;
    const params = u.param ? '(x y)' : '(x)';
    forms.push(u.shape === 'call' ? `(def app/m::u${i}\n  ${body.replace(/\bx\b/g, '7')})` : `(def app/m::u${i}\n  (fn ${params}\n    ${body}))`);
  });
  forms.push(`(def app/m::other\n  (fn (x)\n    (prim int/add x ${m.other})))`);
  forms.push(`(def app/m::main\n  (fn (_)\n    (app/m::u0 1)))`);
  return `${forms.join('\n\n')}\n\napp/m::main\n`;
}

const user: fc.Arbitrary<User> = fc.record({
  shape: fc.constantFrom('add' as const, 'let' as const, 'call' as const),
  d: fc.integer({ min: 0, max: 9 }),
  param: fc.constant(false),
  wrap: fc.constant(false),
  binding: fc.constant(false),
  extraUse: fc.constant(false),
  removed: fc.constant(false),
  deleted: fc.constant(false),
  shadow: fc.constant(false),
  usesNew: fc.constant(false),
  wrapNew: fc.constant(false),
});

type Edit = 'digit' | 'param' | 'wrap' | 'binding' | 'extraUse' | 'removed' | 'deleted' | 'shadow' | 'usesNew' | 'wrapNew';
const SAFE: Edit[] = ['digit', 'param', 'wrap', 'binding', 'extraUse', 'deleted'];

/** A base model and the editing side's model (1–3 edits of the users, maybe of the definition and `other`). */
function scenario(edits: readonly Edit[]): fc.Arbitrary<{ base: Model; edited: Model }> {
  return fc
    .record({
      users: fc.array(user, { minLength: 1, maxLength: 4 }),
      other: fc.integer({ min: 0, max: 9 }),
      changes: fc.array(fc.record({ at: fc.nat(3), edit: fc.constantFrom(...edits) }), { minLength: 1, maxLength: 3 }),
      defEdit: fc.boolean(),
      otherEdit: fc.boolean(),
    })
    .map(({ users, other, changes, defEdit, otherEdit }) => {
      const base: Model = { defFactor: 2, users, other };
      const edited: Model = { defFactor: defEdit ? 3 : 2, users: users.map((u) => ({ ...u })), other: otherEdit ? (other + 1) % 10 : other };
      for (const { at, edit } of changes) {
        const u = edited.users[at % users.length]!;
        if (edit === 'digit') u.d = (u.d + 1) % 10;
        else if (edit === 'param' || edit === 'binding') {
          if (u.shape === 'call') u.d = (u.d + 3) % 10;
          else if (edit === 'param' || u.shape === 'let') u[edit] = true;
          else u.wrap = true;
        } else u[edit] = true;
      }
      return { base, edited };
    });
}

/** Qualified symbols of every form of a module's text. */
function symbols(text: string): Set<string> {
  const out = new Map<string, number>();
  for (const f of parseModule(enc(text)) as Term[]) symbolCounts(f, out);
  return new Set(out.keys());
}

/** How many merges the reduced merge (segmentReduced) ran on rather than handing over. */
const tally = { reduced: 0 };

/** Merges with and without the reduction (mergeSameAsWhole also compares the two when it ran). */
function mergeBoth(base: string, ours: string, theirs: string): { text: string; codes: string[]; messages: string[] } {
  const results = (['always', 'never'] as const).map((reduce) => {
    const r = mergeSameAsWhole(enc(base), enc(ours), enc(theirs), { markers, reduce, checkSafetyNet: true });
    if (r.stats.reduced) tally.reduced++;
    return { text: dec(r.text), codes: r.conflicts.map((c) => c.code), messages: r.messages };
  });
  expect(results[0], 'the reduced merge equals the whole merge').toEqual(results[1]);
  return results[1]!;
}

/** Base's text, and (ours, theirs) both ways round: the renaming side and the editing side. */
function texts(base: Model, edited: Model): { b: string; sides: (readonly [string, string])[] } {
  const renamed = render(base, NEW);
  const e = render(edited, OLD);
  return {
    b: render(base, OLD),
    sides: [
      [renamed, e],
      [e, renamed],
    ],
  };
}

describe('a rename carried into the other side’s edits (generated)', () => {
  it('safe edits: clean, exactly the editing side’s text renamed, both orientations, reduced = whole, invariants hold', () => {
    let carried = 0;
    fc.assert(
      fc.property(scenario(SAFE), ({ base, edited }) => {
        const { b, sides } = texts(base, edited);
        const want = render(edited, NEW);
        for (const [o, t] of sides) {
          const r = mergeBoth(b, o, t);
          expect(r.codes, `${JSON.stringify([b, o, t])}\n${r.text}`).toEqual([]);
          expect(r.text).toBe(want);
          if (r.messages.some((m) => m.includes(' edit of ') || m.includes(' deletion of '))) carried++;
          const outcome = mergeFileBytes(enc(b), enc(o), enc(t), { mode: 'gc', markers }, () => {
            throw new Error('line merge not expected');
          });
          expect(outcome.exitCode).toBe(0);
          checkInvariants(enc(b), enc(o), enc(t), outcome, markers);
        }
      }),
      { numRuns: 150 },
    );
    // Most scenarios need the carry (the per-element merge alone conflicts on them), and the
    // reduced merge ran on many (so reduced = whole is not compared vacuously).
    expect(carried).toBeGreaterThan(150);
    expect(tally.reduced).toBeGreaterThan(150);
  });

  it('a local binder of the old name, a use of the new name, a use removed: never a clean result that references the old name', () => {
    let conflicts = 0;
    fc.assert(
      fc.property(scenario(['shadow', 'usesNew', 'wrapNew', 'removed', 'digit', 'wrap']), ({ base, edited }) => {
        const { b, sides } = texts(base, edited);
        for (const [o, t] of sides) {
          const r = mergeBoth(b, o, t);
          if (r.codes.length > 0) conflicts++;
          const why = `${JSON.stringify([b, o, t])}\n${r.text}`;
          expect(r.codes.length === 0 && symbols(r.text).has(OLD), `a clean result references the old name: ${why}`).toBe(false);
          // A live local binder of the old name always conflicts.
          expect(edited.users.some((u) => u.shadow && !u.deleted) && r.codes.length === 0, `a clean result despite a binder: ${why}`).toBe(false);
        }
      }),
      { numRuns: 120 },
    );
    expect(conflicts).toBeGreaterThan(40);
  });
});

describe('a rename against an edit that drops the old name', () => {
  it('both sides renamed it, differently: a conflict, not one side’s name', () => {
    const base = render(
      {
        defFactor: 2,
        users: [
          {
            shape: 'add',
            d: 1,
            param: false,
            wrap: false,
            binding: false,
            extraUse: false,
            removed: false,
            deleted: false,
            shadow: false,
            usesNew: false,
            wrapNew: false,
          },
        ],
        other: 0,
      },
      OLD,
    );
    const to = (name: string): string => base.replaceAll(`${OLD} `, `${name} `).replaceAll(`${OLD}\n`, `${name}\n`);
    for (const [o, t] of [
      [to(NEW), to('app/m::amount')],
      [to('app/m::amount'), to(NEW)],
    ] as const) {
      const r = mergeBoth(base, o, t);
      expect(r.codes.length, r.text).toBeGreaterThan(0);
      expect(r.messages.filter((m) => m.includes(' edit of '))).toEqual([]);
    }
  });
});

describe('a rename with two new names that fit', () => {
  it('carries the one it has always carried: the last, in reading order, of the map that holds both', () => {
    const base = '(def p::n 1)\n\n(def u 0)\n';
    const ours = '(def z {:a p::m1 :b p::m2})\n\n(def p::m1 1)\n\n(def p::m2 1)\n\n(def u 0)\n';
    const theirs = '(def p::n 1)\n\n(def u p::n)\n';
    const r = mergeStructuralBytes(enc(base), enc(ours), enc(theirs), 'gc', markers, Infinity);
    expect(r.conflicts).toEqual([]);
    expect(dec(r.result)).toBe('(def z {:a p::m1 :b p::m2})\n\n(def p::m1 1)\n\n(def p::m2 1)\n\n(def u p::m2)\n');
    // the count order behind that choice
    expect([...symbolCounts(parseModule(enc('{:a p::m1 :b p::m2}'))[0] as Term).keys()]).toEqual([':b', 'p::m2', ':a', 'p::m1']);
  });
});

describe('a rename against the deletion of the renamed definition', () => {
  it('is a delete/modify conflict (the renamed copy does not survive the deletion quietly), both orientations, reduced = whole', () => {
    const renamed = '(def app/m::sum\n  (fn (n)\n    (prim int/mul n 2)))\n';
    const base = `${renamed.replace(NEW, OLD)}\n(def app/m::other 1)\n`;
    const ours = `${renamed}\n(def app/m::other 1)\n`;
    const theirs = '(def app/m::other 1)\n';
    const block = (o: string, t: string): string =>
      `<<<<<<< ours\n${o}||||||| base\n${renamed.replace(NEW, OLD)}=======\n${t}>>>>>>> theirs\n\n(def app/m::other 1)\n`;
    const r1 = mergeBoth(base, ours, theirs);
    expect([r1.codes, r1.text]).toEqual([['form/delete-modify'], block(renamed, '')]);
    const r2 = mergeBoth(base, theirs, ours);
    expect([r2.codes, r2.text]).toEqual([['form/delete-modify'], block('', renamed)]);
    const detail = mergeModuleText(enc(base), enc(ours), enc(theirs), { markers }).conflicts[0]!.detail;
    expect(detail).toBe(`theirs deleted it, ours renamed it to ${NEW}`);
  });
});

describe('a let binding one side adds, the body edited on the other (generated)', () => {
  const LEAVES = ['a', 'x', '1', '2'];
  /** `(let ((a …) [added]) (prim int/add LEAVES…))` in a definition; `added` goes first or last. */
  const letForm = (leaves: readonly string[], added: 'first' | 'last' | undefined): string => {
    const a = '(a (prim int/add x 1))';
    const b = '(b (prim int/mul x 2))';
    const bindings = added === 'first' ? `(${b}\n          ${a})` : added === 'last' ? `(${a}\n          ${b})` : `(${a})`;
    return `(def app/m::f\n  (fn (x)\n    (let ${bindings}\n      (prim int/add ${leaves.join(' ')}))))\n\napp/m::f\n`;
  };
  it('merges cleanly (both edits kept) unless the other side’s edit uses the new name; both orientations', () => {
    const counts = { clean: 0, conflict: 0 };
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...LEAVES), { minLength: 2, maxLength: 5 }),
        fc.constantFrom('first' as const, 'last' as const),
        fc.nat(),
        fc.nat(),
        fc.boolean(),
        fc.constantFrom('3', 'x', 'a', 'b', '(prim int/neg b)', '(prim int/neg a)'),
        (leaves, where, i0, j0, addingUses, value) => {
          const i = i0 % leaves.length;
          const j = j0 % leaves.length;
          fc.pre(i !== j && value !== leaves[j]);
          const withLeaf = (ls: readonly string[], k: number, v: string): string[] => ls.map((l, n) => (n === k ? v : l));
          const adding = addingUses ? withLeaf(leaves, i, 'b') : leaves;
          const base = letForm(leaves, undefined);
          const a = letForm(adding, where);
          const editing = letForm(withLeaf(leaves, j, value), undefined);
          const want = letForm(withLeaf(adding, j, value), where);
          for (const [o, t] of [
            [a, editing],
            [editing, a],
          ] as const) {
            const r = mergeBoth(base, o, t);
            // A value that uses b conflicts; any other merges to exactly `want`.
            const conflicting = value.includes('b');
            const outcome = { codes: r.codes, text: r.codes.length === 0 ? r.text : '(conflict)' };
            expect(outcome, `${JSON.stringify([base, o, t])}\n${r.text}`).toEqual(
              conflicting ? { codes: ['form/divergent-edit'], text: '(conflict)' } : { codes: [], text: want },
            );
            if (conflicting) counts.conflict++;
            else counts.clean++;
          }
        },
      ),
      { numRuns: 150 },
    );
    expect(counts.clean).toBeGreaterThan(100);
    expect(counts.conflict).toBeGreaterThan(40);
  });
});
