/**
 * `gcpatch verify-pr`, the entry point of the pull request audit (docs/action.md "What each check
 * means", docs/security.md): account for every path that differs between the merge base of `base`
 * and `head` (`accounting.ts`); select the changed packages and the shard (`selection.ts`); verify
 * each selected package (`package-check.ts`: its store, evidence, commits, pins and obligations);
 * check dangling references across them (`dangling.ts`); and assemble the report (`findings.ts`). Reads only git objects (isomorphic-git), never the work tree,
 * except for the optional obligation runner. The GitHub Action and `gcpatch verify-pr` are thin
 * wrappers of {@link auditPullRequest}.
 */
import { reportOutsidePackages, type OutsidePackageMode } from './report/outside.js';
import { findMergeBases, listChangedEntries, openRepository, resolveRevision, GitCode } from '../git/repository.js';
import { compareUtf8 } from '../util/bytes.js';
import { GcError, isGcError } from '../util/errors.js';
import { accountChanges, candidatePackages, movedPackages, type PathAccount } from './walk/accounting.js';
import { recordAttributeChanges } from './checks/checkout-attributes.js';
import { checkDanglingReferences, definedIn } from './checks/dangling-references.js';
import { isFailing, PackageFindings, type AuditFinding, type AuditReport, type FailOn, type PackageAudit } from './report/findings.js';
import { rangeCommits } from './walk/history.js';
import { auditPackage, type PackageResult, type RunContext } from './package-check.js';
import { parseShard, selectPackages } from './walk/selection.js';

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
   * Check evidence commit by commit (default true). `false` runs the earlier range-level
   * replay (all apply evidence replayed on the base as one chain); kept for `npm run bench`'s
   * before/after figures only.
   */
  history?: boolean;
  /** `.gc` files outside every package: one notice with their count (default), or a warning each (src/verify-pr/outside.ts). */
  outsidePackage?: OutsidePackageMode;
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
    const { accounts, byPackage, pathFindingsByPackage } = await accountChanges(repo, changed, candidates, global);
    // checkout attributes by effect: what git applies to every package path, at both commits
    recordAttributeChanges(
      repo.dir,
      base,
      head,
      changed.map((e) => e.path),
      global,
    );
    reportOutsidePackages(accounts, options.outsidePackage ?? 'notice', global);

    // The selection.
    const changedPackages = [...byPackage.values()].map((p) => p.c).sort((a, b) => compareUtf8(a.manifestPath, b.manifestPath));
    // a package moved out of a selected directory stays selected where it went
    const moved = movedPackages(candidates.values());
    const { inShard, notSelected, firstShard } = selectPackages(changedPackages, moved, options.packages, shard, global);

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
    const shown = explainPaths(accounts, findings, results, firstShard);
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

/**
 * Fills each shown path's findings (the codes of the findings on its file) and explanation, and
 * marks the paths of packages the selection left out. @returns the paths this run shows (all of
 * them without sharding; a shard shows its packages' paths, and the first shard the others).
 */
function explainPaths(accounts: PathAccount[], findings: readonly AuditFinding[], results: readonly PackageResult[], firstShard: boolean): PathAccount[] {
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
  for (const a of accounts)
    if (a.packages.length > 0 && !a.packages.some((d) => audited.has(d))) a.explanation = 'in a package the selection left out: not verified';
  return shown;
}

/** A path's explanation in its package's audit (what the findings do not already say). */
function explainPath(a: PathAccount, r: PackageResult): string {
  const dir = r.audit.dir;
  const rel = dir === '' ? a.path : a.path.slice(dir.length + 1);
  if (a.findings.length > 0) return `see ${a.findings.join(', ')}`;
  switch (a.role) {
    case 'module':
      if (r.explained.has(rel)) return 'explained by evidence';
      if (r.audit.changedModules.includes(rel))
        return r.audit.unexplainedModules.includes(rel) ? 'not explained' : 'explained by evidence or by the merge of its parents';
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
