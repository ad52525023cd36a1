/**
 * The history walk of one package (docs/action.md "What each check means", docs/security.md): the
 * pull request's commits parents first, the state each starts from, and the route that explains it:
 * - its own evidence, checked against the state it was made on (the commit's parent): a refactor
 *   plan re-planned there gives the identical report, an apply report replayed there reproduces
 *   its semantic edits and package record (`recorded-state`); or, for evidence made on another
 *   state (a rebase, cherry-pick or squash), re-planned / re-applied on the commit's actual parent,
 *   giving the same operations and reproducing the commit (`actual-parent`); either way the
 *   acceptance must name this package, its version and its obligations (`explain-replay.ts`);
 * - for a merge commit, what merging its parents gives (`merge-start.ts`);
 * - nothing: an unexplained change (a warning), an error when it lands in a module that evidence
 *   earlier in the pull request changed (a hidden hand edit), unless it restores the base's content
 *   (`check-modules.ts`).
 * Every manifest key change is judged (`check-manifest.ts`, by the key table of `manifest-keys.ts`),
 * and so is every capability policy file (`check-policies.ts`). A commit whose package cannot be read
 * (or lacks it) does not restart the chain: the next readable commit is checked against the last
 * readable state. With `replay: false` the patches are not applied: a module or key counts as
 * explained when a verified patch names it, and every other check still runs (`explain-static.ts`).
 */
import { findMergeBases, entryAtCommit, type GitRepository } from '../../git/repository.js';
import type { PackageState } from '../../patch/protocol/state.js';
import { formsEqual } from '../../coreform/forms.js';
import { isGcError } from '../../util/errors.js';
import type { ApplyEvidence } from '../evidence/apply-evidence.js';
import { checkManifest } from '../checks/check-manifest.js';
import { checkModules } from '../checks/check-modules.js';
import { checkPolicies } from '../checks/check-policies.js';
import { emptyHistoryResult, type CommitCheck, type EvidenceOutcome, type HistoryResult } from './commit-context.js';
import { replayEvidence } from './explain-by-replay.js';
import { namedByEvidence } from './explain-without-replay.js';
import { AuditCode, errorText, short, type CommitExplanation, type PackageFindings } from '../report/findings.js';
import type { RangeCommit } from './history.js';
import { mergedStart, parentStart, type StartState } from './merge-start.js';
import {
  listStoreAtCommit,
  nearestReadablePackage,
  readPackageAtCommit,
  repoPath,
  type CommitPackageSnapshot,
  type ModuleCache,
} from '../evidence/package-at-commit.js';
import type { RefactorEvidence } from '../evidence/refactor-evidence.js';
import { differingFrom, inheritedDirty, itemsOf, sameItem, type Item } from '../checks/net-change.js';

export type { HistoryResult } from './commit-context.js';

/** What {@link explainHistory} needs. */
export interface HistoryInput {
  repo: GitRepository;
  /** Package directory (repository-relative). */
  dir: string;
  /** The package at the range base (merge base of the requested base and the head), or at its nearest readable ancestor. */
  base: CommitPackageSnapshot;
  /** The range base commit (the merge base; `base.commit` differs when the package cannot be read there). */
  baseCommit?: string;
  /** The range's commits, parents first. */
  commits: readonly RangeCommit[];
  modules: ModuleCache;
  /** The head's verified refactor plans and accepted apply reports (new since the base), by address. */
  refactors: ReadonlyMap<string, RefactorEvidence>;
  applies: ReadonlyMap<string, ApplyEvidence>;
  /** Replay apply evidence (default true); false: a verified patch explains the modules and keys it names. */
  replay?: boolean;
}

/** The packages, store listings and package trees of the walk's commits, each read once. */
class CommitReader {
  private readonly snapshots = new Map<string, Promise<CommitPackageSnapshot | undefined | Error>>();
  private readonly listings = new Map<string, Promise<Map<string, string>>>();
  /** The last readable package as of each commit of the range (`undefined`: none yet). */
  readonly effective = new Map<string, CommitPackageSnapshot | undefined>();

  constructor(
    private readonly input: HistoryInput,
    private readonly inRange: ReadonlySet<string>,
  ) {
    this.snapshots.set(input.base.commit, Promise.resolve(input.base));
  }

  /** The package at `commit`; `undefined` when it has none, the error when it cannot be read (a missing commit throws). */
  snapshot(commit: string): Promise<CommitPackageSnapshot | undefined | Error> {
    let p = this.snapshots.get(commit);
    if (p === undefined) {
      p = readPackageAtCommit(this.input.repo, commit, this.input.dir, this.input.modules).catch((error: unknown) => {
        if (isGcError(error) && error.code === 'git/missing-commit') throw error;
        return error instanceof Error ? error : new Error(String(error));
      });
      this.snapshots.set(commit, p);
    }
    return p;
  }

  /** The store entries at `commit` (address → blob oid). */
  listing(commit: string): Promise<Map<string, string>> {
    let p = this.listings.get(commit);
    if (p === undefined) this.listings.set(commit, (p = listStoreAtCommit(this.input.repo, commit, this.input.dir)));
    return p;
  }

  /** The tree id of the package directory at `commit`. */
  async packageTree(commit: string): Promise<string | undefined> {
    return (await entryAtCommit(this.input.repo, commit, this.input.dir))?.oid;
  }

  /**
   * The readable package of a commit: in the range its last readable state; before the range its
   * own, or when it cannot be read there that of its nearest readable first-parent ancestor
   * (`nearestReadablePackage`), never "no package".
   */
  async lastReadable(oid: string): Promise<CommitPackageSnapshot | undefined> {
    if (this.inRange.has(oid)) return this.effective.get(oid);
    const s = await this.snapshot(oid);
    if (!(s instanceof Error)) return s;
    if (oid === this.input.baseCommit) return this.input.base;
    return (await nearestReadablePackage(this.input.repo, oid, this.input.dir, this.input.modules))?.snapshot;
  }
}

/**
 * Explains every commit of the range for one package (see the module comment), recording rows and
 * findings in `out`. Commits whose package tree equals their (single) parent's are skipped.
 * @throws GcError `git/missing-commit` (exit 70) when a commit or parent is not in the clone.
 */
export async function explainHistory(input: HistoryInput, out: PackageFindings): Promise<HistoryResult> {
  const startTime = performance.now();
  const replay = input.replay ?? true;
  const result = emptyHistoryResult();
  const inRange = new Set(input.commits.map((c) => c.oid));
  const reader = new CommitReader(input, inRange);
  /** Modules changed by evidence in the range, as of each commit (ancestors included). */
  const touched = new Map<string, Set<string>>();
  const refactorByPatch = new Map<string, RefactorEvidence>();
  for (const r of input.refactors.values()) if (r.verified.safe) refactorByPatch.set(r.verified.patchH, r);
  /** The items (`net-change.ts`) no verified step produced, as of each commit of the range. */
  const dirty = new Map<string, Set<Item>>();
  /**
   * The dirty items whose content came from something unverified (a hand edit, a root or orphan
   * commit): the rest of a commit's dirty items are only stale, main's own content from before the
   * merge base carried by a verified step, which a structural merge with the base brings up to date.
   */
  const tainted = new Map<string, Set<Item>>();
  const union = (sets: readonly ReadonlySet<Item>[]): Set<Item> => new Set(sets.flatMap((d) => [...d]));
  /** Drops the items whose content at `s` is the base's: restoring the base is no change. */
  const settle = (items: Set<Item>, s: CommitPackageSnapshot | undefined): Set<Item> => {
    for (const i of items) if (sameItem(input.base, s, i)) items.delete(i);
    return items;
  };

  for (const commit of input.commits) {
    const at = `commit ${short(commit.oid)} (${commit.subject})`;
    const touchedBefore = new Set<string>();
    for (const p of commit.parents) if (inRange.has(p)) for (const m of touched.get(p) ?? []) touchedBefore.add(m);
    touched.set(commit.oid, touchedBefore);
    const explanation: CommitExplanation = {
      commit: commit.oid,
      subject: commit.subject,
      parents: commit.parents,
      route: 'unchanged',
      evidence: [],
      unexplained: [],
      mismatched: [],
    };
    result.commits.push(explanation);

    const parentStates = await Promise.all(commit.parents.map((p) => reader.lastReadable(p)));
    // a parent before the range is main's history: clean where it holds the base's content
    const parentDirty = commit.parents.map((p, i) => (inRange.has(p) ? (dirty.get(p) ?? new Set<Item>()) : differingFrom(input.base, parentStates[i])));
    dirty.set(commit.oid, union(parentDirty));
    const parentTainted = union(commit.parents.map((p) => (inRange.has(p) ? (tainted.get(p) ?? new Set<Item>()) : new Set<Item>())));
    tainted.set(commit.oid, parentTainted);
    const tree = await reader.packageTree(commit.oid);
    const parentTrees = await Promise.all(commit.parents.map((p) => reader.packageTree(p)));
    if (commit.parents.length > 0 && parentTrees.every((t) => t === tree) && parentStates.every((p) => p === parentStates[0])) {
      reader.effective.set(commit.oid, parentStates[0]);
      continue;
    }

    const now = await reader.snapshot(commit.oid);
    if (now === undefined || now instanceof Error) {
      // An unreadable state: the chain goes on from the last readable one.
      reader.effective.set(commit.oid, parentStates[0]);
      if (commit.parents.length > 1) {
        // the chain goes on from the first parent's state, but git's history holds every parent: what
        // the other parents bring was never merged by a checked step, so the items they differ on are
        // unverified (a later merge with one of them must not read them as already merged)
        const differ = new Set<Item>();
        for (const p of parentStates.slice(1))
          for (const i of new Set([...itemsOf(parentStates[0]), ...itemsOf(p)])) if (!sameItem(parentStates[0], p, i)) differ.add(i);
        dirty.set(commit.oid, settle(union([dirty.get(commit.oid)!, differ]), parentStates[0]));
        tainted.set(commit.oid, new Set([...union([parentTainted, differ])].filter((i) => dirty.get(commit.oid)!.has(i))));
      }
      result.unreadable.push(commit.oid);
      explanation.route = 'unexplained';
      if (commit.oid === input.commits[input.commits.length - 1]?.oid && now === undefined) continue; // the head deleted it: verify-pr says so
      reportUnreadable(commit, at, now, input.dir, out);
      continue;
    }
    reader.effective.set(commit.oid, now);
    result.snapshots.push(now);
    for (const p of parentStates) if (p !== undefined) result.snapshots.push(p);

    const start = await startOf(commit, parentStates, reader, input.repo);
    if (start.state === undefined) {
      // a root commit, or no parent with a readable package: whatever differs from the base is unexplained
      dirty.set(commit.oid, settle(union([dirty.get(commit.oid)!, differingFrom(input.base, now)]), now));
      tainted.set(commit.oid, new Set(dirty.get(commit.oid)));
      reportNothingToCheckAgainst(commit, at, now, explanation, result, out);
      continue;
    }
    const startState = start as StartState & { state: PackageState };

    // Evidence this commit adds: store entries in no parent's store.
    const mine = await reader.listing(commit.oid);
    const theirs = await Promise.all(commit.parents.map((p) => reader.listing(p)));
    const fresh = [...mine.keys()].filter((a) => !theirs.some((l) => l.has(a))).sort();
    const applies = fresh.map((a) => input.applies.get(a)).filter((e): e is ApplyEvidence => e !== undefined && e.ok);
    const plans = fresh.map((a) => input.refactors.get(a)).filter((e): e is RefactorEvidence => e !== undefined);
    const label = (i: number): string =>
      `the ${startState.merge ? 'merge of the parents' : 'parent'} of ${at}${i === 0 ? '' : ` plus ${i} earlier patch${i === 1 ? '' : 'es'}`}`;

    const ev = replay
      ? replayEvidence({ start: startState, applies, plans, label, at, explanation, result, out }, now, refactorByPatch)
      : namedByEvidence({ start: startState, applies, plans, label, at, explanation, result, out });
    // What this commit's checks find it changed that no verified step gives: unverified content,
    // whether or not the item was already dirty (a hand edit of a stale module is a hand edit).
    const changedHere = new Set<Item>();
    const check: CommitCheck = {
      at,
      now,
      start: startState,
      ev,
      explanation,
      touchedBefore,
      base: input.base,
      dir: input.dir,
      out,
      result,
      dirty: changedHere,
    };
    const { explainedHere, hidden } = checkModules(check);
    for (const p of explainedHere) if (ev.withEvidence) touchedBefore.add(p);
    checkManifest(check);
    checkPolicies(check);
    explanation.route = routeOf(explanation, startState, ev, hidden);
    const here = union([inheritedDirty(now, parentStates, parentDirty), changedHere]);
    if (startState.merge) clearMergedStale(here, { now, start: startState, parentDirty, parentStates, tainted: parentTainted, changedHere });
    dirty.set(commit.oid, settle(here, now));
    tainted.set(commit.oid, new Set([...changedHere, ...parentTainted].filter((i) => here.has(i))));
  }
  const last = input.commits[input.commits.length - 1];
  result.dirty = last === undefined ? new Set() : (dirty.get(last.oid) ?? new Set());
  result.millis = Math.round(performance.now() - startTime);
  return result;
}

/**
 * At a merge, drops the dirty modules that are only stale: the merge holds exactly what merging its
 * parents gives (no conflict resolved by hand, no change of its own), no parent's version came from
 * anything unverified, and some parent holds the module clean (the base's content or what verified
 * steps made of it). Merging is then a verified step from verified inputs: the other parents'
 * changes since their merge base are verified evidence over main's own history, which the clean
 * parent already contains (docs/security.md "The construction").
 */
function clearMergedStale(
  here: Set<Item>,
  m: {
    now: CommitPackageSnapshot;
    start: StartState & { state: PackageState };
    parentDirty: readonly ReadonlySet<Item>[];
    parentStates: readonly (CommitPackageSnapshot | undefined)[];
    tainted: ReadonlySet<Item>;
    /** What the commit's own checks flagged (a change of its own, a conflict resolved otherwise). */
    changedHere: ReadonlySet<Item>;
  },
): void {
  for (const item of [...here]) {
    if (!item.startsWith('m:') || m.changedHere.has(item) || m.tainted.has(item)) continue;
    const path = item.slice(2);
    if (m.start.alternatives.has(path)) continue;
    if (!formsEqual(m.start.state.modules.get(path), m.now.byPath.get(path)?.forms)) continue;
    if (!m.parentDirty.some((d, i) => m.parentStates[i] !== undefined && !d.has(item))) continue;
    here.delete(item);
  }
}

/** The state a commit starts from: its parent's package, or for a merge what merging its parents gives. */
async function startOf(
  commit: RangeCommit,
  parentStates: (CommitPackageSnapshot | undefined)[],
  reader: CommitReader,
  repo: GitRepository,
): Promise<StartState> {
  if (commit.parents.length <= 1) return parentStart(parentStates[0]);
  let mb: string | undefined = commit.parents[0];
  for (const p of commit.parents.slice(1)) {
    if (mb === undefined) break;
    const bases = await findMergeBases(repo, mb, p);
    mb = bases.length === 0 ? undefined : [...bases].sort()[0];
  }
  return mergedStart(parentStates, mb === undefined ? undefined : await reader.lastReadable(mb));
}

/** The warning for a commit whose package is absent or cannot be read. */
function reportUnreadable(commit: RangeCommit, at: string, now: Error | undefined, dir: string, out: PackageFindings): void {
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
}

/** A root commit, or one no parent of which has a readable package: every module is unexplained. */
function reportNothingToCheckAgainst(
  commit: RangeCommit,
  at: string,
  now: CommitPackageSnapshot,
  explanation: CommitExplanation,
  result: HistoryResult,
  out: PackageFindings,
): void {
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
}

/** The route a checked commit took, from what its checks recorded. */
function routeOf(explanation: CommitExplanation, start: StartState, ev: EvidenceOutcome, hidden: number): CommitExplanation['route'] {
  if (!start.merge && !ev.withEvidence && explanation.unexplained.length === 0 && explanation.mismatched.length === 0) {
    // manifest-only changes the key table let pass, and formatting: nothing the evidence needs to explain
    return 'unchanged';
  }
  if (explanation.mismatched.length > 0 || explanation.unexplained.length > 0 || hidden > 0) return 'unexplained';
  if (start.merge) return ev.withEvidence ? 'merge+evidence' : 'merge';
  if (ev.withEvidence) return ev.anyOnNewParent ? 'evidence-on-new-parent' : 'evidence';
  return explanation.evidence.length > 0 ? 'evidence' : 'unexplained';
}
