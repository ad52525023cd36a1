/**
 * patch-preflight: the path-state machine over `absent` / `file` / `other` that every apply runs
 * before opening the evidence store or touching the package. Implements GenesisCode `docs/spec/PATCH_SCHEMA.md` (the
 * `core/cli::patch-preflight` paragraph) and docs/reference/patch-protocols.md §3.6. The independent verifier is
 * `preflight-verify.ts`; the host side that inspects the filesystem is `inspectPathStates` in src/patch/apply/host.ts.
 *
 * Ops are evaluated in vector order against a virtual state: module edits (replace-node/-id,
 * rename-symbol, rewrite-imports/-exports, migrate-contract-signature) require `file`; add-module
 * requires `absent` (→ `file`); remove-module requires `file` (→ `absent`); move-module requires
 * a `file` source and an `absent` target (→ source absent, target file); split-module requires a
 * `file` source and an `absent` target (→ target file); update-manifest has no check. The first
 * unsatisfied check stops evaluation with a `patch/path-state-conflict` record.
 */
import { decodeClosed, D, literal, oneOfStr, vecOf } from '../../coreform/closed.js';
import { hashTerm } from '../../coreform/hash.js';
import { bool, int, kw, kwMap, NIL, str, vec, type MapTerm, type Term, type VecTerm } from '../../coreform/term.js';
import { compareUtf8 } from '../../util/bytes.js';
import { PatchCode, patchError } from './errors.js';
import { normalizePatch, opNameOf, PATCH_PROFILE, type OpName } from './normalize.js';
import { field } from '../ops/common.js';

/** `:kind` of a preflight request. */
export const PREFLIGHT_REQUEST_KIND = 'genesis/patch-preflight-request-v0.1';
/** `:kind` of a preflight report. */
export const PREFLIGHT_REPORT_KIND = 'genesis/patch-preflight-v0.1';

/** The state of one path: `absent`, a regular `file`, or `other` (directory, device, …). */
export type PathState = 'absent' | 'file' | 'other';
/** One `{:path :state}` record. */
export interface PathStateRecord {
  path: string;
  state: PathState;
}

/** One required transition of an op: `path` must be `expected`, and becomes `next`. */
export interface PathCheckSpec {
  path: string;
  expected: PathState;
  next: PathState;
}

const MODULE_EDITS: readonly OpName[] = [
  'replace-node',
  'replace-node-id',
  'rename-symbol',
  'rewrite-imports',
  'rewrite-exports',
  'migrate-contract-signature',
];

/** The checks of one normalized op, in the order they are evaluated. */
export function opPathChecks(op: MapTerm): PathCheckSpec[] {
  const name = opNameOf(op);
  const s = (k: string) => (field(op, k) as { value: string }).value;
  if (MODULE_EDITS.includes(name)) return [{ path: s('module-path'), expected: 'file', next: 'file' }];
  switch (name) {
    case 'add-module':
      return [{ path: s('module-path'), expected: 'absent', next: 'file' }];
    case 'remove-module':
      return [{ path: s('module-path'), expected: 'file', next: 'absent' }];
    case 'move-module':
      return [
        { path: s('from-module-path'), expected: 'file', next: 'absent' },
        { path: s('to-module-path'), expected: 'absent', next: 'file' },
      ];
    case 'split-module':
      return [
        { path: s('from-module-path'), expected: 'file', next: 'file' },
        { path: s('to-module-path'), expected: 'absent', next: 'file' },
      ];
    default:
      return [];
  }
}

/** Every path the ops of a normalized patch reference, sorted by UTF-8 bytes, unique. */
export function opReferencedPaths(ops: readonly MapTerm[]): string[] {
  const set = new Set<string>();
  for (const op of ops) for (const c of opPathChecks(op)) set.add(c.path);
  return [...set].sort(compareUtf8);
}

/** The `:path-states` vector term for `records` (sorted by path). */
export function pathStatesTerm(records: readonly PathStateRecord[]): VecTerm {
  const sorted = [...records].sort((a, b) => compareUtf8(a.path, b.path));
  return vec(sorted.map((r) => kwMap({ path: str(r.path), state: str(r.state) })));
}

/** Builds the closed preflight request `{:kind :patch :path-states :profile :v 1}`. */
export function preflightRequest(normalizedPatch: MapTerm, pathStates: readonly PathStateRecord[]): MapTerm {
  return kwMap({
    kind: str(PREFLIGHT_REQUEST_KIND),
    patch: normalizedPatch,
    'path-states': pathStatesTerm(pathStates),
    profile: str(PATCH_PROFILE),
    v: int(1),
  });
}

const STATES: readonly PathState[] = ['absent', 'file', 'other'];

/**
 * The preflight producer: decodes the closed request and runs the path-state machine.
 * @returns the closed report `{:checks :conflict :final-path-states :kind :ok :patch-h
 *   :path-states-h :profile :v}`; `:conflict` is nil when `:ok` is true, else
 *   `{:actual :code "patch/path-state-conflict" :expected :op :ordinal :path}` (actual `"unbound"`
 *   for a path missing from `:path-states`). `:final-path-states` is the virtual state where
 *   evaluation stopped.
 * @throws GcError `core/closed/*` for a malformed request; `patch/*` when `:patch` is not a
 *   normalized patch or `:path-states` is not strictly path-sorted.
 */
export function preflightReport(request: Term): MapTerm {
  const req = decodeClosed(
    request,
    {
      kind: literal(str(PREFLIGHT_REQUEST_KIND)),
      patch: D.map,
      'path-states': vecOf((t, at) => decodeClosed(t, { path: D.nonEmptyStr, state: oneOfStr(STATES) }, at)),
      profile: literal(str(PATCH_PROFILE)),
      v: literal(int(1)),
    },
    'patch-preflight request',
  );
  const plan = normalizePatch(req.patch);
  if (plan.patchH !== plan.sourcePatchH) {
    throw patchError(PatchCode.wrongValue, 'patch-preflight :patch must be a normalized patch (normalize it first)', { at: ':patch' });
  }
  const records = req['path-states'];
  for (let i = 1; i < records.length; i++) {
    if (compareUtf8(records[i - 1]!.path, records[i]!.path) >= 0) {
      throw patchError(PatchCode.wrongValue, ':path-states must be sorted by path with no duplicates', { at: ':path-states' });
    }
  }
  const virtual = new Map<string, PathState>(records.map((r) => [r.path, r.state]));
  const checks: MapTerm[] = [];
  let conflict: Term = NIL;
  outer: for (let ordinal = 0; ordinal < plan.ops.length; ordinal++) {
    const op = plan.ops[ordinal]!;
    const specs = opPathChecks(op);
    for (const spec of specs) {
      const actual = virtual.get(spec.path) ?? 'unbound';
      const record = { actual: str(actual), expected: str(spec.expected), op: kw(opNameOf(op)), ordinal: int(ordinal), path: str(spec.path) };
      if (actual !== spec.expected) {
        conflict = kwMap({ ...record, code: str(PatchCode.pathStateConflict) });
        break outer;
      }
      checks.push(kwMap(record));
    }
    for (const spec of specs) virtual.set(spec.path, spec.next);
  }
  const finalStates = [...virtual.entries()].map(([path, state]) => ({ path, state }));
  return kwMap({
    checks: vec(checks),
    conflict,
    'final-path-states': pathStatesTerm(finalStates),
    kind: str(PREFLIGHT_REPORT_KIND),
    ok: bool(conflict.kind === 'nil'),
    'patch-h': str(plan.patchH),
    'path-states-h': str(hashTerm(pathStatesTerm(records))),
    profile: str(PATCH_PROFILE),
    v: int(1),
  });
}
