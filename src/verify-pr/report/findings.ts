/**
 * The audit report of a pull request's evidence: findings (one per problem, with a stable code, a
 * severity and a file/line where known), per-package check rows (evidence, check, result) and the
 * replay outcome. Pure data plus the few rules that decide pass/fail; rendering lives with each
 * entry point (`action/summary.ts`, `src/cli/pr-verify.ts`).
 */
import { isGcError } from '../../util/errors.js';
import type { PathAccount } from './path-account.js';
import type { SigningFindingCode } from './signing-codes.js';

/** How bad a finding is. `notice` never fails; `warning` fails only with `failOn: 'warning'`. */
export type Severity = 'error' | 'warning' | 'notice';

/** The `fail-on` threshold: fail on errors only (default), or on warnings too. */
export type FailOn = 'error' | 'warning';

/**
 * Stable finding codes (messages may change, codes may not). Each names one check of
 * docs/action.md "What each check means".
 */
export const AuditCode = {
  /** A store entry's bytes do not hash (plain BLAKE3) to its file name. */
  storeHashMismatch: 'audit/store-hash-mismatch',
  /** A store entry present at the base was changed by the pull request (the store is write-once). */
  storeEntryModified: 'audit/store-entry-modified',
  /** A store entry present at the base was deleted by the pull request. */
  storeEntryRemoved: 'audit/store-entry-removed',
  /** A new store entry is not one CoreForm term in canonical print. */
  storeEntryUnreadable: 'audit/store-entry-unreadable',
  /** A new store entry has a `:kind` this version does not verify (only its hash was checked). */
  storeEntryUnknownKind: 'audit/store-entry-unknown-kind',
  /** A refactor-plan report's request is not in the store. */
  refactorRequestMissing: 'audit/refactor-request-missing',
  /** A refactor-plan report fails the independent host verifier. */
  refactorReportInvalid: 'audit/refactor-report-invalid',
  /** Re-planning the request from the base commit does not give the stored report byte for byte. */
  refactorReplanDiffers: 'audit/refactor-replan-differs',
  /** A safe refactor plan has no apply report in the pull request (it explains no change). */
  refactorPlanNotApplied: 'audit/refactor-plan-not-applied',
  /** An apply report is not a closed `genesis/patch-apply-v0.3` map. */
  applyReportInvalid: 'audit/apply-report-invalid',
  /** The normalized patch an apply report names by `:patch-h` is not in the store. */
  applyPatchMissing: 'audit/apply-patch-missing',
  /** `:op-identities`/`:ops-count`/`:intent`/`:provenance` disagree with the stored patch. */
  applyPatchMismatch: 'audit/apply-patch-mismatch',
  /** The package or acceptance artifact is missing, mis-hashed or of the wrong kind. */
  applyArtifactInvalid: 'audit/apply-artifact-invalid',
  /** `:request-h` is not hash-term of the apply-report request rebuilt from the evidence. */
  applyRequestMismatch: 'audit/apply-request-mismatch',
  /** The report records a failed apply (`:ok false`): it explains no change. */
  applyNotOk: 'audit/apply-not-ok',
  /** The patch does not apply to the base commit's package (nor after the other evidence). */
  replayFailed: 'audit/replay-failed',
  /** A module the evidence changes differs at the head from what replaying the evidence gives. */
  replayModuleMismatch: 'audit/replay-module-mismatch',
  /** The head's manifest (module list, pins, other keys) differs from the replayed manifest. */
  replayManifestMismatch: 'audit/replay-manifest-mismatch',
  /** Replaying gives semantic edits or a package record other than the apply report names. */
  replayEvidenceMismatch: 'audit/replay-evidence-mismatch',
  /** A head `package.toml` pin does not match the head module's hash (or is missing). */
  pinMismatch: 'audit/pin-mismatch',
  /** A `.gc` module changed and no evidence in the pull request explains the change. */
  unexplainedChange: 'audit/unexplained-change',
  /** The package cannot be read at a commit (manifest or module does not parse, module missing). */
  packageUnreadable: 'audit/package-unreadable',
  /** The `obligation-runner` command failed for a package. */
  obligationsFailed: 'audit/obligations-failed',
  /** A declared obligation or test suite was removed and no evidence (`update-manifest` with
   * `:obligations-remove` / `:tests-remove`) explains it. */
  obligationsWeakened: 'audit/obligations-weakened',
  /** Apply reports claim an accepted acceptance that this run did not re-run (no obligation runner); a notice. */
  acceptanceNotRerun: 'audit/acceptance-not-rerun',
  /** A renamed or moved symbol is still referenced at the head although nothing defines it: a use of
   * the old name arrived with another change (typically a merge from main) after the refactor. */
  refactorStaleReference: 'audit/refactor-stale-reference',
  /** A module, `package.toml`, policy file or store entry that is a symlink, a gitlink or a tree; a
   * package directory replaced by a gitlink or a file. Link text is never read as content. */
  notARegularFile: 'audit/not-a-regular-file',
  /** A `.gitattributes` turns on an attribute that makes a checkout differ from the verified blobs (`ident`, `eol=`, `filter=`, …). */
  checkoutAttributes: 'audit/checkout-attributes',
  /** Two paths of one package differ only in letter case (a checkout on macOS or Windows sees one). */
  pathCaseCollision: 'audit/path-case-collision',
  /** A package file's git mode changed (regular ↔ executable). */
  modeChanged: 'audit/mode-changed',
  /** A `.gc` file inside a package directory that no manifest lists was added or changed. */
  unlistedModule: 'audit/unlisted-module',
  /** A changed package carries no evidence and the head's `.gitignore` ignores its evidence paths (src/verify-pr/ignored-evidence.ts). */
  evidenceIgnored: 'audit/evidence-ignored',
  /** A `.gc` file outside every package was added or changed. */
  outsidePackage: 'audit/outside-package',
  /** An unexplained change of a manifest key that neither weakens nor widens (named with both values). */
  manifestKeyChanged: 'audit/manifest-key-changed',
  /** A capability policy allows more: `caps_policy` repointed, or the policy file widened. */
  capsWidened: 'audit/caps-widened',
  /** A capability policy file changed without widening. */
  capsChanged: 'audit/caps-changed',
  /** `[limits]`/`[budgets]` raised or removed, `allow_unlimited` turned on, `[property] cases_per_test` lowered. */
  limitsRaised: 'audit/limits-raised',
  /** An apply report whose acceptance does not name the audited package, its version and its obligations. */
  evidenceForeign: 'audit/evidence-foreign',
  /** A head module references a qualified name that the base or a parent defined and the head no longer defines. */
  danglingReference: 'audit/dangling-reference',
  /** The package was deleted by the pull request. */
  packageDeleted: 'audit/package-deleted',
  /** The selection (`packages`) selects none of the changed packages. */
  selectionEmpty: 'audit/selection-empty',
  /** A changed package the selection left out (a notice). */
  packageNotSelected: 'audit/package-not-selected',
} as const;
/** One of {@link AuditCode}. */
export type AuditCodeValue = (typeof AuditCode)[keyof typeof AuditCode] | SigningFindingCode;

/**
 * One problem found. `file` is repository-relative with `/` separators (what GitHub annotations
 * need); `line` is 1-based.
 */
export interface AuditFinding {
  code: AuditCodeValue;
  severity: Severity;
  message: string;
  /** The package directory (repository-relative, `''` for the root) the finding belongs to. */
  package: string;
  file?: string;
  line?: number;
  /** A short title for annotations, e.g. `replay differs`. */
  title?: string;
}

/** Result of one check in the per-package table. `skip` = not applicable or not run. */
export type CheckResult = 'pass' | 'fail' | 'warn' | 'skip';

/** One row of a package's table: which evidence, which check, the result and a short detail. */
export interface CheckRow {
  /** The evidence checked: a store address (hex64), `package.toml`, a module path, or `replay`. */
  evidence: string;
  /** What kind of evidence (`refactor-plan`, `apply-report`, `patch`, `store`, `pins`, …). */
  kind: string;
  check: string;
  result: CheckResult;
  detail: string;
}

/** The outcome of replaying a package's apply evidence on the base package. */
export interface ReplayOutcome {
  /** `reproduced`: every replayed module and the manifest equal the head's; `differs`: some do not;
   * `failed`: a patch did not apply; `disabled`: `replay: false`; `none`: no apply evidence. */
  status: 'reproduced' | 'differs' | 'failed' | 'disabled' | 'none';
  /** Apply reports replayed, in replay order (store addresses). */
  applied: string[];
  /** Modules the replay changed. */
  modulesChanged: number;
  /** Modules (and `package.toml`) where head and replay differ. */
  mismatches: string[];
  /** Milliseconds spent replaying. */
  millis: number;
}

/**
 * How one commit of the pull request was explained, per package.
 * `route`:
 * - `unchanged`: the commit does not change the package;
 * - `evidence`: its evidence, checked on the state it was made on (the commit's parent), reproduces it;
 * - `evidence-on-new-parent`: its evidence was made on another state (rebase, cherry-pick, squash)
 *   and re-planned / re-applied on the commit's actual parent reproduces it;
 * - `merge`: every module equals the structural merge of the parents' modules (the driver's merge);
 * - `merge+evidence`: a merge commit that also carries evidence;
 * - `unexplained`: changes no evidence or merge explains (see `unexplained`).
 */
export interface CommitExplanation {
  commit: string;
  /** First line of the commit message. */
  subject: string;
  parents: string[];
  route: 'unchanged' | 'evidence' | 'evidence-on-new-parent' | 'merge' | 'merge+evidence' | 'unexplained';
  /** Evidence added by this commit, in the order it was checked (apply reports in binding order). */
  evidence: { address: string; kind: string; route: 'recorded-state' | 'actual-parent' | 'failed' | 'not-applied' }[];
  /** Modules (and `package.toml`) this commit changed without an explanation. */
  unexplained: string[];
  /** Modules whose content contradicts the evidence or merge that should explain them. */
  mismatched: string[];
}

/** Everything verified for one touched package. */
export interface PackageAudit {
  /** Repository-relative package directory (`''` = repository root). */
  dir: string;
  manifestPath: string;
  /** Package name at the head (or base when deleted). */
  name: string;
  /** New store entries at the head, by kind (`refactor-plan-request`, `apply-report`, `patch`, …). */
  evidence: Record<string, number>;
  rows: CheckRow[];
  replay: ReplayOutcome;
  /** `.gc` modules changed between base and head. */
  changedModules: string[];
  /** Changed modules no evidence explains. */
  unexplainedModules: string[];
  /** Per commit of the range (parents first), what explained its changes to this package. */
  commits: CommitExplanation[];
  /** `present` (readable at the head), `deleted` by the pull request, or `unreadable` at the head. */
  state: 'present' | 'deleted' | 'unreadable';
}

/** The whole audit of one base..head range. JSON-serializable (the Action's `report-path` file). */
export interface AuditReport {
  kind: 'gcpatch/pr-audit-v1';
  /** The commit compared against: the merge base of the requested base and head. */
  base: string;
  /** The requested base commit (the pull request's base tip). */
  baseRequested: string;
  head: string;
  failOn: FailOn;
  replay: boolean;
  packages: PackageAudit[];
  /**
   * Every path that differs between the base and the head, accounted for (`accounting.ts`): its
   * kinds and modes, the packages it belongs to, its role, what explained it and its findings' codes.
   */
  paths: PathAccount[];
  /** Changed packages (manifest paths) the selection (`packages`, `shard`) left out. */
  notSelected: string[];
  findings: AuditFinding[];
  /** Counts of check rows that passed / failed (the Action's `verified` / `failed` outputs). */
  verified: number;
  failed: number;
  /** True when a finding at or above the `failOn` threshold exists. */
  ok: boolean;
}

/** True when `finding` fails the run under `failOn`. */
export function isFailing(finding: AuditFinding, failOn: FailOn): boolean {
  return finding.severity === 'error' || (failOn === 'warning' && finding.severity === 'warning');
}

/** A replay outcome with nothing applied (`none`, or `disabled` with `replay: false`). */
export function emptyReplay(status: ReplayOutcome['status']): ReplayOutcome {
  return { status, applied: [], modulesChanged: 0, mismatches: [], millis: 0 };
}

/** The first 12 hex digits of a commit id or store address, as messages name them. */
export function short(oid: string): string {
  return oid.slice(0, 12);
}

/** An error as a finding's message quotes it: `code: message` for a GcError, else its message. */
export function errorText(error: unknown): string {
  return isGcError(error) ? `${error.code}: ${error.message}` : error instanceof Error ? error.message : String(error);
}

/**
 * A finding's message for output that names the file separately (text report, annotations): a
 * message that opens with its own file drops it, so the location is said once.
 */
export function messageWithoutLocation(finding: AuditFinding): string {
  const prefix = finding.file === undefined ? undefined : `${finding.file}: `;
  return prefix !== undefined && finding.message.startsWith(prefix) ? finding.message.slice(prefix.length) : finding.message;
}

/** Counts findings by severity. */
export function countBySeverity(findings: readonly AuditFinding[]): Record<Severity, number> {
  const out: Record<Severity, number> = { error: 0, warning: 0, notice: 0 };
  for (const f of findings) out[f.severity]++;
  return out;
}

/** A row-and-finding collector for one package; keeps the two in step. */
export class PackageFindings {
  readonly rows: CheckRow[] = [];
  readonly findings: AuditFinding[] = [];

  /** @param pkg the package directory every finding is attributed to. */
  constructor(readonly pkg: string) {}

  /** Records a passed check. */
  pass(kind: string, evidence: string, check: string, detail = ''): void {
    this.rows.push({ evidence, kind, check, result: 'pass', detail });
  }

  /** Records a check that was not applicable or not run. */
  skip(kind: string, evidence: string, check: string, detail: string): void {
    this.rows.push({ evidence, kind, check, result: 'skip', detail });
  }

  /**
   * Records a failed check and its finding. The row's result is `fail` for errors, `warn` for
   * warnings, `skip` for notices (a notice never fails a run, and is never a pass).
   */
  fail(
    kind: string,
    evidence: string,
    check: string,
    finding: { code: AuditCodeValue; severity?: Severity; message: string; file?: string; line?: number; title?: string },
  ): void {
    const severity = finding.severity ?? 'error';
    this.rows.push({ evidence, kind, check, result: severity === 'error' ? 'fail' : severity === 'warning' ? 'warn' : 'skip', detail: finding.message });
    const f: AuditFinding = { code: finding.code, severity, message: finding.message, package: this.pkg };
    if (finding.file !== undefined) f.file = finding.file;
    if (finding.line !== undefined) f.line = finding.line;
    if (finding.title !== undefined) f.title = finding.title;
    this.findings.push(f);
  }
}
