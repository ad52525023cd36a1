/**
 * Verifying the evidence between two commits (docs/action.md "What each check means",
 * docs/security.md): account for every path that differs between the merge base of `base` and
 * `head` (`accounting.ts`); for every GenesisCode package a changed path belongs to, re-hash the new
 * evidence-store entries, verify refactor-plan and apply reports, walk the commits and explain each
 * one by its evidence or the merge of its parents (`explain.ts`), check the head's pins, case
 * collisions and dangling references. Reads only git objects (isomorphic-git), never the work tree,
 * except for the optional obligation runner. The GitHub Action and `gcpatch verify-pr` are thin
 * wrappers of {@link auditPullRequest}.
 */
import { vec, termsEqual } from '../coreform/term.js';
import {
  findMergeBases,
  listChangedEntries,
  openRepository,
  readFileAtCommit,
  resolveRevision,
  GitCode,
  type GitRepository,
} from '../git/repository.js';
import { accountOf, attributesFinding, candidatePackages, movedPackages, caseCollisions, owners, pathFindings, reportCaseCollisions, roleIn, type CandidatePackage, type PathAccount } from './accounting.js';
import { checkDanglingReferences, definedIn, usesOf } from './dangling.js';
import { compareUtf8 } from '../util/bytes.js';
import { GcError, isGcError } from '../util/errors.js';
import { checkApplyReport, type ApplyEvidence } from './apply-evidence.js';
import {
  AuditCode,
  isFailing,
  PackageFindings,
  type AuditFinding,
  type AuditReport,
  type FailOn,
  type PackageAudit,
  type ReplayOutcome,
} from './findings.js';
import { parseGlobList, pathMatcher } from './glob.js';
import { runHeadObligations } from './obligations.js';
import {
  listStoreAtCommit,
  readPackageAtCommit,

  snapshotState,
  storeEntryPath,
  type CommitPackageSnapshot,
  type ModuleCache,
} from './package-at-commit.js';
import { checkReplan, checkRefactorReport, type RefactorEvidence } from './refactor-evidence.js';
import { compareModules, manifestDifferences, replayChain, type ModuleComparison } from './replay.js';
import { CommitStore, type StoreEntryCheck } from './store-evidence.js';
import { checkMovedPackage, explainHistory } from './explain.js';
import { rangeCommits, type RangeCommit } from './history.js';

/** Options of {@link auditPullRequest}. */
export interface AuditOptions {
  /** Any directory inside the repository's work tree (default: the current directory). */
  dir?: string;
  /** The base revision (the pull request's base SHA, a branch, `HEAD~3`, …). */
  base: string;
  /** The head revision. */
  head: string;
  /** `packages` globs over repository-relative `package.toml` paths (default: all). */
  packages?: string | readonly string[];
  /** `error` (default): only errors fail; `warning`: unexplained changes and other warnings fail too. */
  failOn?: FailOn;
  /** Replay apply evidence on the base package and compare with the head (default true). */
  replay?: boolean;
  /** A shell command run in each touched package directory of the work tree (see `obligations.ts`). */
  obligationRunner?: string;
  /** `i/n`: verify only the i-th of n deterministic shares of the selected changed packages (a CI matrix). */
  shard?: string;
  /**
   * Check evidence commit by commit (default true, issue #11). `false` runs the earlier range-level
   * replay (all apply evidence replayed on the base as one chain); kept for `npm run bench`'s
   * before/after figures only.
   */
  history?: boolean;
}

/** The error thrown when base or head (or their history) is missing from the clone. */
export const MISSING_HISTORY_HINT =
  'the base and head commits and the history between them must be in the clone: with actions/checkout set ' +
  '`fetch-depth: 0` (its default of 1 fetches a single commit); locally run `git fetch --unshallow` or fetch both commits';

function withHistoryHint(error: unknown): unknown {
  if (isGcError(error) && error.code === GitCode.missingCommit) {
    // The git layer's message already says how to fetch; replace its advice with the Action's.
    const what = error.message.split(': ')[0]!;
    return new GcError(error.code, `${what}: ${MISSING_HISTORY_HINT}`, {
      exitCode: error.exitCode,
      location: error.location,
      details: error.details,
      cause: error,
    });
  }
  return error;
}

/** A package some changed path belongs to. */
interface TouchedPackage {
  dir: string;
  manifestPath: string;
  /** For a package the pull request moved: its directory at the base. */
  movedFrom?: string;
}

function manifestLine(snapshot: CommitPackageSnapshot, modulePath: string, key: 'path' | 'hash'): number | undefined {
  const lines = snapshot.manifestText.split('\n');
  const at = lines.findIndex((l) => new RegExp(`^\\s*path\\s*=\\s*${JSON.stringify(modulePath).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*$`).test(l));
  if (at < 0) return undefined;
  if (key === 'path') return at + 1;
  for (let i = at; i >= 0 && (i === at || !/^\s*\[/.test(lines[i]!)); i--) if (/^\s*hash\s*=/.test(lines[i]!)) return i + 1;
  for (let i = at + 1; i < lines.length && !/^\s*\[/.test(lines[i]!); i++) if (/^\s*hash\s*=/.test(lines[i]!)) return i + 1;
  return at + 1;
}

function errorText(error: unknown): string {
  return isGcError(error) ? `${error.code}: ${error.message}` : error instanceof Error ? error.message : String(error);
}

/** Context shared by the package audits of one run. */
interface RunContext {
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

function checkPins(head: CommitPackageSnapshot, out: PackageFindings): void {
  let ok = 0;
  for (const m of head.modules) {
    if (m.pin === m.hash) {
      ok++;
      continue;
    }
    const line = manifestLine(head, m.path, 'hash');
    out.fail('pins', m.path, 'head pin', {
      code: AuditCode.pinMismatch,
      message:
        m.pin === undefined || m.pin === ''
          ? `${head.manifestPath} has no hash pin for ${m.path} (module hash ${m.hash}); run \`gcpatch pack\` (after a merge: \`gcpatch driver repin\`) and commit`
          : `${head.manifestPath} pins ${m.path} to ${m.pin.slice(0, 12)}…, but the module at the head hashes to ${m.hash.slice(0, 12)}…; a change made by hand: make it with gcpatch apply / refactor apply, or re-pin with \`gcpatch pack\``,
      file: head.manifestPath,
      ...(line !== undefined ? { line } : {}),
      title: 'pin mismatch',
    });
  }
  if (ok === head.modules.length) out.pass('pins', 'package.toml', 'head pins', `${ok} module pins match`);
}

/** Reads the new/changed/removed store entries and checks each new one. */
async function checkStore(
  ctx: RunContext,
  dir: string,
  out: PackageFindings,
): Promise<{ headStore: CommitStore; fresh: StoreEntryCheck[] }> {
  const [baseListing, headListing] = await Promise.all([
    listStoreAtCommit(ctx.repo, ctx.base, dir),
    listStoreAtCommit(ctx.repo, ctx.head, dir),
  ]);
  const headStore = new CommitStore(ctx.repo, ctx.head, dir, headListing);
  for (const [address, oid] of baseListing) {
    const file = storeEntryPath(dir, address);
    const now = headListing.get(address);
    if (now === undefined) {
      out.fail('store', address, 'write-once', {
        code: AuditCode.storeEntryRemoved,
        severity: 'warning',
        message: `evidence-store entry ${address.slice(0, 12)} was deleted; the store is append-only`,
        file,
        title: 'evidence removed',
      });
    } else if (now !== oid) {
      out.fail('store', address, 'write-once', {
        code: AuditCode.storeEntryModified,
        message: `evidence-store entry ${address.slice(0, 12)} existed at the base and was changed; entries are write-once`,
        file,
        title: 'evidence modified',
      });
    }
  }
  const freshNames = [...headListing.keys()].filter((a) => !baseListing.has(a)).sort();
  const fresh: StoreEntryCheck[] = [];
  for (const address of freshNames) {
    const e = (await headStore.entry(address))!;
    if (!e.hashOk) {
      out.fail('store', address, 'hash', {
        code: AuditCode.storeHashMismatch,
        message: `evidence-store entry ${address.slice(0, 12)} does not hash to its name (BLAKE3 of its bytes differs): the entry was edited or corrupted`,
        file: e.file,
        title: 'evidence tampered',
      });
      continue;
    }
    if (e.term === undefined || !e.canonical) {
      out.fail('store', address, 'parse', {
        code: AuditCode.storeEntryUnreadable,
        severity: 'warning',
        message: `evidence-store entry ${address.slice(0, 12)} hashes correctly but ${e.problem ?? 'cannot be read'}; only its hash was checked`,
        file: e.file,
        title: 'evidence unreadable',
      });
      continue;
    }
    if (e.kind === 'other') {
      out.skip('store', address, 'kind', `hash ok; kind ${e.kindString ?? '(none)'} is verified by hash only`);
    } else {
      out.pass('store', address, 'hash', `${e.kind}`);
    }
    fresh.push(e);
  }
  return { headStore, fresh };
}

/** A warning for a `[[modules]]` list (paths, order) that changed without evidence. */
function unexplainedModuleList(head: CommitPackageSnapshot, out: PackageFindings): void {
  out.fail('manifest', 'package.toml', 'explained', {
    code: AuditCode.unexplainedChange,
    severity: 'warning',
    message: `${head.manifestPath}: the [[modules]] list (paths or order) changed and no evidence explains the change`,
    file: head.manifestPath,
    title: 'unexplained change',
  });
}

function emptyReplay(status: ReplayOutcome['status']): ReplayOutcome {
  return { status, applied: [], modulesChanged: 0, mismatches: [], millis: 0 };
}

function stateLabel(index: number): string {
  return index === 0 ? 'the base commit' : `the base commit plus ${index} earlier patch${index === 1 ? '' : 'es'}`;
}

/** Records the module comparisons: mismatches (errors), unexplained changes (warnings), a summary row. */
function reportComparisons(comparisons: readonly ModuleComparison[], out: PackageFindings, replayed: boolean): void {
  let explained = 0;
  for (const c of comparisons) {
    if (c.status === 'explained') explained++;
    else if (c.status === 'mismatch') {
      out.fail('module', c.path, 'replay', {
        code: AuditCode.replayModuleMismatch,
        message: `${c.file}: the head differs from replaying the evidence (${c.detail}); a change not produced by the recorded patch, e.g. a hand edit after the refactor`,
        file: c.file,
        ...(c.line !== undefined ? { line: c.line } : {}),
        title: 'replay differs',
      });
    } else if (c.status === 'unexplained') {
      out.fail('module', c.path, 'explained', {
        code: AuditCode.unexplainedChange,
        severity: 'warning',
        message: `${c.file} changed (${c.detail}) and no evidence in this pull request explains the change`,
        file: c.file,
        ...(c.line !== undefined ? { line: c.line } : {}),
        title: 'unexplained change',
      });
    }
  }
  if (explained > 0) {
    out.pass('module', `${explained} module${explained === 1 ? '' : 's'}`, replayed ? 'replay' : 'explained', replayed ? 'reproduced exactly by replaying the evidence' : 'named by verified patches');
  }
}

/**
 * Replays the accepted apply evidence on the base as a chain, re-plans each linked refactor report
 * from the state before its patch, checks each step's semantic edits and package record, and
 * compares the result with the head (modules and manifest).
 */
function checkReplay(
  base: CommitPackageSnapshot,
  head: CommitPackageSnapshot,
  accepted: readonly ApplyEvidence[],
  refactorByPatch: ReadonlyMap<string, RefactorEvidence>,
  replanned: Set<RefactorEvidence>,
  out: PackageFindings,
): { comparisons: ModuleComparison[]; outcome: ReplayOutcome } {
  const baseState = snapshotState(base);
  const start = performance.now();
  const chain = replayChain(baseState, accepted);
  chain.steps.forEach((step, i) => {
    const ev = step.evidence;
    const linked = refactorByPatch.get(ev.patch.patchH);
    if (linked !== undefined) {
      checkReplan(linked, step.before, stateLabel(i), out);
      replanned.add(linked);
    }
    if (termsEqual(vec(step.semanticEdits), ev.semanticEdits)) {
      out.pass('apply-report', ev.address, 'replay edits', `${step.semanticEdits.length} semantic edits reproduced`);
    } else {
      out.fail('apply-report', ev.address, 'replay edits', {
        code: AuditCode.replayEvidenceMismatch,
        message: `apply report ${ev.address.slice(0, 12)}: replaying its patch on ${stateLabel(i)} gives other :semantic-edits than the report records`,
        file: ev.file,
        title: 'semantic edits differ',
      });
    }
    if (step.packageArtifact === ev.packageArtifact) {
      out.pass('apply-report', ev.address, 'replay package', `package record ${ev.packageArtifact.slice(0, 12)} reproduced`);
    } else {
      out.fail('apply-report', ev.address, 'replay package', {
        code: AuditCode.replayEvidenceMismatch,
        message: `apply report ${ev.address.slice(0, 12)}: replaying gives package record ${step.packageArtifact.slice(0, 12)}, the report names ${ev.packageArtifact.slice(0, 12)}`,
        file: ev.file,
        title: 'package record differs',
      });
    }
  });
  for (const f of chain.failures) {
    out.fail('apply-report', f.evidence.address, 'replay', {
      code: AuditCode.replayFailed,
      message: `apply report ${f.evidence.address.slice(0, 12)}: its patch does not apply to the base commit's package${chain.steps.length > 0 ? ' (nor after the other evidence)' : ''}: ${errorText(f.error)}`,
      file: f.evidence.file,
      title: 'replay failed',
    });
  }
  const comparisons = compareModules(base, chain.final, head);
  const mismatches = comparisons.filter((c) => c.status === 'mismatch').map((c) => c.path);
  const evidenceKeys = new Set(manifestDifferences(baseState.manifest, chain.final.manifest));
  const headKeys = manifestDifferences(chain.final.manifest, head.table);
  const contradicted = headKeys.filter((k) => evidenceKeys.has(k));
  if (contradicted.length > 0) {
    out.fail('manifest', 'package.toml', 'replay', {
      code: AuditCode.replayManifestMismatch,
      message: `${head.manifestPath}: ${contradicted.join(', ')} differ${contradicted.length === 1 ? 's' : ''} from the manifest the replay produces`,
      file: head.manifestPath,
      title: 'manifest differs',
    });
    mismatches.push('package.toml');
  } else if (headKeys.includes('modules')) {
    unexplainedModuleList(head, out);
  }
  const outcome: ReplayOutcome = {
    status: chain.failures.length > 0 ? 'failed' : mismatches.length > 0 ? 'differs' : 'reproduced',
    applied: chain.steps.map((s) => s.evidence.address),
    modulesChanged: comparisons.filter((c) => c.status === 'explained' || c.status === 'mismatch').length,
    mismatches,
    millis: Math.round(performance.now() - start),
  };
  return { comparisons, outcome };
}

/** What one package audit leaves for the run: its report part, findings, and what the dangling check needs. */
interface PackageResult {
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

async function auditPackage(ctx: RunContext, touched: TouchedPackage): Promise<PackageResult> {
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
  const read = async (commit: string, which: 'head' | 'base'): Promise<CommitPackageSnapshot | undefined | null> => {
    try {
      return await readPackageAtCommit(ctx.repo, commit, touched.dir, ctx.modules);
    } catch (error) {
      if (isGcError(error) && error.code === GitCode.missingCommit) throw error;
      const notRegular = isGcError(error) && error.code === AuditCode.notARegularFile;
      out.fail('package', touched.manifestPath, `read ${which}`, {
        code: notRegular ? AuditCode.notARegularFile : AuditCode.packageUnreadable,
        // the base is main's state: an unreadable base is a warning, the pull request is then checked as a new package
        severity: which === 'head' ? 'error' : 'warning',
        message: `the package cannot be read at the ${which} commit: ${errorText(error)}${which === 'head' ? '; a head that cannot be read cannot be verified' : '; its changes are checked as a new package'}`,
        file: (isGcError(error) && error.location.file) || touched.manifestPath,
        ...(isGcError(error) && error.location.line !== undefined ? { line: error.location.line } : {}),
        title: notRegular ? 'not a regular file' : 'package unreadable',
      });
      return null;
    }
  };
  const head = await read(ctx.head, 'head');
  if (head === null) {
    audit.state = 'unreadable';
    // name the package anyway: its manifest may read although a module does not
    const text = await readFileAtCommit(ctx.repo, ctx.head, touched.manifestPath).catch(() => undefined);
    const name = text === undefined ? undefined : /^\s*name\s*=\s*"([^"]*)"/m.exec(new TextDecoder().decode(text))?.[1];
    audit.name = name ?? '';
    return result;
  }
  const baseRead = await read(ctx.base, 'base');
  const base = baseRead === null ? undefined : baseRead;
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
  const { headStore, fresh } = await checkStore(ctx, touched.dir, out);
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
  const accepted = applies.filter((a) => a.ok);
  const refactorByPatch = new Map<string, RefactorEvidence>();
  for (const r of refactors) if (r.verified.safe) refactorByPatch.set(r.verified.patchH, r);
  const replanned = new Set<RefactorEvidence>();

  if (base === undefined) {
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
    if (touched.movedFrom !== undefined) {
      // a move: judged against the package as it stood in its old directory
      const old = await readPackageAtCommit(ctx.repo, ctx.base, touched.movedFrom, ctx.modules).catch(() => undefined);
      if (old !== undefined) {
        const moved = checkMovedPackage(old, head, touched.movedFrom, out);
        audit.changedModules = compareModules(old, undefined, head).filter((c) => c.status !== 'same').map((c) => c.path);
        audit.unexplainedModules = audit.changedModules.filter((p) => moved.unexplained.has(p) || moved.mismatches.has(p));
        result.formerly = definedIn([old]);
      }
    }
    return result;
  }
  result.formerly = definedIn([base]);

  const baseState = snapshotState(base);
  if (ctx.replay && !ctx.history && accepted.length > 0) {
    const r = checkReplay(base, head, accepted, refactorByPatch, replanned, out);
    audit.replay = r.outcome;
    reportComparisons(r.comparisons, out, true);
    for (const p of refactors) if (!replanned.has(p)) checkReplan(p, baseState, stateLabel(0), out);
    audit.changedModules = r.comparisons.filter((c) => c.status !== 'same').map((c) => c.path);
    audit.unexplainedModules = r.comparisons.filter((c) => c.status === 'unexplained').map((c) => c.path);
  } else {
    const history = await explainHistory(
      {
        repo: ctx.repo,
        dir: touched.dir,
        base,
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
      out.skip('refactor-plan', r.address, 're-plan', 'added by no commit of the range (only in the head\'s store listing)');
    }
    const comparisons = compareModules(base, undefined, head);
    audit.changedModules = comparisons.filter((c) => c.status !== 'same').map((c) => c.path);
    audit.unexplainedModules = audit.changedModules.filter((p) => history.unexplained.has(p));
    result.explained = new Set(audit.changedModules.filter((p) => history.explainedByEvidence.has(p) && !history.mismatches.has(p)));
    if (result.explained.size > 0) {
      const n = result.explained.size;
      out.pass('module', `${n} module${n === 1 ? '' : 's'}`, ctx.replay ? 'replay' : 'explained', ctx.replay ? 'reproduced exactly by replaying the evidence commit by commit' : 'named by verified patches (replay: false)');
    }
    if (!ctx.replay && accepted.length > 0) {
      out.skip('apply-report', 'replay', 'replay', 'replay: false — changes are matched to the modules and keys the patches name; every other check ran');
    }
    audit.replay = ctx.replay
      ? {
          status: history.applied.length === 0 && !history.replayFailed ? 'none' : history.replayFailed ? 'failed' : history.mismatches.size > 0 ? 'differs' : 'reproduced',
          applied: history.applied,
          modulesChanged: history.explainedByEvidence.size,
          mismatches: [...history.mismatches].sort(),
          millis: history.millis,
        }
      : emptyReplay('disabled');
  }

  result.stale = checkStaleReferences(head, refactors, out);

  const runner = ctx.obligationRunner !== undefined && ctx.obligationRunner.trim() !== '';
  if (accepted.length > 0 && !runner && head.manifest.obligations.length > 0) {
    out.fail('obligations', 'package', 'obligation runner', {
      code: AuditCode.acceptanceNotRerun,
      severity: 'notice',
      message: `${accepted.length} apply report${accepted.length === 1 ? '' : 's'} claim${accepted.length === 1 ? 's' : ''} an accepted acceptance; claimed, not re-run (no obligation-runner): set the obligation-runner input (--obligation-runner) to re-run the package's obligations`,
      file: touched.manifestPath,
      title: 'acceptance claimed, not re-run',
    });
  }
  if (runner) {
    const run = runHeadObligations(ctx.obligationRunner!, ctx.repo.dir, head);
    if (run.ok) out.pass('obligations', 'package', 'obligation runner', `\`${run.command}\`: acceptance :ok true (${run.millis} ms)`);
    else {
      out.fail('obligations', 'package', 'obligation runner', {
        code: AuditCode.obligationsFailed,
        message: `obligation runner \`${run.command}\` in ${touched.dir || '.'}: ${run.problem ?? 'failed'}`,
        file: touched.manifestPath,
        title: 'obligations failed',
      });
    }
  }
  return result;
}

/**
 * A rename or move whose old name is referenced again at the head, although no module defines it,
 * is an error (`audit/refactor-stale-reference`): each commit can be explained (the refactor by its
 * evidence, a merge from main by the structural merge of its parents) while the result calls a
 * definition that no longer exists, because main added a use of the old name in a module the
 * refactor never saw. A rebase shows the same problem as `audit/refactor-replan-differs`.
 */
function checkStaleReferences(head: CommitPackageSnapshot, refactors: readonly RefactorEvidence[], out: PackageFindings): Set<string> {
  const reported = new Set<string>();
  const moving = refactors.filter((r) => r.verified.safe && (r.request.refactorKind === 'rename' || r.request.refactorKind === 'move'));
  if (moving.length === 0) return reported;
  const defined = definedIn([head]);
  for (const r of moving) {
    const from = r.request.fromSymbol;
    if (from === '' || from === r.request.toSymbol || defined.has(from)) continue;
    const sites = usesOf(from, head.modules);
    if (sites.length === 0) continue;
    const first = sites[0]!;
    const where = sites.slice(0, 5).map((s) => `${s.file}:${s.line}`).join(', ') + (sites.length > 5 ? `, … (${sites.length} in all)` : '');
    out.fail('refactor-plan', r.address, 'no stale reference', {
      code: AuditCode.refactorStaleReference,
      message:
        `${r.request.refactorKind} ${from} → ${r.request.toSymbol}: the head still references ${from}, which no module defines any more ` +
        `(${where}); a use of the old name arrived after the refactor (e.g. with a merge from main). Rename the new use with a patch — ` +
        `gcpatch apply --patch of {:op :rename-symbol :module-path "${first.file.slice(head.dir === '' ? 0 : head.dir.length + 1)}" :from "${from}" :to "${r.request.toSymbol}"} — and commit its evidence`,
      file: first.file,
      line: first.line,
      title: 'reference to a refactored-away name',
    });
    reported.add(from);
  }
  return reported;
}

function repoManifest(dir: string): string {
  return dir === '' ? 'package.toml' : `${dir}/package.toml`;
}

/** Parses a `shard` option `i/n` (1 ≤ i ≤ n). @throws GcError `usage/invalid-option` (exit 10). */
export function parseShard(shard: string | undefined): { index: number; count: number } | undefined {
  if (shard === undefined || shard.trim() === '') return undefined;
  const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(shard);
  const index = m ? Number(m[1]) : NaN;
  const count = m ? Number(m[2]) : NaN;
  if (!m || !(count >= 1) || !(index >= 1) || index > count) {
    throw new GcError('usage/invalid-option', `shard must be i/n with 1 ≤ i ≤ n (e.g. 2/4), got ${JSON.stringify(shard)}`, {
      details: { option: 'shard', value: shard },
    });
  }
  return { index, count };
}

/**
 * Audits the evidence between two commits.
 * @param options base/head revisions, package globs, `failOn`, `replay`, obligation runner, shard,
 *   and the directory of the repository.
 * @returns the report; `report.ok` is false when a finding at or above `failOn` exists.
 * @throws GcError `git/missing-commit` (exit 70) when base, head or their history is not in the
 *   clone (the message explains `fetch-depth: 0`); `git/unknown-revision`, `git/no-merge-base`,
 *   `git/not-a-repository`, `usage/invalid-option` for a bad shard (exit 10).
 * @example const report = await auditPullRequest({ base: 'origin/main', head: 'HEAD' })
 */
export async function auditPullRequest(options: AuditOptions): Promise<AuditReport> {
  const failOn = options.failOn ?? 'error';
  const replay = options.replay ?? true;
  const shard = parseShard(options.shard);
  try {
    const repo = await openRepository(options.dir ?? process.cwd());
    const baseRequested = await resolveRevision(repo, options.base);
    const head = await resolveRevision(repo, options.head);
    let base: string;
    try {
      const bases = await findMergeBases(repo, baseRequested, head);
      if (bases.length === 0) throw new GcError(GitCode.noMergeBase, `commits ${baseRequested} and ${head} have no common ancestor`);
      base = bases.includes(baseRequested) ? baseRequested : [...bases].sort()[0]!;
    } catch (error) {
      throw withHistoryHint(error);
    }

    // Every changed path, where it belongs, and what its kind and mode say.
    const changed = await listChangedEntries(repo, base, head);
    const candidates = await candidatePackages(repo, base, head, changed);
    const global = new PackageFindings('');
    const accounts: PathAccount[] = [];
    const byPackage = new Map<string, { c: CandidatePackage; paths: PathAccount[] }>();
    const pathFindingsByPackage = new Map<string, ReturnType<typeof pathFindings>>();
    for (const entry of changed) {
      const attributes = await attributesFinding(repo, entry);
      if (attributes !== undefined) global.fail('path', entry.path, 'checkout', attributes);
      const owning = owners(entry.path, candidates);
      const role = owning.length === 0 ? 'outside' : roleIn(owning[0]!, entry.path);
      const account = accountOf(entry, owning, role);
      accounts.push(account);
      if (owning.length === 0) {
        for (const f of pathFindings(entry, 'outside', undefined)) global.fail('path', entry.path, 'kind', f);
        account.explanation = 'outside every package: not verified';
        continue;
      }
      for (const c of owning) {
        let p = byPackage.get(c.dir);
        if (p === undefined) byPackage.set(c.dir, (p = { c, paths: [] }));
        p.paths.push(account);
        let list = pathFindingsByPackage.get(c.dir);
        if (list === undefined) pathFindingsByPackage.set(c.dir, (list = []));
        for (const f of pathFindings(entry, roleIn(c, entry.path), c.manifestPath)) list.push(f);
      }
    }

    // The selection.
    const selectedBy = pathMatcher(parseGlobList(options.packages));
    const changedPackages = [...byPackage.values()].map((p) => p.c).sort((a, b) => compareUtf8(a.manifestPath, b.manifestPath));
    // a package moved out of a selected directory stays selected where it went
    const moved = movedPackages(candidates.values());
    const selectedPackages = changedPackages.filter((c) => selectedBy(c.manifestPath) || (moved.has(c.dir) && selectedBy(repoManifest(moved.get(c.dir)!))));
    const inShard = selectedPackages.filter((_, i) => shard === undefined || i % shard.count === shard.index - 1);
    const notSelected = changedPackages.filter((c) => !inShard.includes(c)).map((c) => c.manifestPath);
    const firstShard = shard === undefined || shard.index === 1;
    if (changedPackages.length > 0 && selectedPackages.length === 0) {
      global.fail('selection', 'packages', 'selects', {
        code: AuditCode.selectionEmpty,
        message: `the selection ${JSON.stringify(parseGlobList(options.packages).join(','))} selects none of the ${changedPackages.length} changed package${changedPackages.length === 1 ? '' : 's'} (${changedPackages.map((c) => c.manifestPath).join(', ')}); fix the packages input or drop it to verify every package`,
        title: 'selection selects nothing',
      });
    }
    for (const c of changedPackages) {
      if (selectedPackages.includes(c)) continue;
      global.fail('selection', c.manifestPath, 'selected', {
        code: AuditCode.packageNotSelected,
        severity: 'notice',
        message: `${c.manifestPath} changed but the selection leaves it out: it is not verified`,
        file: c.manifestPath,
        title: 'package not selected',
      });
    }

    const history = options.history ?? true;
    const commits = inShard.length > 0 && history ? await rangeCommits(repo, base, head) : [];
    const ctx: RunContext = { repo, base, head, replay, obligationRunner: options.obligationRunner, modules: new Map(), commits, history };
    const packages: PackageAudit[] = [];
    const findings: AuditFinding[] = [];
    const results: PackageResult[] = [];
    for (const c of inShard) {
      const movedFrom = moved.get(c.dir);
      const r = await auditPackage(ctx, { dir: c.dir, manifestPath: c.manifestPath, ...(movedFrom !== undefined ? { movedFrom } : {}) });
      for (const f of pathFindingsByPackage.get(c.dir) ?? []) r.out.fail('path', f.file, 'kind', f);
      results.push(r);
    }
    // Dangling references: names defined before (in any audited package), gone at every audited head.
    const headDefined = definedIn(results.flatMap((r) => (r.head === undefined ? [] : [r.head])));
    for (const r of results) {
      if (r.head !== undefined) checkDanglingReferences(r.head, r.formerly, headDefined, r.stale, r.out);
      packages.push(r.audit);
      for (const item of r.findings) findings.push(item);
    }
    if (firstShard) for (const item of global.findings) findings.push(item);

    // Explanations and findings per path.
    const codesByFile = new Map<string, string[]>();
    for (const f of findings) {
      if (f.file === undefined) continue;
      let list = codesByFile.get(f.file);
      if (list === undefined) codesByFile.set(f.file, (list = []));
      if (!list.includes(f.code)) list.push(f.code);
    }
    const audited = new Map(results.map((r) => [r.audit.dir, r]));
    const shown = accounts.filter((a) => (a.packages.length === 0 ? firstShard : a.packages.some((d) => audited.has(d))));
    for (const a of shown) {
      a.findings = codesByFile.get(a.path) ?? [];
      if (a.packages.length === 0) continue;
      const r = audited.get(a.packages.find((d) => audited.has(d))!)!;
      a.explanation = explainPath(a, r);
    }
    for (const a of accounts) if (a.packages.length > 0 && !a.packages.some((d) => audited.has(d))) a.explanation = 'in a package the selection left out: not verified';
    const rows = [...packages.flatMap((p) => p.rows), ...(firstShard ? global.rows : [])];
    return {
      kind: 'gcpatch/pr-audit-v1',
      base,
      baseRequested,
      head,
      failOn,
      replay,
      packages,
      paths: shard === undefined ? accounts : shown,
      notSelected,
      findings,
      verified: rows.filter((r) => r.result === 'pass').length,
      failed: rows.filter((r) => r.result === 'fail' || (failOn === 'warning' && r.result === 'warn')).length,
      ok: !findings.some((f) => isFailing(f, failOn)),
    };
  } catch (error) {
    throw withHistoryHint(error);
  }
}

/** A path's explanation in its package's audit (what the findings do not already say). */
function explainPath(a: PathAccount, r: PackageResult): string {
  const dir = r.audit.dir;
  const rel = dir === '' ? a.path : a.path.slice(dir.length + 1);
  if (a.findings.length > 0) return `see ${a.findings.join(', ')}`;
  switch (a.role) {
    case 'module':
      if (r.explained.has(rel)) return 'explained by evidence';
      if (r.audit.changedModules.includes(rel)) return r.audit.unexplainedModules.includes(rel) ? 'not explained' : 'explained by evidence or by the merge of its parents';
      return 'canonical forms unchanged (formatting, comments or mode)';
    case 'manifest':
      return 'every key checked against evidence and the key table; pins checked';
    case 'policy':
      return 'capability policy compared: not widened';
    case 'store-entry':
      return a.change === 'added' ? 'new evidence, re-hashed and verified' : 'store entry';
    case 'genesis-file':
      return 'tool state under .genesis (not evidence): not verified';
    case 'package-dir':
      return 'the package directory';
    case 'unlisted-module':
      return 'a .gc file no manifest lists (deleted)';
    default:
      return 'not read by the package (no manifest refers to it): not verified';
  }
}
