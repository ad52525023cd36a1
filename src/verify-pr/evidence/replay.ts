/**
 * Replaying a pull request's apply evidence (docs/reference/patch-protocols.md §3.7 steps 5–6): apply each verified
 * patch, in memory, to the base commit's package with the same op engine and `pack` the on-disk
 * apply uses, then compare the result with the head commit module by module and manifest key by
 * manifest key. Several apply reports are replayed as a chain: at each step the first pending
 * report (by store address) whose patch applies is taken, so a PR may carry a sequence of patches.
 */
import { tomlEqual } from '../../workspace/toml-equal.js';
import { termsEqual, type Term } from '../../coreform/term.js';
import { formsEqual } from '../../coreform/forms.js';
import { readModule, lineColumn } from '../../coreform/read.js';
import { applyOpsInMemory } from '../../patch/ops/apply-ops.js';
import { packState } from '../../patch/apply/pack.js';
import { manifestModulePaths, type PackageState } from '../../patch/protocol/state.js';
import { opNameOf } from '../../patch/protocol/normalize.js';
import { mapGetKw } from '../../coreform/term.js';
import { GcError, isGcError } from '../../util/errors.js';
import { isTomlTable, type TomlTable } from '../../workspace/manifest-write.js';
import type { Manifest } from '../../workspace/manifest.js';
import type { ApplyEvidence } from './apply-evidence.js';
import type { CommitModule, CommitPackageSnapshot } from './package-at-commit.js';

/** One replayed apply report: the states around it and what replaying it produced. */
export interface ReplayStep {
  evidence: ApplyEvidence;
  /** The package before this patch (the base, or the state after the previous step). */
  before: PackageState;
  /** The package after the ops and `pack`. */
  after: PackageState;
  /** The semantic edits the op engine produced. */
  semanticEdits: Term[];
  /** The package artifact id `pack` computed. */
  packageArtifact: string;
}

/** The result of {@link replayChain}. */
export interface ReplayChain {
  steps: ReplayStep[];
  /** Reports whose patch applied to no state of the chain, with the error of applying it to the final state. */
  failures: { evidence: ApplyEvidence; error: GcError }[];
  /** The state after the last step (the base when nothing applied). */
  final: PackageState;
}

/** What applying one report's patch in memory and `pack`ing the result gave. */
export interface AppliedEvidence {
  after: PackageState;
  manifest: Manifest;
  edits: Term[];
  artifact: string;
}

/**
 * Applies a report's patch to `state` in memory with the on-disk apply's op engine and `pack`.
 * @throws GcError (or another Error) when an op does not apply.
 */
export function applyEvidence(state: PackageState, evidence: ApplyEvidence): AppliedEvidence {
  const { state: applied, semanticEdits } = applyOpsInMemory(state, evidence.patch);
  const packed = packState(applied);
  return { after: packed.state, manifest: packed.manifest, edits: semanticEdits, artifact: packed.packageArtifact };
}

/**
 * The greedy chain: reports in store-address order; at each step the first pending report that
 * `step` takes on the current state (it returns the step, with the state after it) is taken, until
 * no pending report is.
 * @returns the steps in chain order, the reports never taken (in address order) and the last state.
 */
export function chainInAddressOrder<S extends { after: PackageState }>(
  start: PackageState,
  evidence: readonly ApplyEvidence[],
  step: (state: PackageState, evidence: ApplyEvidence) => S | undefined,
): { steps: S[]; pending: ApplyEvidence[]; final: PackageState } {
  const pending = [...evidence].sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
  const steps: S[] = [];
  let state = start;
  for (;;) {
    let taken = -1;
    for (let i = 0; i < pending.length && taken < 0; i++) {
      const s = step(state, pending[i]!);
      if (s === undefined) continue;
      steps.push(s);
      state = s.after;
      taken = i;
    }
    if (taken < 0) break;
    pending.splice(taken, 1);
  }
  return { steps, pending, final: state };
}

function asGcError(error: unknown): GcError {
  if (isGcError(error)) return error;
  return new GcError('internal', error instanceof Error ? error.message : String(error));
}

/**
 * Replays `evidence` (accepted apply reports) on `base` as a chain.
 * @returns the ordered steps, the reports that never applied, and the final state.
 */
export function replayChain(base: PackageState, evidence: readonly ApplyEvidence[]): ReplayChain {
  const {
    steps,
    pending,
    final: state,
  } = chainInAddressOrder(base, evidence, (before, e): ReplayStep | undefined => {
    try {
      const r = applyEvidence(before, e);
      return { evidence: e, before, after: r.after, semanticEdits: r.edits, packageArtifact: r.artifact };
    } catch {
      return undefined; // tried again below against the final state, for the error message
    }
  });
  const failures = pending.map((e) => {
    try {
      applyEvidence(state, e);
      return { evidence: e, error: new GcError('internal', 'applies only out of order') };
    } catch (error) {
      return { evidence: e, error: asGcError(error) };
    }
  });
  return { steps, failures, final: state };
}

/** Module paths a patch's ops name (`:module-path`, `:from-module-path`, `:to-module-path`). */
export function modulesNamedByPatch(evidence: ApplyEvidence): Set<string> {
  const out = new Set<string>();
  for (const op of evidence.patch.ops) {
    for (const key of ['module-path', 'from-module-path', 'to-module-path']) {
      const v = mapGetKw(op, key);
      if (v?.kind === 'str') out.add(v.value);
    }
    if (opNameOf(op) === 'update-manifest') out.add('package.toml');
  }
  return out;
}

/** How one module compares across base, replay and head. */
export interface ModuleComparison {
  path: string;
  /** Repository-relative file of the module at the head (or base when deleted). */
  file: string;
  /** `same`: untouched; `explained`: changed and reproduced by the replay; `mismatch`: the replay
   * changed it but the head differs; `unexplained`: changed at the head, untouched by the replay. */
  status: 'same' | 'explained' | 'mismatch' | 'unexplained';
  /** 1-based line of the first top-level form that differs at the head, when known. */
  line: number | undefined;
  /** A short description of the difference. */
  detail: string;
}

/**
 * The 1-based line of the first top-level form of `head` that differs from `expected` (the line of
 * the last form, or 1, when one list is a prefix of the other).
 */
export function firstDifferingLine(head: CommitModule, expected: readonly Term[]): number {
  let spans;
  try {
    spans = readModule(head.bytes).forms;
  } catch {
    return 1;
  }
  const n = Math.min(head.forms.length, expected.length);
  let i = 0;
  while (i < n && termsEqual(head.forms[i]!, expected[i]!)) i++;
  const form = spans[Math.min(i, spans.length - 1)];
  return form === undefined ? 1 : lineColumn(head.bytes, form.start).line;
}

function describeDifference(head: readonly Term[] | undefined, expected: readonly Term[] | undefined): string {
  if (head === undefined) return 'the module is absent at the head';
  if (expected === undefined) return 'the module should not exist';
  if (head.length !== expected.length) return `${head.length} top-level forms at the head, ${expected.length} expected`;
  const i = head.findIndex((f, k) => !termsEqual(f, expected[k]!));
  return `top-level form ${i + 1} differs`;
}

/**
 * Compares base, replayed and head modules (by canonical forms; formatting and comments do not
 * count) over every module path any of the three lists.
 * @param replayed the final replay state, or `undefined` when there was no replay: then every
 *   changed module is `explained` when `explainedPaths` names it, else `unexplained`.
 * @returns one comparison per module path, sorted by path; `same` entries included.
 */
export function compareModules(
  base: CommitPackageSnapshot | undefined,
  replayed: PackageState | undefined,
  head: CommitPackageSnapshot,
  explainedPaths: ReadonlySet<string> = new Set(),
): ModuleComparison[] {
  const paths = new Set<string>([...head.byPath.keys(), ...(base?.byPath.keys() ?? [])]);
  if (replayed !== undefined) for (const p of manifestModulePaths(replayed.manifest)) paths.add(p);
  const replayPaths = replayed === undefined ? undefined : new Set(manifestModulePaths(replayed.manifest));
  const out: ModuleComparison[] = [];
  for (const path of [...paths].sort()) {
    const b = base?.byPath.get(path)?.forms;
    const hm = head.byPath.get(path);
    const h = hm?.forms;
    const file = hm?.file ?? base?.byPath.get(path)?.file ?? (head.dir === '' ? path : `${head.dir}/${path}`);
    if (replayed === undefined) {
      if (formsEqual(b, h)) out.push({ path, file, status: 'same', line: undefined, detail: '' });
      else if (explainedPaths.has(path)) out.push({ path, file, status: 'explained', line: undefined, detail: 'named by a verified patch' });
      else out.push({ path, file, status: 'unexplained', line: hm && b ? firstDifferingLine(hm, b) : 1, detail: describeDifference(h, b) });
      continue;
    }
    const r = replayPaths!.has(path) ? replayed.modules.get(path) : undefined;
    if (formsEqual(r, h)) {
      out.push({ path, file, status: formsEqual(b, h) ? 'same' : 'explained', line: undefined, detail: '' });
    } else if (formsEqual(r, b)) {
      out.push({ path, file, status: 'unexplained', line: hm && b ? firstDifferingLine(hm, b) : 1, detail: describeDifference(h, b) });
    } else {
      out.push({ path, file, status: 'mismatch', line: hm && r ? firstDifferingLine(hm, r) : 1, detail: describeDifference(h, r) });
    }
  }
  return out;
}

function stripPins(table: TomlTable): TomlTable {
  const out: TomlTable = { ...table };
  if (Array.isArray(table.modules)) {
    out.modules = table.modules.map((m) => {
      if (!isTomlTable(m)) return m;
      const { hash: _hash, ...rest } = m;
      return rest;
    });
  }
  return out;
}

/** The top-level manifest keys whose values differ between two tables (pins ignored). */
export function manifestDifferences(a: TomlTable, b: TomlTable): string[] {
  const x = stripPins(a);
  const y = stripPins(b);
  return [...new Set([...Object.keys(x), ...Object.keys(y)])].sort().filter((k) => !tomlEqual(x[k], y[k]));
}
