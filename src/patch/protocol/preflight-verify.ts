/**
 * The host's check of a patch-preflight report (GenesisCode `docs/spec/PATCH_SCHEMA.md`: "The host validates complete
 * ordered check coverage and fails closed on malformed, incomplete, unbound, or
 * identity-mismatched reports"). Independent of `preflight.ts`: it re-walks the request itself.
 */
import { D, literal } from '../../coreform/closed.js';
import { hashTerm } from '../../coreform/hash.js';
import { int, kw, mapGet, str, termsEqual, type MapTerm, type Term } from '../../coreform/term.js';
import type { GcError } from '../../util/errors.js';
import { decodeReport, reportMismatch } from './report-check.js';

/** The verified outcome of a preflight report. */
export interface PreflightOutcome {
  ok: boolean;
  /** The conflict record when `ok` is false. */
  conflict: { actual: string; expected: string; op: string; ordinal: number; path: string } | undefined;
  checkCount: number;
}

const reject = (message: string): GcError => reportMismatch('patch-preflight', message);

const get = (m: Term, k: string): Term | undefined => (m.kind === 'map' ? mapGet(m, kw(k)) : undefined);
const text = (t: Term | undefined): string | undefined => (t?.kind === 'str' ? t.value : undefined);

/** Expected transitions per op symbol: [field, expected, next] in evaluation order. */
const TRANSITIONS: Record<string, [string, string, string][]> = {
  ':replace-node': [['module-path', 'file', 'file']],
  ':replace-node-id': [['module-path', 'file', 'file']],
  ':rename-symbol': [['module-path', 'file', 'file']],
  ':rewrite-imports': [['module-path', 'file', 'file']],
  ':rewrite-exports': [['module-path', 'file', 'file']],
  ':migrate-contract-signature': [['module-path', 'file', 'file']],
  ':add-module': [['module-path', 'absent', 'file']],
  ':remove-module': [['module-path', 'file', 'absent']],
  ':move-module': [
    ['from-module-path', 'file', 'absent'],
    ['to-module-path', 'absent', 'file'],
  ],
  ':split-module': [
    ['from-module-path', 'file', 'file'],
    ['to-module-path', 'absent', 'file'],
  ],
  ':update-manifest': [],
};

/**
 * Verifies a preflight report against its request: closed shape and fixed values, `:patch-h` =
 * hash-term(request patch), `:path-states-h` = hash-term(request path-states), every check in
 * order and nothing else, the conflict (if any) exactly where the walk first fails, and the final
 * virtual states.
 * @throws GcError `patch/report-mismatch` (exit 50) on any disagreement.
 */
export function verifyPreflightReport(request: MapTerm, report: Term): PreflightOutcome {
  const rep = decodeReport(
    report,
    {
      checks: D.vec,
      conflict: D.any,
      'final-path-states': D.vec,
      kind: literal(str('genesis/patch-preflight-v0.1')),
      ok: D.bool,
      'patch-h': D.hex64,
      'path-states-h': D.hex64,
      profile: literal(str('genesis/patch-authority-v0.1')),
      v: literal(int(1)),
    },
    'patch-preflight report',
    reject,
  );
  const patch = get(request, 'patch')!;
  const states = get(request, 'path-states')!;
  if (rep['patch-h'] !== hashTerm(patch)) throw reject(':patch-h does not bind the request patch');
  if (rep['path-states-h'] !== hashTerm(states)) throw reject(':path-states-h does not bind the request path states');
  const virtual = new Map<string, string>();
  for (const r of states.kind === 'vec' ? states.items : []) virtual.set(text(get(r, 'path'))!, text(get(r, 'state'))!);
  const ops = get(patch, 'ops');
  if (ops?.kind !== 'vec') throw reject('request patch has no :ops vector');
  const expectedChecks: Term[] = [];
  let conflict: PreflightOutcome['conflict'];
  walk: for (let ordinal = 0; ordinal < ops.items.length; ordinal++) {
    const op = ops.items[ordinal]!;
    const opSym = get(op, 'op');
    const transitions = opSym?.kind === 'sym' ? TRANSITIONS[opSym.name] : undefined;
    if (transitions === undefined) throw reject(`request op ${ordinal} has no known :op`);
    for (const [f, expected] of transitions) {
      const path = text(get(op, f));
      if (path === undefined) throw reject(`request op ${ordinal} lacks :${f}`);
      const actual = virtual.get(path) ?? 'unbound';
      if (actual !== expected) {
        conflict = { actual, expected, op: (opSym as { name: string }).name, ordinal, path };
        break walk;
      }
      expectedChecks.push(kwMapOf({ actual: str(actual), expected: str(expected), op: opSym!, ordinal: int(ordinal), path: str(path) }));
    }
    for (const [f, , next] of transitions) virtual.set(text(get(op, f))!, next);
  }
  const checks = rep.checks.items;
  if (checks.length !== expectedChecks.length || !checks.every((c, i) => termsEqual(c, expectedChecks[i]!))) {
    throw reject(`:checks must be exactly the ${expectedChecks.length} passing checks in op order`);
  }
  if (rep.ok !== (conflict === undefined)) throw reject(':ok disagrees with the walk');
  if (conflict === undefined) {
    if (rep.conflict.kind !== 'nil') throw reject(':conflict must be nil when :ok is true');
  } else {
    const want = kwMapOf({
      actual: str(conflict.actual),
      code: str('patch/path-state-conflict'),
      expected: str(conflict.expected),
      op: kw(conflict.op.slice(1)),
      ordinal: int(conflict.ordinal),
      path: str(conflict.path),
    });
    if (!termsEqual(rep.conflict, want)) throw reject(':conflict is not the first failing check');
  }
  const finals = rep['final-path-states'].items.map((r) => [text(get(r, 'path')), text(get(r, 'state'))]);
  const wantFinals = [...virtual.entries()].sort((a, b) => Buffer.compare(Buffer.from(a[0]), Buffer.from(b[0])));
  if (finals.length !== wantFinals.length || finals.some(([p, s], i) => p !== wantFinals[i]![0] || s !== wantFinals[i]![1])) {
    throw reject(':final-path-states disagrees with the walk');
  }
  return { ok: rep.ok, conflict, checkCount: checks.length };
}

function kwMapOf(fields: Record<string, Term>): Term {
  return {
    kind: 'map',
    entries: Object.keys(fields)
      .sort()
      .map((k) => [kw(k), fields[k]!] as const),
  } as Term;
}
