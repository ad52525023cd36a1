/**
 * History-aware verification of one package (issue #11 items 1–3 and 5): walk the pull request's
 * commits parents first and explain each commit's changes to the package by
 * - its own evidence, checked against the state it was made on (the commit's parent): a refactor
 *   plan re-planned there gives the identical report, an apply report replayed there reproduces
 *   its semantic edits and package record (`recorded-state`); or, for evidence made on another
 *   state (a rebase, cherry-pick or squash), re-planned / re-applied on the commit's actual parent,
 *   giving the same operations and reproducing the commit (`actual-parent`);
 * - for a merge commit, the structural merge of its parents' modules (the driver's merge, compared
 *   by canonical forms); a conflicted module must equal one parent's version;
 * - nothing: an unexplained change (a warning), an error when it lands in a module that evidence
 *   earlier in the pull request changed (a hidden hand edit), unless it restores the base's content.
 * Several apply reports of one commit are replayed in the order their package records bind (each
 * report's package record is reproduced by applying it to the state the previous one produced),
 * never by store address. Removing a declared obligation or test suite without evidence is an error.
 */
import { canonicalizeSource } from '../coreform/canon.js';
import { mapGetKw, termsEqual, vec, type Term } from '../coreform/term.js';
import { findMergeBases, entryAtCommit, type GitRepository } from '../git/repository.js';
import { mergeFileBytes } from '../textmerge/driver.js';
import { applyOpsInMemory } from '../patch/apply-ops.js';
import { packState } from '../patch/pack.js';
import { manifestModulePaths, type PackageState } from '../patch/state.js';
import { planRefactor } from '../refactor/plan.js';
import { isGcError } from '../util/errors.js';
import { parseManifestTable, type TomlTable } from '../workspace/manifest-write.js';
import type { Manifest } from '../workspace/manifest.js';
import { completeApplyEvidence, type ApplyEvidence } from './apply-evidence.js';
import { AuditCode, type CommitExplanation, type PackageFindings } from './findings.js';
import type { RangeCommit } from './history.js';
import { listStoreAtCommit, readPackageAtCommit, repoPath, snapshotState, type CommitModule, type CommitPackageSnapshot, type ModuleCache } from './package-at-commit.js';
import { checkReplan, describeRefactor, requestForState, type RefactorEvidence } from './refactor-evidence.js';
import { firstDifferingLine, manifestDifferences } from './replay.js';

type Forms = readonly Term[];

function formsEqual(a: Forms | undefined, b: Forms | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a === b || termsEqual(vec(a), vec(b));
}

function short(oid: string): string {
  return oid.slice(0, 12);
}

function errorText(error: unknown): string {
  return isGcError(error) ? `${error.code}: ${error.message}` : error instanceof Error ? error.message : String(error);
}

// ---------------------------------------------------------------------------------------------
// The state a commit starts from.

/** The package a commit starts from: its parent's, or for a merge the structural merge of its parents. */
export interface StartState {
  state: PackageState;
  /** True for a merge commit. */
  merge: boolean;
  /** Merge conflicts: module path → the parents' versions, any of which is an honest resolution. */
  alternatives: Map<string, (Forms | undefined)[]>;
  /** When the manifest merge conflicted: the parents' tables (each key may come from either). */
  manifestAlternatives: TomlTable[] | undefined;
}

const ENCODER = new TextEncoder();
const DECODER = new TextDecoder();
const MARKERS = { markerSize: 7, style: 'merge' as const, oursLabel: 'ours', baseLabel: 'base', theirsLabel: 'theirs' };
const NO_LINE_MERGE = () => ({ ok: false, text: new Uint8Array(), conflicts: 1, message: 'verify-pr does not fall back to a line merge' });

/**
 * The structural merge of two parents' packages (the merge driver's merge, `mergeFileBytes`, on
 * `package.toml` and each module), with `mergeBase` the parents' merge base (undefined when they
 * have none or it lacks the package: every difference is then a conflict).
 */
export function mergedStart(parents: readonly CommitPackageSnapshot[], mergeBase: CommitPackageSnapshot | undefined): StartState {
  const [p1, p2] = parents as [CommitPackageSnapshot, CommitPackageSnapshot];
  const alternatives = new Map<string, (Forms | undefined)[]>();
  let manifest: TomlTable = p1.table;
  let manifestAlternatives: TomlTable[] | undefined;
  if (parents.length > 2 || mergeBase === undefined) {
    if (manifestDifferences(p1.table, p2.table).length > 0 || parents.length > 2) manifestAlternatives = parents.map((p) => p.table);
  } else {
    try {
      const outcome = mergeFileBytes(
        ENCODER.encode(mergeBase.manifestText),
        ENCODER.encode(p1.manifestText),
        ENCODER.encode(p2.manifestText),
        { mode: 'manifest', markers: MARKERS, path: p1.manifestPath },
        NO_LINE_MERGE,
      );
      if (outcome.exitCode === 0) manifest = outcome.result === undefined ? p1.table : parseManifestTable(DECODER.decode(outcome.result), p1.manifestPath);
      else manifestAlternatives = [p1.table, p2.table];
    } catch {
      manifestAlternatives = [p1.table, p2.table];
    }
  }
  const modules = new Map<string, Forms>();
  const paths = new Set<string>(parents.flatMap((p) => [...p.byPath.keys()]));
  for (const path of paths) {
    const versions = parents.map((p) => p.byPath.get(path));
    const forms = versions.map((v) => v?.forms);
    let merged: Forms | undefined;
    let conflicted = false;
    if (forms.every((f) => formsEqual(f, forms[0]))) merged = forms[0];
    else if (parents.length > 2 || mergeBase === undefined) conflicted = true;
    else {
      const b = mergeBase.byPath.get(path);
      if (formsEqual(b?.forms, forms[0])) merged = forms[1];
      else if (formsEqual(b?.forms, forms[1])) merged = forms[0];
      else if (b === undefined || versions[0] === undefined || versions[1] === undefined) conflicted = true;
      else {
        try {
          const outcome = mergeFileBytes(b.bytes, versions[0].bytes, versions[1].bytes, { mode: 'gc', markers: MARKERS, path }, NO_LINE_MERGE);
          if (outcome.exitCode === 0 && outcome.method !== 'line') merged = outcome.result === undefined ? forms[0] : canonicalizeSource(outcome.result);
          else conflicted = true;
        } catch {
          conflicted = true;
        }
      }
    }
    if (conflicted) {
      alternatives.set(path, forms);
      merged = forms.find((f) => f !== undefined);
    }
    if (merged !== undefined) modules.set(path, merged);
  }
  return { state: { manifest, modules }, merge: true, alternatives, manifestAlternatives };
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
    steps.push(...found);
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
  /** The range base (merge base of the requested base and the head). */
  base: CommitPackageSnapshot;
  /** The range's commits, parents first. */
  commits: readonly RangeCommit[];
  modules: ModuleCache;
  /** The head's verified refactor plans and accepted apply reports (new since the base), by address. */
  refactors: ReadonlyMap<string, RefactorEvidence>;
  applies: ReadonlyMap<string, ApplyEvidence>;
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
  millis: number;
}

function table(t: TomlTable, key: string): string[] {
  const v = t[key];
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

/**
 * Explains every commit of the range for one package (see the module comment), recording rows and
 * findings in `out`. Commits whose package tree equals their (single) parent's are skipped.
 */
export async function explainHistory(input: HistoryInput, out: PackageFindings): Promise<HistoryResult> {
  const start = performance.now();
  const { repo, dir } = input;
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

  const result: HistoryResult = {
    commits: [],
    applied: [],
    explainedByEvidence: new Set(),
    unexplained: new Set(),
    mismatches: new Set(),
    replayFailed: false,
    replanned: new Set(),
    millis: 0,
  };
  const inRange = new Set(input.commits.map((c) => c.oid));
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

    const tree = await packageTree(commit.oid);
    const parentTrees = await Promise.all(commit.parents.map(packageTree));
    if (commit.parents.length === 1 && parentTrees[0] === tree) continue;
    if (commit.parents.length > 1 && parentTrees.every((t) => t === tree)) continue;

    const now = await snapshot(commit.oid);
    if (now === undefined) {
      out.skip('commit', commit.oid, 'explained', `${at}: the package is deleted`);
      continue;
    }
    if (now instanceof Error) {
      explanation.route = 'unexplained';
      out.fail('commit', commit.oid, 'read', {
        code: AuditCode.packageUnreadable,
        severity: 'warning',
        message: `${at}: the package cannot be read: ${errorText(now)}; its changes are explained by the next readable commit`,
        file: (isGcError(now) && now.location.file) || repoPath(dir, 'package.toml'),
        title: 'package unreadable',
      });
      continue;
    }
    const parents = await Promise.all(commit.parents.map(snapshot));
    if (parents.some((p) => p === undefined || p instanceof Error)) {
      explanation.route = 'unexplained';
      out.fail('commit', commit.oid, 'explained', {
        code: AuditCode.unexplainedChange,
        severity: 'warning',
        message: `${at}: a parent of the commit has no readable package; its changes are not explained`,
        file: now.manifestPath,
        title: 'unexplained change',
      });
      continue;
    }
    const parentSnaps = parents as CommitPackageSnapshot[];

    // Evidence this commit adds: store entries in no parent's store.
    const mine = await listing(commit.oid);
    const theirs = await Promise.all(commit.parents.map(listing));
    const fresh = [...mine.keys()].filter((a) => !theirs.some((l) => l.has(a))).sort();
    const applies = fresh.map((a) => input.applies.get(a)).filter((e): e is ApplyEvidence => e !== undefined && e.ok);
    const plans = fresh.map((a) => input.refactors.get(a)).filter((e): e is RefactorEvidence => e !== undefined);

    let startState: StartState;
    if (parentSnaps.length === 1) {
      startState = { state: snapshotState(parentSnaps[0]!), merge: false, alternatives: new Map(), manifestAlternatives: undefined };
    } else {
      const bases = await findMergeBases(repo, commit.parents[0]!, commit.parents[1]!);
      const mb = bases.length === 0 ? undefined : await snapshot([...bases].sort()[0]!);
      startState = mergedStart(parentSnaps, mb === undefined || mb instanceof Error ? undefined : mb);
    }
    const label = (i: number): string =>
      `the ${startState.merge ? 'merge of the parents' : 'parent'} of ${at}${i === 0 ? '' : ` plus ${i} earlier patch${i === 1 ? '' : 'es'}`}`;

    const reproduces = (state: PackageState): boolean => {
      const paths = new Set([...manifestModulePaths(state.manifest), ...now.byPath.keys()]);
      for (const p of paths) if (!formsEqual(state.modules.get(p), now.byPath.get(p)?.forms)) return false;
      return manifestDifferences(state.manifest, now.table).length === 0;
    };
    const chain = bindChain(startState.state, applies, reproduces);
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
    for (const plan of plans) {
      if (result.replanned.has(plan.address)) continue;
      result.replanned.add(plan.address);
      checkPlanOn(plan, startState.state, label(0), out);
      explanation.evidence.push({ address: plan.address, kind: 'refactor-plan', route: 'not-applied' });
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

    // Compare the commit with what its start state and evidence give.
    const final = chain.final;
    const withEvidence = chain.steps.length > 0;
    const finalPaths = new Set(manifestModulePaths(final.manifest));
    const startPaths = new Set(manifestModulePaths(startState.state.manifest));
    const paths = [...new Set([...finalPaths, ...startPaths, ...now.byPath.keys(), ...parentSnaps.flatMap((p) => [...p.byPath.keys()])])].sort();
    const explainedHere = new Set<string>();
    let hidden = 0;
    for (const path of paths) {
      const h = now.byPath.get(path);
      const r = finalPaths.has(path) ? final.modules.get(path) : undefined;
      const b = startPaths.has(path) ? startState.state.modules.get(path) : undefined;
      const file = h?.file ?? repoPath(dir, path);
      if (formsEqual(r, h?.forms)) {
        if (!formsEqual(b, h?.forms)) {
          explainedHere.add(path);
          result.explainedByEvidence.add(path);
        }
        continue;
      }
      const alts = startState.alternatives.get(path);
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
          message: `${file}: ${at} differs from replaying its evidence (${describe(h?.forms, r)}); a change not produced by the recorded patch, e.g. a hand edit made with the refactor`,
          file,
          ...(l !== undefined ? { line: l } : {}),
          title: 'replay differs',
        });
        continue;
      }
      const l = line(h, b);
      const restoresBase = formsEqual(h?.forms, input.base.byPath.get(path)?.forms);
      if (touchedBefore.has(path) && !restoresBase) {
        hidden++;
        result.mismatches.add(path);
        explanation.mismatched.push(path);
        out.fail('module', path, 'replay', {
          code: AuditCode.replayModuleMismatch,
          message: `${file}: ${at} changes a module that evidence earlier in this pull request changed, and no evidence ${startState.merge ? 'or merge of its parents ' : ''}explains the change (${describe(h?.forms, b)}): a hand edit hidden after the refactor; redo it as a patch or refactor`,
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
        message: `${file}: ${at} changes it (${describe(h?.forms, b)}) and no evidence in this pull request ${startState.merge ? 'or merge of the parents ' : ''}explains the change${restoresBase && touchedBefore.has(path) ? ' (it restores the base version: a revert)' : ''}`,
        file,
        ...(l !== undefined ? { line: l } : {}),
        title: 'unexplained change',
      });
    }
    for (const p of explainedHere) if (withEvidence) touchedBefore.add(p);

    // The manifest: keys the evidence set must be as replayed; a hand change of the module list is unexplained.
    const evidenceKeys = new Set(manifestDifferences(startState.state.manifest, final.manifest));
    const alternatives = startState.manifestAlternatives;
    const headKeys = manifestDifferences(final.manifest, now.table).filter(
      (k) => evidenceKeys.has(k) || alternatives === undefined || !resolvedKey(k, alternatives, now.table),
    );
    // keys evidence earlier in the pull request set, changed again by hand (unless restored to the base)
    const baseTable = input.base.table;
    const contradicted = headKeys.filter(
      (k) => evidenceKeys.has(k) || (touchedBefore.has(`package.toml:${k}`) && manifestDifferences(baseTable, now.table).includes(k)),
    );
    if (withEvidence) for (const k of evidenceKeys) touchedBefore.add(`package.toml:${k}`);
    if (contradicted.length > 0) {
      result.mismatches.add('package.toml');
      explanation.mismatched.push('package.toml');
      out.fail('manifest', 'package.toml', 'replay', {
        code: AuditCode.replayManifestMismatch,
        message: `${now.manifestPath}: in ${at}, ${contradicted.join(', ')} differ${contradicted.length === 1 ? 's' : ''} from the manifest the evidence of this pull request produces`,
        file: now.manifestPath,
        title: 'manifest differs',
      });
    } else if (headKeys.includes('modules')) {
      result.unexplained.add('package.toml');
      explanation.unexplained.push('package.toml');
      out.fail('manifest', 'package.toml', 'explained', {
        code: AuditCode.unexplainedChange,
        severity: 'warning',
        message: `${now.manifestPath}: ${at} changes the [[modules]] list (paths or order) and no evidence explains the change`,
        file: now.manifestPath,
        title: 'unexplained change',
      });
    }

    // Obligations and test suites: removing one needs evidence (update-manifest :obligations-remove / :tests-remove).
    for (const key of ['obligations', 'tests'] as const) {
      const declared = parentSnaps.map((p) => new Set(table(p.table, key)));
      const kept = new Set(table(now.table, key));
      const stillReplayed = new Set(table(final.manifest, key));
      const dropped = [...declared[0]!].filter((n) => declared.every((d) => d.has(n)) && !kept.has(n) && stillReplayed.has(n));
      for (const name of dropped) {
        explanation.mismatched.push('package.toml');
        out.fail('manifest', 'package.toml', key, {
          code: AuditCode.obligationsWeakened,
          message: `${now.manifestPath}: ${at} removes ${key === 'obligations' ? 'the declared obligation' : 'the test suite'} ${name} by hand; only evidence may remove it (gcpatch apply of an update-manifest op with :${key}-remove), or restore it`,
          file: now.manifestPath,
          ...(lineOf(now.manifestText, name) !== undefined ? { line: lineOf(now.manifestText, name)! } : {}),
          title: `${key === 'obligations' ? 'obligation' : 'test suite'} removed`,
        });
      }
    }

    explanation.route =
      explanation.mismatched.length > 0 || explanation.unexplained.length > 0 || hidden > 0
        ? 'unexplained'
        : startState.merge
          ? withEvidence
            ? 'merge+evidence'
            : 'merge'
          : withEvidence
            ? anyOnNewParent
              ? 'evidence-on-new-parent'
              : 'evidence'
            : explanation.evidence.length > 0
              ? 'evidence'
              : 'unexplained';
    if (!startState.merge && !withEvidence && explanation.unexplained.length === 0 && explanation.mismatched.length === 0) {
      // manifest-only hand changes (a version bump) and formatting: nothing the evidence needs to explain
      explanation.route = 'unchanged';
    }
  }
  result.millis = Math.round(performance.now() - start);
  return result;
}

/** True when the head's value of manifest key `k` equals one parent's (a conflict resolved to one side). */
function resolvedKey(k: string, alternatives: readonly TomlTable[], head: TomlTable): boolean {
  return alternatives.some((t) => !manifestDifferences(t, head).includes(k));
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
