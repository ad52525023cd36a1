/**
 * The verification of one package a pull request changed: read it at the base and the head, check
 * its pins, case collisions and evidence store, verify its new refactor plans and apply reports, then
 * explain its changes by the route that fits (a new or moved package, the history walk of
 * `explain.ts`, or the range-level replay of `range-replay.ts`), and check stale references and
 * obligations. `verify-pr.ts` runs it for each selected package.
 */
import { readFileAtCommit, GitCode, type GitRepository } from '../git/repository.js';
import { isGcError } from '../util/errors.js';
import { caseCollisions, reportCaseCollisions } from './walk/accounting.js';
import { checkApplyReport, type ApplyEvidence } from './evidence/apply-evidence.js';
import { checkStaleReferences, definedIn } from './checks/dangling-references.js';
import { explainHistory } from './walk/explain-history.js';
import { comparePolicies } from './checks/caps-policy.js';
import { checkMovedPackage } from './walk/explain-moved-package.js';
import { AuditCode, emptyReplay, errorText, PackageFindings, type AuditFinding, type PackageAudit } from './report/findings.js';
import type { RangeCommit } from './walk/history.js';
import { checkObligations } from './checks/obligations.js';
import { judgeNetChange, moduleItem } from './checks/net-change.js';
import { nearestReadablePackage, readPackageAtCommit, type CommitPackageSnapshot, type ModuleCache } from './evidence/package-at-commit.js';
import { checkIgnoredEvidence } from './evidence/ignored-evidence.js';
import { judgeKeyChange } from './checks/manifest-keys.js';
import { checkPins } from './checks/pins.js';
import { explainRange } from './walk/explain-range.js';
import { checkRefactorReport, type RefactorEvidence } from './evidence/refactor-evidence.js';
import { compareModules } from './evidence/replay.js';
import { checkStore } from './evidence/store-check.js';
import { checkWorkspaceFile } from './checks/workspace-file.js';

/** A package some changed path belongs to. */
export interface TouchedPackage {
  dir: string;
  manifestPath: string;
  /** For a package the pull request moved: its directory at the base. */
  movedFrom?: string;
}

/** Context shared by the package audits of one run. */
export interface RunContext {
  repo: GitRepository;
  base: string;
  head: string;
  replay: boolean;
  obligationRunner: string | undefined;
  /** Modules parsed so far, by blob oid (base and head share unchanged modules). */
  modules: ModuleCache;
  /** The commits between base and head, parents first. */
  commits: RangeCommit[];
  history: boolean;
}

/** What one package audit leaves for the run: its report part, findings, and what the dangling check needs. */
export interface PackageResult {
  audit: PackageAudit;
  findings: AuditFinding[];
  out: PackageFindings;
  head: CommitPackageSnapshot | undefined;
  /** Names defined at the base or by a commit of the range. */
  formerly: Set<string>;
  /** Names a refactor's stale-reference finding already reports. */
  stale: Set<string>;
  explained: Set<string>;
}

/** The package's new evidence that verified: refactor plans and apply reports. */
interface Evidence {
  refactors: RefactorEvidence[];
  applies: ApplyEvidence[];
  /** The apply reports whose acceptance is `:ok true`. */
  accepted: ApplyEvidence[];
  /** Safe refactor plans by the patch hash they carry. */
  refactorByPatch: Map<string, RefactorEvidence>;
}

/**
 * Verifies one package (see the module comment), recording rows and findings.
 * @throws GcError `git/missing-commit` (exit 70) when a commit is not in the clone.
 */
export async function auditPackage(ctx: RunContext, touched: TouchedPackage): Promise<PackageResult> {
  const out = new PackageFindings(touched.dir);
  const audit: PackageAudit = {
    dir: touched.dir,
    manifestPath: touched.manifestPath,
    name: '',
    evidence: {},
    rows: out.rows,
    replay: emptyReplay(ctx.replay ? 'none' : 'disabled'),
    changedModules: [],
    unexplainedModules: [],
    commits: [],
    state: 'present',
  };
  const result: PackageResult = { audit, findings: out.findings, out, head: undefined, formerly: new Set(), stale: new Set(), explained: new Set() };
  const head = await readSide(ctx, touched, ctx.head, 'head', out);
  if (head === null) {
    audit.state = 'unreadable';
    // name the package anyway: its manifest may read although a module does not
    const text = await readFileAtCommit(ctx.repo, ctx.head, touched.manifestPath).catch(() => undefined);
    const name = text === undefined ? undefined : /^\s*name\s*=\s*"([^"]*)"/m.exec(new TextDecoder().decode(text))?.[1];
    audit.name = name ?? '';
    return result;
  }
  const baseRead = await readSide(ctx, touched, ctx.base, 'base', out);
  // an unreadable merge base is judged against its nearest readable ancestor, never as a new package
  const base = baseRead === null ? (await nearestReadablePackage(ctx.repo, ctx.base, touched.dir, ctx.modules))?.snapshot : baseRead;
  if (head === undefined) {
    audit.state = 'deleted';
    audit.name = base?.manifest.name ?? '';
    out.fail('package', touched.manifestPath, 'present', {
      code: AuditCode.packageDeleted,
      severity: 'warning',
      message: `${touched.manifestPath}: the package${base !== undefined ? ` ${base.manifest.name}` : ''} is deleted by this change`,
      file: touched.manifestPath,
      title: 'package deleted',
    });
    return result;
  }
  result.head = head;
  audit.name = head.manifest.name;

  checkPins(head, out);
  reportCaseCollisions(await caseCollisions(ctx.repo, ctx.head, touched.dir), out);
  const evidence = await checkEvidence(ctx, touched.dir, audit, out);
  if (base === undefined) {
    await explainNewPackage(ctx, touched, head, evidence.refactors, result);
    return result;
  }
  result.formerly = definedIn([base]);
  if (ctx.replay && !ctx.history && evidence.accepted.length > 0) {
    explainRange(base, head, evidence.accepted, evidence.refactors, evidence.refactorByPatch, audit, out);
  } else {
    await explainByHistory(ctx, touched, base, head, evidence, result);
  }
  checkIgnoredEvidence(ctx, touched, audit, out);
  // the reference's workspace file beside the manifest: no evidence explains it, the net change is judged
  await checkWorkspaceFile(ctx.repo, ctx.base, ctx.head, touched.dir, out);
  result.stale = checkStaleReferences(head, evidence.refactors, out);
  checkObligations(ctx.obligationRunner, ctx.repo.dir, head, touched.manifestPath, evidence.accepted.length, out);
  return result;
}

/**
 * The package at `commit`: `undefined` when it has none there, `null` when it cannot be read (then
 * recorded: an error at the head, a warning at the base, whose changes are checked as a new package).
 */
async function readSide(
  ctx: RunContext,
  touched: TouchedPackage,
  commit: string,
  which: 'head' | 'base',
  out: PackageFindings,
): Promise<CommitPackageSnapshot | undefined | null> {
  try {
    return await readPackageAtCommit(ctx.repo, commit, touched.dir, ctx.modules);
  } catch (error) {
    if (isGcError(error) && error.code === GitCode.missingCommit) throw error;
    const notRegular = isGcError(error) && error.code === AuditCode.notARegularFile;
    out.fail('package', touched.manifestPath, `read ${which}`, {
      code: notRegular ? AuditCode.notARegularFile : AuditCode.packageUnreadable,
      // the base is main's state: an unreadable base is a warning, the pull request is then judged against its nearest readable ancestor
      severity: which === 'head' ? 'error' : 'warning',
      message: `the package cannot be read at the ${which} commit: ${errorText(error)}${
        which === 'head'
          ? '; a head that cannot be read cannot be verified: fix the file so that `gcpatch verify-pr` (or `genesis pkg verify`) reads it, commit, and push'
          : '; the pull request is judged against the nearest ancestor where it can be read (a new package when there is none)'
      }`,
      file: (isGcError(error) && error.location.file) || touched.manifestPath,
      ...(isGcError(error) && error.location.line !== undefined ? { line: error.location.line } : {}),
      title: notRegular ? 'not a regular file' : 'package unreadable',
    });
    return null;
  }
}

/** Checks the evidence store and verifies each new refactor plan and apply report (counted in `audit.evidence`). */
async function checkEvidence(ctx: RunContext, dir: string, audit: PackageAudit, out: PackageFindings): Promise<Evidence> {
  const { headStore, fresh } = await checkStore(ctx.repo, ctx.base, ctx.head, dir, out);
  const prefer = fresh.map((e) => e.address);
  for (const e of fresh) audit.evidence[e.kind] = (audit.evidence[e.kind] ?? 0) + 1;
  const refactors: RefactorEvidence[] = [];
  const applies: ApplyEvidence[] = [];
  for (const e of fresh) {
    if (e.kind === 'refactor-plan') {
      const r = await checkRefactorReport(e, headStore, prefer, out);
      if (r !== undefined) refactors.push(r);
    } else if (e.kind === 'apply-report') {
      const a = await checkApplyReport(e, headStore, prefer, out);
      if (a !== undefined) applies.push(a);
    }
  }
  const refactorByPatch = new Map<string, RefactorEvidence>();
  for (const r of refactors) if (r.verified.safe) refactorByPatch.set(r.verified.patchH, r);
  return { refactors, applies, accepted: applies.filter((a) => a.ok), refactorByPatch };
}

/** A package with no base: new (every module unexplained), or moved (judged against its old directory). */
async function explainNewPackage(
  ctx: RunContext,
  touched: TouchedPackage,
  head: CommitPackageSnapshot,
  refactors: readonly RefactorEvidence[],
  result: PackageResult,
): Promise<void> {
  const { audit, out } = result;
  for (const r of refactors) {
    out.skip('refactor-plan', r.address, 're-plan', 'the package is new: there is no base to re-plan from');
  }
  out.fail('package', touched.manifestPath, 'explained', {
    code: AuditCode.unexplainedChange,
    severity: 'warning',
    message:
      touched.movedFrom !== undefined
        ? `${touched.manifestPath}: the package ${head.manifest.name} moved here from ${touched.movedFrom || '.'}; evidence does not follow a move, so its changes are checked by hand against the old directory`
        : `${touched.manifestPath}: new package with ${head.modules.length} modules; evidence explains changes to existing packages only`,
    file: touched.manifestPath,
    title: 'new package',
  });
  audit.changedModules = head.modules.map((m) => m.path);
  audit.unexplainedModules = [...audit.changedModules];
  result.stale = checkStaleReferences(head, refactors, out);
  if (touched.movedFrom === undefined) judgeNewPackageGrants(head, out);
  if (touched.movedFrom !== undefined) {
    // a move: judged against the package as it stood in its old directory
    const old = await readPackageAtCommit(ctx.repo, ctx.base, touched.movedFrom, ctx.modules).catch(() => undefined);
    if (old !== undefined) {
      const moved = checkMovedPackage(old, head, touched.movedFrom, out);
      audit.changedModules = compareModules(old, undefined, head)
        .filter((c) => c.status !== 'same')
        .map((c) => c.path);
      audit.unexplainedModules = audit.changedModules.filter((p) => moved.unexplained.has(p) || moved.mismatches.has(p));
      result.formerly = definedIn([old]);
    }
  }
}

/** Explains the package commit by commit (`explain.ts`) and fills the audit's commits, modules and replay outcome. */
async function explainByHistory(
  ctx: RunContext,
  touched: TouchedPackage,
  base: CommitPackageSnapshot,
  head: CommitPackageSnapshot,
  evidence: Evidence,
  result: PackageResult,
): Promise<void> {
  const { audit, out } = result;
  const { refactors, applies, accepted } = evidence;
  const history = await explainHistory(
    {
      repo: ctx.repo,
      dir: touched.dir,
      base,
      baseCommit: ctx.base,
      commits: ctx.commits,
      modules: ctx.modules,
      refactors: new Map(refactors.map((r) => [r.address, r])),
      applies: new Map(applies.map((a) => [a.address, a])),
      replay: ctx.replay,
    },
    out,
  );
  audit.commits = history.commits;
  for (const s of history.snapshots) for (const n of definedIn([s])) result.formerly.add(n);
  for (const r of refactors) {
    if (history.replanned.has(r.address)) continue;
    out.skip('refactor-plan', r.address, 're-plan', "added by no commit of the range (only in the head's store listing)");
  }
  const comparisons = compareModules(base, undefined, head);
  audit.changedModules = comparisons.filter((c) => c.status !== 'same').map((c) => c.path);
  // the net change: every difference at the head no verified step produced, judged whatever the history's shape
  const rowsBefore = out.rows.length;
  judgeNetChange({ base, head, dirty: history.dirty, evidenceCovered: history.explainedByEvidence, dir: touched.dir }, out);
  // a module evidence changed whose net change no verified step produced is a replay mismatch too:
  // the replay outcome must not say `reproduced` beside that error
  const mismatches = new Set(history.mismatches);
  for (const r of out.rows.slice(rowsBefore)) if (r.kind === 'module' && r.check === 'net change' && r.result === 'fail') mismatches.add(r.evidence);
  const dirtyModule = (p: string): boolean => history.dirty.has(moduleItem(p));
  audit.unexplainedModules = audit.changedModules.filter((p) => history.unexplained.has(p) || dirtyModule(p));
  result.explained = new Set(audit.changedModules.filter((p) => history.explainedByEvidence.has(p) && !history.mismatches.has(p) && !dirtyModule(p)));
  if (result.explained.size > 0) {
    const n = result.explained.size;
    out.pass(
      'module',
      `${n} module${n === 1 ? '' : 's'}`,
      ctx.replay ? 'replay' : 'explained',
      ctx.replay ? 'reproduced exactly by replaying the evidence commit by commit' : 'named by verified patches (replay: false)',
    );
  }
  if (!ctx.replay && accepted.length > 0) {
    out.skip('apply-report', 'replay', 'replay', 'replay: false — changes are matched to the modules and keys the patches name; every other check ran');
  }
  audit.replay = ctx.replay
    ? {
        status:
          history.applied.length === 0 && !history.replayFailed ? 'none' : history.replayFailed ? 'failed' : mismatches.size > 0 ? 'differs' : 'reproduced',
        applied: history.applied,
        modulesChanged: history.explainedByEvidence.size,
        mismatches: [...mismatches].sort(),
        millis: history.millis,
      }
    : emptyReplay('disabled');
}

/**
 * A new package (no base, not a move) has nothing to be explained against, but what it grants is
 * judged against granting nothing (docs/security.md "A new package"): each capability policy file
 * against no policy (any op, any unbounded setting granted is `audit/caps-widened`), and `[limits]`,
 * `[budgets]`, `[property]`, `[gfx]` against their absence (`allow_unlimited = true`, a field the
 * reference does not read: errors). So deleting a package and adding it again under another name and
 * other paths carries no capability past the check.
 */
function judgeNewPackageGrants(head: CommitPackageSnapshot, out: PackageFindings): void {
  for (const p of [...head.policies.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) {
    const cmp = comparePolicies(undefined, p.text);
    if (cmp.widened.length === 0) continue;
    out.fail('policy', p.file, 'new package', {
      code: AuditCode.capsWidened,
      message: `${p.file}: a new package's capability policy grants ${cmp.widened.slice(0, 6).join('; ')}${cmp.widened.length > 6 ? ` (${cmp.widened.length} in all)` : ''}; capabilities are granted on the base branch, reviewed: add the package there, or start it with a policy that grants nothing`,
      file: p.file,
      title: 'capabilities widened',
    });
  }
  for (const key of ['limits', 'budgets', 'property', 'gfx']) {
    const verdict = judgeKeyChange(key, undefined, head.table[key]);
    if (verdict === undefined || verdict.severity !== 'error') continue;
    out.fail('manifest', 'package.toml', key, {
      code: verdict.code,
      message: `${head.manifestPath}: a new package sets ${verdict.detail}; this weakens what the package is checked against: set it on the base branch, reviewed`,
      file: head.manifestPath,
      title: verdict.title,
    });
  }
}
