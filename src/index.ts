/**
 * The gcpatch library: the one entry point of the package (`import { … } from 'gcpatch'`), the
 * operations the `gcpatch` CLI, the merge driver and the GitHub Action are built from. Every name
 * is listed here explicitly, grouped by what a caller does with it (the model: isomorphic-git's
 * `src/index.js`); each function's own docstring gives its shapes, units, error codes and the spec
 * section it implements. Nothing else is public: `package.json` `exports` refuses deep imports
 * (`gcpatch/dist/…` fails with `ERR_PACKAGE_PATH_NOT_EXPORTED`). docs/library.md shows one runnable
 * example per main use (test/e2e/packed-package.test.ts runs them against the packed package).
 *
 * Errors: every failure is a {@link GcError} with a stable `code` and an `exitCode` (0 ok, 1
 * conflicts, 10 invalid input, 30 obligations failed, 50 verification failed, 70 I/O).
 */

// Errors and exit codes (src/util/).
export { ExitCode, GcError, isGcError, ioError, type GcCode, type GcErrorLocation } from './util/errors.js';
export { codeMeaning } from './util/code-meanings.js';

// CoreForm values (docs/reference/coreform.md §1.1): constructors, accessors, equality and order.
export {
  FALSE,
  NIL,
  TRUE,
  bool,
  bytes,
  compareTerms,
  int,
  isAtom,
  kw,
  list,
  listFrom,
  listItems,
  map,
  mapGet,
  mapGetKw,
  pair,
  str,
  sym,
  termsEqual,
  vec,
  type Term,
  type TermKind,
  type MapTerm,
  type VecTerm,
  type SymTerm,
  type StrTerm,
  type IntTerm,
} from './coreform/term.js';
// Read, canonicalize, print and hash CoreForm (docs/reference/coreform.md, docs/reference/hashing.md).
export { lineColumn, parseModule, readModule, readModuleSpans, readTerm, type ReadModuleResult, type SpannedModule } from './coreform/read.js';
export { scanModule } from './coreform/scan.js';
export { canonicalizeForm, canonicalizeModule, canonicalizeSource, isCanonicalForm } from './coreform/canon.js';
export { printModule, printTerm } from './coreform/print.js';
export { hashModule, hashTerm, semanticNodeId, storeAddress, termAddress } from './coreform/hash.js';
export { defName, formsEqual } from './coreform/forms.js';
export { termToJson } from './coreform/json.js';
export { decodeClosed } from './coreform/closed.js';
export { compareUtf8, fromHex, toHex, utf8 } from './util/bytes.js';

// Packages on disk: package.toml, pins, workspaces (docs/reference/package-toml.md).
export { parseManifest, type Manifest, type ManifestModule, type ManifestDependency } from './workspace/manifest.js';
export { parseManifestTable, renderManifest } from './workspace/manifest-write.js';
export { loadPackage, pinFindings, pinsVerified, resolveManifestPath, type LoadedPackage, type LoadedModule, type PinFinding } from './workspace/package.js';
export {
  EMPTY_WORKSPACE,
  admitWorkspace,
  loadWorkspace,
  makeWorkspace,
  workspaceFromPackage,
  workspaceFromSources,
  workspaceHash,
  workspaceTerm,
  type Workspace,
  type WorkspaceModule,
  type ModuleSource,
} from './workspace/workspace.js';
export { assertPortablePath, modulePathOnDisk, portablePathProblem } from './workspace/path.js';

// Semantic patches: the pure protocols (docs/reference/patch-protocols.md).
export { normalizePatch, normalizeReport, normalizeRequest } from './patch/protocol/normalize.js';
export { verifyNormalizeReport } from './patch/protocol/normalize-verify.js';
export { nodeIndexReport, nodeIndexRequest, resolveNodeId } from './patch/protocol/node-index.js';
export { preflightReport, preflightRequest } from './patch/protocol/preflight.js';
export { verifyPreflightReport } from './patch/protocol/preflight-verify.js';
export { packageStateFromSources, type PackageState } from './patch/protocol/state.js';
export { applyOpsInMemory } from './patch/ops/apply-ops.js';
export { packState, type PackResult } from './patch/apply/pack.js';
// Semantic patches on disk: apply, accept, pack (docs/patches.md).
export { acceptPackage, applyPatch, readPatchFile, type ApplyOptions, type ApplyResult } from './patch/apply/apply.js';
export { packOnDisk } from './patch/apply/host.js';
export { runGenesisTest } from './patch/acceptance/genesis-test.js';
export { applyReport, applyReportRequest } from './patch/apply/apply-report.js';
export { decodeApplyReport, verifyApplyReport, verifyStoredApplyReport } from './patch/apply/apply-report-verify.js';

// The evidence store and the package audit (docs/reference/evidence-store.md, docs/audit.md).
export { DEFAULT_STORE_LIMITS, EvidenceStore, type StoreLimits, type StoreEntry, type StoreVerifyResult } from './store/store.js';
export { acceptanceBinding, auditPackage, type AuditResult as PackageAuditResult } from './package-audit/audit.js';

// Workspace diff and merge (docs/diff-merge.md).
export { diffReport, diffWorkspaces, type DiffOptions } from './diff/diff.js';
export { verifyDiffReport } from './diff/verify.js';
export { mergeReport, mergeWorkspaces, type MergeOptions } from './merge/rules.js';
export { verifyMergeReport } from './merge/verify.js';

// Merging three texts of a module, form by form (docs/driver.md).
export { TEXT_UNSAFE, mergeModuleText, type TextConflict, type TextConflictCode, type TextMergeOptions, type TextMergeResult } from './textmerge/module.js';

// Refactors: request, plan, verify, apply, edit-plan export (docs/refactor.md).
export {
  buildRefactorRequest,
  decodeRefactorRequest,
  loadRefactorRequest,
  refactorRequestFromPackage,
  refactorRequestFromSources,
  refactorRequestTerm,
  termIdentity,
  type RefactorParams,
  type RefactorRequest,
} from './refactor/request.js';
export { planRefactor, reportAddress, type RefactorPlan, type RefactorConflict } from './refactor/plan.js';
export { verifyRefactorReport, type VerifiedRefactorReport } from './refactor/verify.js';
export { applyRefactorPlan, type ApplyPlanOptions, type ApplyPlanResult } from './refactor/apply-plan.js';
export { refactorEditPlan } from './refactor/edit-plan-export.js';
export { loadRefactorAtRevision, loadRefactorFromDisk, type LoadedRefactorPackage } from './refactor/load.js';
export { findRefactorEvidence, findRefactorRequest, storeRefactorEvidence } from './refactor/evidence.js';

// Git: revisions (git's grammar), trees, changed paths and packages at commits (docs/reference/isomorphic-git.md).
export {
  GitCode,
  commitTree,
  entryAtCommit,
  findMergeBases,
  listChangedEntries,
  listChangedFiles,
  mergeBase,
  openRepository,
  readFileAtCommit,
  readTreeEntries,
  resolveRevision,
  type ChangedEntry,
  type ChangedFile,
  type GitRepository,
  type TreeEntry,
} from './git/repository.js';
export { findPackageAtCommit, listPackagesAtCommit, loadWorkspaceAtCommit, normalizeRepoPath } from './git/workspace.js';
export { workspaceSourceLoader, type WorkspaceSource } from './git/source.js';
export { repositoryPath } from './git/repo-path.js';

// Pull-request evidence: verify a range of commits (docs/action.md, docs/security.md).
export { auditPullRequest, MISSING_HISTORY_HINT, type AuditOptions as PullRequestAuditOptions } from './verify-pr/verify-pr.js';
export type { AuditFinding as PullRequestFinding, AuditReport as PullRequestAuditReport, FailOn, Severity } from './verify-pr/report/findings.js';

// Edit plans (weavatrix.edit-plan.v1, docs/edit-plans.md), as one namespace.
export * as editplan from './editplan/index.js';
