/**
 * History-aware verification of one package (docs/action.md "What each check means",
 * docs/security.md): walk the pull request's commits parents first and explain each commit's
 * changes to the package by
 * - its own evidence, checked against the state it was made on (the commit's parent): a refactor
 *   plan re-planned there gives the identical report, an apply report replayed there reproduces
 *   its semantic edits and package record (`recorded-state`); or, for evidence made on another
 *   state (a rebase, cherry-pick or squash), re-planned / re-applied on the commit's actual parent,
 *   giving the same operations and reproducing the commit (`actual-parent`); either way the
 *   acceptance must name this package, its version and its obligations;
 * - for a merge commit, what merging its parents gives (`merge-start.ts`);
 * - nothing: an unexplained change (a warning), an error when it lands in a module that evidence
 *   earlier in the pull request changed (a hidden hand edit), unless it restores the base's content.
 * Every manifest key change is judged (`manifest-keys.ts`), and so is every capability policy file
 * (`caps-policy.ts`). A commit whose package cannot be read (or lacks it) does not restart the
 * chain: the next readable commit is checked against the last readable state. With `replay: false`
 * the patches are not applied: a module or key counts as explained when a verified patch names it,
 * and every other check still runs.
 */
import { termsEqual, vec, mapGetKw, type Term } from '../coreform/term.js';
import { findMergeBases, entryAtCommit, type GitRepository } from '../git/repository.js';
import { applyOpsInMemory } from '../patch/apply-ops.js';
import { packState } from '../patch/pack.js';
import { manifestModulePaths, type PackageState } from '../patch/state.js';
import { planRefactor } from '../refactor/plan.js';
import { isGcError } from '../util/errors.js';
import type { TomlTable } from '../workspace/manifest-write.js';
import type { Manifest } from '../workspace/manifest.js';
import { checkAcceptanceBinding, completeApplyEvidence, type ApplyEvidence } from './apply-evidence.js';
import { comparePolicies } from './caps-policy.js';
import { AuditCode, type CommitExplanation, type PackageFindings } from './findings.js';
import type { RangeCommit } from './history.js';
import { judgeKeyChange, LIST_KEYS, listEntries, manifestKeysNamedByPatch, type ListKey } from './manifest-keys.js';
import { mergedStart, parentStart, type StartState } from './merge-start.js';
import { formsEqual } from '../coreform/forms.js';
import { capsPolicyPath, listStoreAtCommit, readPackageAtCommit, repoPath, type CommitModule, type CommitPackageSnapshot, type ModuleCache } from './package-at-commit.js';
import { checkReplan, describeRefactor, requestForState, type RefactorEvidence } from './refactor-evidence.js';
import { firstDifferingLine, manifestDifferences, modulesNamedByPatch } from './replay.js';

export { mergedStart, type StartState } from './merge-start.js';

type Forms = readonly Term[];

function short(oid: string): string {
  return oid.slice(0, 12);
}

function errorText(error: unknown): string {
  return isGcError(error) ? `${error.code}: ${error.message}` : error instanceof Error ? error.message : String(error);
}

// ---------------------------------------------------------------------------------------------
// Replaying a commit's apply evidence in binding order.

/** One apply report replayed on a commit's start state. */
export interface BoundStep {
  evidence: ApplyEvidence;
  before: PackageState;
  after: PackageState;
  manifest: Manifest;
  semanticEdits: Term[];
  packageArtifact: string;
  /** `recorded-state`: replaying reproduced the report's package record (the state it was made on). */
  route: 'recorded-state' | 'actual-parent';
}

interface Applied {
  after: PackageState;
  manifest: Manifest;
  edits: Term[];
  artifact: string;
}

function applyOne(state: PackageState, evidence: ApplyEvidence): Applied {
  const { state: applied, semanticEdits } = applyOpsInMemory(state, evidence.patch);
  const packed = packState(applied);
  return { after: packed.state, manifest: packed.manifest, edits: semanticEdits, artifact: packed.packageArtifact };
}

function tryApply(state: PackageState, evidence: ApplyEvidence): Applied | Error {
  try {
    return applyOne(state, evidence);
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
}

/** How many patch applications the order search may spend on one commit. */
const ORDER_SEARCH_BUDGET = 64;

/**
 * Replays `evidence` on `start` in the order the reports bind: at each step the report whose
 * replay reproduces its own package record is taken. Reports that bind to no state (evidence made
 * on another state) are then ordered by a bounded depth-first search for an order in which every
 * patch applies and the result satisfies `reproduces` (the commit's content); failing that, in
 * store-address order as far as they apply.
 */
export function bindChain(
  start: PackageState,
  evidence: readonly ApplyEvidence[],
  reproduces: (state: PackageState) => boolean,
): { steps: BoundStep[]; failures: { evidence: ApplyEvidence; error: Error }[]; final: PackageState } {
  const pending = [...evidence].sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
  const steps: BoundStep[] = [];
  let state = start;
  for (;;) {
    let taken = -1;
    for (let i = 0; i < pending.length && taken < 0; i++) {
      const r = tryApply(state, pending[i]!);
      if (!(r instanceof Error) && r.artifact === pending[i]!.packageArtifact) {
        steps.push({ evidence: pending[i]!, before: state, after: r.after, manifest: r.manifest, semanticEdits: r.edits, packageArtifact: r.artifact, route: 'recorded-state' });
        state = r.after;
        taken = i;
      }
    }
    if (taken < 0) break;
    pending.splice(taken, 1);
  }
  if (pending.length === 0) return { steps, failures: [], final: state };

  // Evidence made on another state: search an order that applies and reproduces the commit.
  let budget = ORDER_SEARCH_BUDGET;
  let firstComplete: BoundStep[] | undefined;
  const search = (at: PackageState, left: ApplyEvidence[], path: BoundStep[]): BoundStep[] | undefined => {
    if (left.length === 0) {
      firstComplete ??= path;
      return reproduces(at) ? path : undefined;
    }
    for (let i = 0; i < left.length; i++) {
      if (budget-- <= 0) return undefined;
      const r = tryApply(at, left[i]!);
      if (r instanceof Error) continue;
      const step: BoundStep = { evidence: left[i]!, before: at, after: r.after, manifest: r.manifest, semanticEdits: r.edits, packageArtifact: r.artifact, route: 'actual-parent' };
      const found = search(r.after, [...left.slice(0, i), ...left.slice(i + 1)], [...path, step]);
      if (found !== undefined) return found;
    }
    return undefined;
  };
  const found = search(state, pending, []) ?? firstComplete;
  if (found !== undefined) {
    for (const item of found) steps.push(item);
    return { steps, failures: [], final: found.length > 0 ? found[found.length - 1]!.after : state };
  }
  // Greedy, for the messages: take what applies, report the rest with the error on the final state.
  for (;;) {
    let taken = -1;
    for (let i = 0; i < pending.length && taken < 0; i++) {
      const r = tryApply(state, pending[i]!);
      if (r instanceof Error) continue;
      steps.push({ evidence: pending[i]!, before: state, after: r.after, manifest: r.manifest, semanticEdits: r.edits, packageArtifact: r.artifact, route: 'actual-parent' });
      state = r.after;
      taken = i;
    }
    if (taken < 0) break;
    pending.splice(taken, 1);
  }
  const failures = pending.map((e) => {
    const r = tryApply(state, e);
    return { evidence: e, error: r instanceof Error ? r : new Error('applies only out of order') };
  });
  return { steps, failures, final: state };
}

// ---------------------------------------------------------------------------------------------
// Walking the history.

/** What {@link explainHistory} needs. */
export interface HistoryInput {
  repo: GitRepository;
  /** Package directory (repository-relative). */
  dir: string;
  /** The range base (merge base of the requested base and the head), readable. */
  base: CommitPackageSnapshot;
  /** The range's commits, parents first. */
  commits: readonly RangeCommit[];
  modules: ModuleCache;
  /** The head's verified refactor plans and accepted apply reports (new since the base), by address. */
  refactors: ReadonlyMap<string, RefactorEvidence>;
  applies: ReadonlyMap<string, ApplyEvidence>;
  /** Replay apply evidence (default true); false: a verified patch explains the modules and keys it names. */
  replay?: boolean;
}

/** What {@link explainHistory} found, besides the rows and findings it recorded. */
export interface HistoryResult {
  commits: CommitExplanation[];
  /** Apply reports replayed, in the order checked. */
  applied: string[];
  /** Modules explained by evidence somewhere in the range. */
  explainedByEvidence: Set<string>;
  unexplained: Set<string>;
  mismatches: Set<string>;
  replayFailed: boolean;
  /** Refactor plans checked (re-planned) during the walk. */
  replanned: Set<string>;
  /** Commits of the range whose package could not be read (or had none). */
  unreadable: string[];
  /** The readable packages the walk read (commits of the range and their parents), for the dangling-reference check. */
  snapshots: CommitPackageSnapshot[];
  millis: number;
}

function emptyHistoryResult(): HistoryResult {
  return {
    commits: [],
    applied: [],
    explainedByEvidence: new Set(),
    unexplained: new Set(),
    mismatches: new Set(),
    replayFailed: false,
    replanned: new Set(),
    unreadable: [],
    snapshots: [],
    millis: 0,
  };
}

/** One commit's evidence as it explains the commit: what the replay (or, without replay, the patches) gives. */
interface EvidenceOutcome {
  /** The replayed state, or `undefined` without replay. */
  final: PackageState | undefined;
  withEvidence: boolean;
  anyOnNewParent: boolean;
  /** Without replay: the modules and keys the verified patches name, and the list entries they remove. */
  namedModules: Set<string>;
  namedKeys: Set<string>;
  removedEntries: Map<ListKey, Set<string>>;
}

/** The per-commit context the checks below share. */
interface CommitCheck {
  at: string;
  now: CommitPackageSnapshot;
  start: StartState & { state: PackageState };
  ev: EvidenceOutcome;
  explanation: CommitExplanation;
  touchedBefore: Set<string>;
  base: CommitPackageSnapshot;
  dir: string;
  out: PackageFindings;
  result: HistoryResult;
}

/**
 * Explains every commit of the range for one package (see the module comment), recording rows and
 * findings in `out`. Commits whose package tree equals their (single) parent's are skipped.
 * @throws GcError `git/missing-commit` (exit 70) when a commit or parent is not in the clone.
 */
export async function explainHistory(input: HistoryInput, out: PackageFindings): Promise<HistoryResult> {
  const startTime = performance.now();
  const { repo, dir } = input;
  const replay = input.replay ?? true;
  const snapshots = new Map<string, Promise<CommitPackageSnapshot | undefined | Error>>();
  const snapshot = (commit: string): Promise<CommitPackageSnapshot | undefined | Error> => {
    let p = snapshots.get(commit);
    if (p === undefined) {
      p = readPackageAtCommit(repo, commit, dir, input.modules).catch((error: unknown) => {
        if (isGcError(error) && error.code === 'git/missing-commit') throw error;
        return error instanceof Error ? error : new Error(String(error));
      });
      snapshots.set(commit, p);
    }
    return p;
  };
  snapshots.set(input.base.commit, Promise.resolve(input.base));
  const listings = new Map<string, Promise<Map<string, string>>>();
  const listing = (commit: string): Promise<Map<string, string>> => {
    let p = listings.get(commit);
    if (p === undefined) listings.set(commit, (p = listStoreAtCommit(repo, commit, dir)));
    return p;
  };
  const packageTree = async (commit: string): Promise<string | undefined> => (await entryAtCommit(repo, commit, dir))?.oid;

  const result = emptyHistoryResult();
  const inRange = new Set(input.commits.map((c) => c.oid));
  /** The last readable package as of each commit of the range (`undefined`: none yet). */
  const effective = new Map<string, CommitPackageSnapshot | undefined>();
  /** The readable package of a commit: in the range its last readable state; before the range its own. */
  const lastReadable = async (oid: string): Promise<CommitPackageSnapshot | undefined> => {
    if (inRange.has(oid)) return effective.get(oid);
    const s = await snapshot(oid);
    return s instanceof Error ? undefined : s;
  };
  /** Modules changed by evidence in the range, as of each commit (ancestors included). */
  const touched = new Map<string, Set<string>>();
  const refactorByPatch = new Map<string, RefactorEvidence>();
  for (const r of input.refactors.values()) if (r.verified.safe) refactorByPatch.set(r.verified.patchH, r);

  for (const commit of input.commits) {
    const at = `commit ${short(commit.oid)} (${commit.subject})`;
    const touchedBefore = new Set<string>();
    for (const p of commit.parents) if (inRange.has(p)) for (const m of touched.get(p) ?? []) touchedBefore.add(m);
    touched.set(commit.oid, touchedBefore);
    const explanation: CommitExplanation = { commit: commit.oid, subject: commit.subject, parents: commit.parents, route: 'unchanged', evidence: [], unexplained: [], mismatched: [] };
    result.commits.push(explanation);

    const parentStates = await Promise.all(commit.parents.map(lastReadable));
    const tree = await packageTree(commit.oid);
    const parentTrees = await Promise.all(commit.parents.map(packageTree));
    if (commit.parents.length > 0 && parentTrees.every((t) => t === tree) && parentStates.every((p) => p === parentStates[0])) {
      effective.set(commit.oid, parentStates[0]);
      continue;
    }

    const now = await snapshot(commit.oid);
    if (now === undefined || now instanceof Error) {
      // An unreadable state: the chain goes on from the last readable one.
      effective.set(commit.oid, parentStates[0]);
      result.unreadable.push(commit.oid);
      explanation.route = 'unexplained';
      if (commit.oid === input.commits[input.commits.length - 1]?.oid && now === undefined) continue; // the head deleted it: verify-pr says so
      out.fail('commit', commit.oid, 'read', {
        code: AuditCode.packageUnreadable,
        severity: 'warning',
        message:
          now === undefined
            ? `${at}: the package has no package.toml here; the next commit that has it is checked against the last readable state`
            : `${at}: the package cannot be read: ${errorText(now)}; the next readable commit is checked against the last readable state`,
        file: now instanceof Error && isGcError(now) && now.location.file ? now.location.file : repoPath(dir, 'package.toml'),
        ...(now instanceof Error && isGcError(now) && now.location.line !== undefined ? { line: now.location.line } : {}),
        title: 'package unreadable',
      });
      continue;
    }
    effective.set(commit.oid, now);
    result.snapshots.push(now);
    for (const p of parentStates) if (p !== undefined) result.snapshots.push(p);

    let start: StartState;
    if (commit.parents.length <= 1) start = parentStart(parentStates[0]);
    else {
      let mb: string | undefined = commit.parents[0];
      for (const p of commit.parents.slice(1)) {
        if (mb === undefined) break;
        const bases = await findMergeBases(repo, mb, p);
        mb = bases.length === 0 ? undefined : [...bases].sort()[0];
      }
      start = mergedStart(parentStates, mb === undefined ? undefined : await lastReadable(mb));
    }
    if (start.state === undefined) {
      explanation.route = 'unexplained';
      explanation.unexplained.push(...now.modules.map((m) => m.path));
      for (const m of now.modules) result.unexplained.add(m.path);
      out.fail('commit', commit.oid, 'explained', {
        code: AuditCode.unexplainedChange,
        severity: 'warning',
        message: `${at}: ${commit.parents.length === 0 ? 'a root commit' : 'no parent has a readable package'}: its ${now.modules.length} modules have nothing to be checked against and are not explained`,
        file: now.manifestPath,
        title: 'unexplained change',
      });
      continue;
    }
    const startState = start as StartState & { state: PackageState };

    // Evidence this commit adds: store entries in no parent's store.
    const mine = await listing(commit.oid);
    const theirs = await Promise.all(commit.parents.map(listing));
    const fresh = [...mine.keys()].filter((a) => !theirs.some((l) => l.has(a))).sort();
    const applies = fresh.map((a) => input.applies.get(a)).filter((e): e is ApplyEvidence => e !== undefined && e.ok);
    const plans = fresh.map((a) => input.refactors.get(a)).filter((e): e is RefactorEvidence => e !== undefined);
    const label = (i: number): string =>
      `the ${startState.merge ? 'merge of the parents' : 'parent'} of ${at}${i === 0 ? '' : ` plus ${i} earlier patch${i === 1 ? '' : 'es'}`}`;

    const ev = replay
      ? replayEvidence({ start: startState, applies, plans, label, at, explanation, result, out }, now, refactorByPatch)
      : namedByEvidence({ start: startState, applies, plans, label, at, explanation, result, out });
    const check: CommitCheck = { at, now, start: startState, ev, explanation, touchedBefore, base: input.base, dir, out, result };
    const { explainedHere, hidden } = checkModules(check);
    for (const p of explainedHere) if (ev.withEvidence) touchedBefore.add(p);
    checkManifest(check);
    checkPolicies(check);

    explanation.route =
      explanation.mismatched.length > 0 || explanation.unexplained.length > 0 || hidden > 0
        ? 'unexplained'
        : startState.merge
          ? ev.withEvidence
            ? 'merge+evidence'
            : 'merge'
          : ev.withEvidence
            ? ev.anyOnNewParent
              ? 'evidence-on-new-parent'
              : 'evidence'
            : explanation.evidence.length > 0
              ? 'evidence'
              : 'unexplained';
    if (!startState.merge && !ev.withEvidence && explanation.unexplained.length === 0 && explanation.mismatched.length === 0) {
      // manifest-only changes the key table let pass, and formatting: nothing the evidence needs to explain
      explanation.route = 'unchanged';
    }
  }
  result.millis = Math.round(performance.now() - startTime);
  return result;
}

/**
 * Checks a package the pull request moved to another directory (`movedFrom`, same manifest name)
 * against the package as it stood at the base there: every module change is unexplained (evidence
 * made in the old directory does not follow a move), and the manifest keys, list entries and
 * capability policies are judged by the key table as hand changes — so a weakening that rides along
 * with the move is still an error.
 * @returns the modules found unexplained or contradicting (as {@link HistoryResult} sets).
 */
export function checkMovedPackage(oldBase: CommitPackageSnapshot, head: CommitPackageSnapshot, movedFrom: string, out: PackageFindings): Pick<HistoryResult, 'unexplained' | 'mismatches'> {
  const result = emptyHistoryResult();
  const start = parentStart(oldBase) as StartState & { state: PackageState };
  const explanation: CommitExplanation = { commit: head.commit, subject: '', parents: [], route: 'unexplained', evidence: [], unexplained: [], mismatched: [] };
  const ev: EvidenceOutcome = { final: undefined, withEvidence: false, anyOnNewParent: false, namedModules: new Set(), namedKeys: new Set(), removedEntries: new Map() };
  const at = `the move from ${movedFrom || '.'} to ${head.dir || '.'}`;
  const check: CommitCheck = { at, now: head, start, ev, explanation, touchedBefore: new Set(), base: oldBase, dir: head.dir, out, result };
  checkModules(check);
  checkManifest(check);
  checkPolicies(check);
  return result;
}

/** What the evidence steps of one commit share: its start state, the evidence it adds, where to record. */
interface CommitEvidence {
  start: StartState & { state: PackageState };
  applies: readonly ApplyEvidence[];
  plans: readonly RefactorEvidence[];
  /** Names the state a step ran on, for messages (`i` earlier patches of the commit). */
  label: (i: number) => string;
  at: string;
  explanation: CommitExplanation;
  result: HistoryResult;
  out: PackageFindings;
}

/** Replays a commit's apply evidence on its start state (binding order), re-plans its refactor plans. */
function replayEvidence(c: CommitEvidence, now: CommitPackageSnapshot, refactorByPatch: ReadonlyMap<string, RefactorEvidence>): EvidenceOutcome {
  const { start, applies, label, explanation, result, out } = c;
  const reproduces = (state: PackageState): boolean => {
    const paths = new Set([...manifestModulePaths(state.manifest), ...now.byPath.keys()]);
    for (const p of paths) if (!formsEqual(state.modules.get(p), now.byPath.get(p)?.forms)) return false;
    return manifestDifferences(state.manifest, now.table).length === 0;
  };
  const chain = bindChain(start.state, applies, reproduces);
  let anyOnNewParent = false;
  chain.steps.forEach((step, i) => {
    const ev = step.evidence;
    result.applied.push(ev.address);
    const linked = refactorByPatch.get(ev.patch.patchH);
    if (linked !== undefined) {
      checkPlanOn(linked, step.before, label(i), out);
      result.replanned.add(linked.address);
      explanation.evidence.push({ address: linked.address, kind: 'refactor-plan', route: step.route });
    }
    explanation.evidence.push({ address: ev.address, kind: 'apply-report', route: step.route });
    if (step.route === 'recorded-state') {
      if (termsEqual(vec(step.semanticEdits), ev.semanticEdits)) {
        out.pass('apply-report', ev.address, 'replay edits', `${step.semanticEdits.length} semantic edits reproduced on ${label(i)}`);
      } else {
        out.fail('apply-report', ev.address, 'replay edits', {
          code: AuditCode.replayEvidenceMismatch,
          message: `apply report ${short(ev.address)}: replaying its patch on ${label(i)} gives other :semantic-edits than the report records`,
          file: ev.file,
          title: 'semantic edits differ',
        });
      }
      out.pass('apply-report', ev.address, 'replay package', `package record ${short(ev.packageArtifact)} reproduced on ${label(i)}`);
    } else {
      anyOnNewParent = true;
      out.pass('apply-report', ev.address, 'replay', `made on another state (rebase, cherry-pick or squash): the patch applies to ${label(i)}; the commit is compared with its result`);
    }
    if (!checkAcceptanceBinding(ev, step.manifest, `at ${label(i)}`, out, { checkVersion: step.route === 'recorded-state' })) {
      result.mismatches.add('package.toml');
      explanation.mismatched.push('package.toml');
    }
    completeApplyEvidence(ev, step.route === 'recorded-state' || ev.missingArtifacts.includes('acceptance') ? { manifest: step.manifest, packageArtifact: step.packageArtifact } : undefined, out);
  });
  for (const f of chain.failures) {
    result.replayFailed = true;
    explanation.evidence.push({ address: f.evidence.address, kind: 'apply-report', route: 'failed' });
    out.fail('apply-report', f.evidence.address, 'replay', {
      code: AuditCode.replayFailed,
      message: `apply report ${short(f.evidence.address)}: its patch does not apply to ${label(0)}${chain.steps.length > 0 ? ' (nor after the other evidence of the commit)' : ''}: ${errorText(f.error)}`,
      file: f.evidence.file,
      title: 'replay failed',
    });
  }
  checkUnappliedPlans(c);
  return { final: chain.final, withEvidence: chain.steps.length > 0, anyOnNewParent, namedModules: new Set(), namedKeys: new Set(), removedEntries: new Map() };
}

/** Without replay: the verified patches explain the modules and keys they name; their plans are still re-planned. */
function namedByEvidence(c: CommitEvidence): EvidenceOutcome {
  const { applies, explanation, out } = c;
  const namedModules = new Set<string>();
  const namedKeys = new Set<string>();
  const removedEntries = new Map<ListKey, Set<string>>();
  for (const a of applies) {
    explanation.evidence.push({ address: a.address, kind: 'apply-report', route: 'not-applied' });
    for (const p of modulesNamedByPatch(a)) if (p !== 'package.toml') namedModules.add(p);
    const named = manifestKeysNamedByPatch(a.patch);
    for (const k of named.keys) namedKeys.add(k);
    for (const [k, set] of named.removed) {
      let s = removedEntries.get(k);
      if (s === undefined) removedEntries.set(k, (s = new Set()));
      for (const e of set) s.add(e);
    }
    out.skip('apply-report', a.address, 'replay', `replay: false — the patch explains the ${namedModules.size} modules it names, not replayed`);
  }
  checkUnappliedPlans(c);
  return { final: undefined, withEvidence: applies.length > 0, anyOnNewParent: false, namedModules, namedKeys, removedEntries };
}

/** Re-plans the commit's refactor plans no replayed patch already checked; a safe plan with no apply is a notice. */
function checkUnappliedPlans(c: CommitEvidence): void {
  const { applies, plans, label, at, explanation, result, out } = c;
  const state = c.start.state;
  for (const plan of plans) {
    if (result.replanned.has(plan.address)) continue;
    result.replanned.add(plan.address);
    checkPlanOn(plan, state, label(0), out);
    // a conflicted plan carries no patch: it is checked, but it is not evidence of anything
    if (plan.verified.safe) explanation.evidence.push({ address: plan.address, kind: 'refactor-plan', route: 'not-applied' });
    if (plan.verified.safe && !applies.some((a) => a.patch.patchH === plan.verified.patchH)) {
      out.fail('refactor-plan', plan.address, 'applied', {
        code: AuditCode.refactorPlanNotApplied,
        severity: 'notice',
        message: `refactor plan ${short(plan.address)} has no accepted apply report in ${at}; it explains no module change`,
        file: plan.file,
        title: 'plan not applied',
      });
    }
  }
}

/** Compares each module of the commit with what its start state and evidence give. */
function checkModules(c: CommitCheck): { explainedHere: Set<string>; hidden: number } {
  const { at, now, start, ev, explanation, touchedBefore, dir, out, result } = c;
  const final = ev.final;
  const finalPaths = final === undefined ? undefined : new Set(manifestModulePaths(final.manifest));
  const startPaths = new Set(manifestModulePaths(start.state.manifest));
  const paths = [...new Set([...(finalPaths ?? []), ...startPaths, ...now.byPath.keys()])].sort();
  const explainedHere = new Set<string>();
  let hidden = 0;
  const mergeWords = start.merge ? 'or merge of the parents ' : '';
  for (const path of paths) {
    const h = now.byPath.get(path);
    const b = startPaths.has(path) ? start.state.modules.get(path) : undefined;
    const r = final === undefined ? (ev.namedModules.has(path) ? h?.forms : b) : finalPaths!.has(path) ? final.modules.get(path) : undefined;
    const file = h?.file ?? repoPath(dir, path);
    if (formsEqual(r, h?.forms)) {
      if (!formsEqual(b, h?.forms)) {
        explainedHere.add(path);
        result.explainedByEvidence.add(path);
      }
      continue;
    }
    const alts = start.alternatives.get(path);
    if (alts !== undefined && formsEqual(r, b) && alts.some((a) => formsEqual(a, h?.forms))) {
      out.pass('module', path, 'merge', `${at}: merge conflict resolved to one parent's version`);
      continue;
    }
    const line = (m: CommitModule | undefined, expected: Forms | undefined): number | undefined => (m !== undefined && expected !== undefined ? firstDifferingLine(m, expected) : undefined);
    if (!formsEqual(r, b)) {
      // evidence changed this module, the commit has something else
      result.mismatches.add(path);
      explanation.mismatched.push(path);
      const l = line(h, r);
      out.fail('module', path, 'replay', {
        code: AuditCode.replayModuleMismatch,
        message: `${file}: ${at} differs from replaying its evidence (${describe(h?.forms, r)}); a change not produced by the recorded patch, e.g. a hand edit made in the same commit`,
        file,
        ...(l !== undefined ? { line: l } : {}),
        title: 'replay differs',
      });
      continue;
    }
    const l = line(h, b);
    const restoresBase = formsEqual(h?.forms, c.base.byPath.get(path)?.forms);
    if (touchedBefore.has(path) && !restoresBase) {
      hidden++;
      result.mismatches.add(path);
      explanation.mismatched.push(path);
      out.fail('module', path, 'replay', {
        code: AuditCode.replayModuleMismatch,
        message: `${file}: ${at} changes a module that evidence earlier in this pull request changed, and no evidence ${mergeWords}explains the change (${describe(h?.forms, b)}): a hand edit hidden after the evidence; redo it as a patch or refactor`,
        file,
        ...(l !== undefined ? { line: l } : {}),
        title: 'replay differs',
      });
      continue;
    }
    result.unexplained.add(path);
    explanation.unexplained.push(path);
    out.fail('module', path, 'explained', {
      code: AuditCode.unexplainedChange,
      severity: 'warning',
      message: `${file}: ${at} changes it (${describe(h?.forms, b)}) and no evidence in this pull request ${mergeWords}explains the change${restoresBase && touchedBefore.has(path) ? ' (it restores the base version: a revert)' : ''}${alts !== undefined && start.parents > 2 ? ' (an octopus merge must give what merging its parents gives)' : ''}`,
      file,
      ...(l !== undefined ? { line: l } : {}),
      title: 'unexplained change',
    });
  }
  return { explainedHere, hidden };
}

/** Judges the manifest: keys the evidence set, hand changes by the key table, removed list entries. */
function checkManifest(c: CommitCheck): void {
  const { at, now, start, ev, explanation, touchedBefore, out, result } = c;
  const startTable = start.state.manifest;
  const expected: TomlTable = ev.final?.manifest ?? startTable;
  const evidenceKeys = ev.final !== undefined ? new Set(manifestDifferences(startTable, ev.final.manifest)) : ev.namedKeys;
  // a key a two-parent merge really conflicted on may be either side's; every other key is judged
  const differing = manifestDifferences(expected, now.table).filter(
    (k) => evidenceKeys.has(k) || !(start.keyAlternatives.get(k) ?? []).some((t) => !manifestDifferences(t, now.table).includes(k)),
  );
  const baseTable = c.base.table;
  if (ev.final !== undefined) {
    // keys evidence of this commit (or earlier in the pull request) set, changed again by hand (unless restored to the base)
    const contradicted = differing.filter((k) => evidenceKeys.has(k) || (touchedBefore.has(`package.toml:${k}`) && manifestDifferences(baseTable, now.table).includes(k)));
    if (contradicted.length > 0) {
      result.mismatches.add('package.toml');
      explanation.mismatched.push('package.toml');
      out.fail('manifest', 'package.toml', 'replay', {
        code: AuditCode.replayManifestMismatch,
        message: `${now.manifestPath}: in ${at}, ${contradicted.join(', ')} differ${contradicted.length === 1 ? 's' : ''} from the manifest the evidence of this pull request produces`,
        file: now.manifestPath,
        title: 'manifest differs',
      });
    }
  }
  if (ev.withEvidence) for (const k of evidenceKeys) touchedBefore.add(`package.toml:${k}`);
  for (const k of differing) {
    if (ev.final === undefined ? evidenceKeys.has(k) : evidenceKeys.has(k) || touchedBefore.has(`package.toml:${k}`)) continue;
    if (k === 'modules') {
      result.unexplained.add('package.toml');
      explanation.unexplained.push('package.toml');
      out.fail('manifest', 'package.toml', 'explained', {
        code: AuditCode.unexplainedChange,
        severity: 'warning',
        message: `${now.manifestPath}: ${at} changes the [[modules]] list (paths or order) and no evidence explains the change`,
        file: now.manifestPath,
        title: 'unexplained change',
      });
      continue;
    }
    const verdict = judgeKeyChange(k, expected[k], now.table[k]);
    if (verdict === undefined) continue;
    if (verdict.severity === 'error') {
      result.mismatches.add('package.toml');
      explanation.mismatched.push('package.toml');
    } else {
      explanation.unexplained.push('package.toml');
    }
    const line = keyLine(now.manifestText, k);
    out.fail('manifest', 'package.toml', k, {
      code: verdict.code,
      severity: verdict.severity,
      message:
        `${now.manifestPath}: ${at} changes ${verdict.detail} and no evidence explains it` +
        (verdict.severity === 'error'
          ? '; this weakens what the package is checked against: make the change with an update-manifest patch (gcpatch apply) or revert it'
          : k === 'caps_policy'
            ? ' (repoint it with an update-manifest :caps-policy patch to carry evidence)'
            : ' (make it with an update-manifest :set patch to carry evidence)'),
      file: now.manifestPath,
      ...(line !== undefined ? { line } : {}),
      title: verdict.severity === 'error' ? 'limits raised' : 'manifest key changed',
    });
  }

  // Obligations, test suites and property tests: removing one needs evidence.
  for (const key of LIST_KEYS) {
    const declared = start.lists.get(key) ?? new Set<string>();
    const kept = new Set(listEntries(now.table, key));
    const removedByEvidence =
      ev.final !== undefined ? new Set(listEntries(startTable, key).filter((e) => !listEntries(ev.final!.manifest, key).includes(e))) : ev.removedEntries.get(key) ?? new Set<string>();
    for (const name of [...declared].sort()) {
      if (kept.has(name) || removedByEvidence.has(name)) continue;
      result.mismatches.add('package.toml');
      explanation.mismatched.push('package.toml');
      const line = lineOf(now.manifestText, key) ?? keyLine(now.manifestText, key);
      const what = key === 'obligations' ? 'the declared obligation' : key === 'tests' ? 'the test suite' : 'the property test';
      out.fail('manifest', 'package.toml', key, {
        code: AuditCode.obligationsWeakened,
        message: `${now.manifestPath}: ${at} removes ${what} ${name} by hand; only evidence may remove it (gcpatch apply of an update-manifest op with :${key === 'tests' ? 'tests' : 'obligations'}-remove), or restore it`,
        file: now.manifestPath,
        ...(line !== undefined ? { line } : {}),
        title: `${key === 'obligations' ? 'obligation' : key === 'tests' ? 'test suite' : 'property test'} removed`,
      });
    }
  }
}

/** Judges the capability policy files: the effective policy (`caps_policy`) and every other policy file. */
function checkPolicies(c: CommitCheck): void {
  const { at, now, start, explanation, out, result } = c;
  const refBefore = capsPolicyPath(start.state.manifest);
  const refAfter = capsPolicyPath(now.table);
  const textAt = (path: string | undefined): string | undefined => (path === undefined ? undefined : now.policies.get(path)?.text);
  const judge = (label: string, file: string, before: string | undefined, after: string | undefined, alternatives: readonly (string | undefined)[] | undefined): void => {
    if (before === after || alternatives?.some((a) => a === after)) return;
    const cmp = comparePolicies(before, after);
    if (cmp.widened.length > 0) {
      result.mismatches.add('package.toml');
      explanation.mismatched.push(file);
      out.fail('policy', file, 'not widened', {
        code: AuditCode.capsWidened,
        message: `${file}: ${at} widens ${label}: ${cmp.widened.slice(0, 6).join('; ')}${cmp.widened.length > 6 ? ` (${cmp.widened.length} in all)` : ''}; a capability policy may only be widened on the base branch, reviewed`,
        file,
        title: 'capabilities widened',
      });
    } else if (cmp.changed.length > 0) {
      explanation.unexplained.push(file);
      out.fail('policy', file, 'unchanged', {
        code: AuditCode.capsChanged,
        severity: 'warning',
        message: `${file}: ${at} changes ${label} (${cmp.changed.slice(0, 6).join('; ')}) without widening it`,
        file,
        title: 'capabilities changed',
      });
    }
  };
  if (refBefore !== refAfter) {
    // repointed: the policy the package now runs under, against the one it ran under
    judge(
      `the package's capability policy (caps_policy ${JSON.stringify(refBefore ?? null)} → ${JSON.stringify(refAfter ?? null)})`,
      refAfter !== undefined ? repoPath(c.dir, refAfter) : now.manifestPath,
      refBefore === undefined ? undefined : start.policies.get(refBefore),
      textAt(refAfter),
      undefined,
    );
  }
  // every policy file against its own earlier text (the one no longer referenced too: it is still a
  // policy a checkout holds), except the newly referenced one, judged above
  const paths = new Set([...start.policies.keys(), ...now.policies.keys()]);
  for (const path of [...paths].sort()) {
    if (path === refAfter && refAfter !== refBefore) continue;
    const label = path === refAfter ? "the package's capability policy" : `the policy file ${path}`;
    judge(label, repoPath(c.dir, path), start.policies.get(path), textAt(path), start.policyAlternatives.get(path));
  }
}

/** The 1-based line of top-level key `key` (or of its `[key]` table header) in manifest text. */
function keyLine(text: string, key: string): number | undefined {
  const lines = text.split('\n');
  const esc = key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const i = lines.findIndex((l) => new RegExp(`^\\s*(${esc}\\s*=|\\[\\s*${esc}\\s*\\])`).test(l));
  return i < 0 ? undefined : i + 1;
}

function lineOf(text: string, needle: string): number | undefined {
  const i = text.split('\n').findIndex((l) => l.includes(JSON.stringify(needle)));
  return i < 0 ? undefined : i + 1;
}

function describe(head: Forms | undefined, expected: Forms | undefined): string {
  if (head === undefined) return 'the module is absent';
  if (expected === undefined) return 'the module should not exist';
  if (head.length !== expected.length) return `${head.length} top-level forms, ${expected.length} expected`;
  const i = head.findIndex((f, k) => !termsEqual(f, expected[k]!));
  return `top-level form ${i} differs`;
}

/**
 * Checks a refactor plan against `state`: when the request rebuilt from `state` is the stored one
 * (the plan was made there), re-planning must give the identical report; otherwise (made on another
 * state: rebase, cherry-pick, squash) re-planning the same kind/from/to/target there must be safe and
 * give the same operations.
 */
export function checkPlanOn(plan: RefactorEvidence, state: PackageState, stateLabel: string, out: PackageFindings): boolean {
  const request = requestForState(plan, state);
  if (request.requestH === plan.request.requestH) return checkReplan(plan, state, stateLabel, out);
  const replanned = planRefactor(request);
  const ours = plan.verified.opIdentities.map((o) => o.opH);
  const sameOps =
    replanned.safe === plan.verified.safe &&
    replanned.safe &&
    termsEqual(vec(patchOps(replanned.report)), vec(patchOps(plan.report)));
  if (sameOps) {
    out.pass('refactor-plan', plan.address, 're-plan', `made on another state; re-planned on ${stateLabel}: the same ${ours.length} operations`);
    return true;
  }
  out.fail('refactor-plan', plan.address, 're-plan', {
    code: AuditCode.refactorReplanDiffers,
    message: `refactor plan ${short(plan.address)} was made on another package state, and re-planning ${describeRefactor(plan.request)} on ${stateLabel} ${replanned.safe ? 'gives other operations' : 'is not safe there'}: re-run the refactor on the updated branch`,
    file: plan.file,
    title: 're-plan differs',
  });
  return false;
}

function patchOps(report: Term): Term[] {
  if (report.kind !== 'map') return [];
  const patch = mapGetKw(report, 'patch');
  if (patch?.kind !== 'map') return [];
  const ops = mapGetKw(patch, 'ops');
  return ops?.kind === 'vec' ? [...ops.items] : [];
}
