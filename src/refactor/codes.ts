/**
 * Fixed identities and stable codes of the refactor-plan protocol (GenesisCode `docs/spec/SEMANTIC_REFACTOR_PLAN_v0.1.md`).
 * Constants only: the planner (`plan.ts`) and the independent verifier (`verify.ts`) both name
 * these strings, but no decision is shared through this file.
 */

/** `:profile` of the refactor request and report (GenesisCode `docs/spec/SEMANTIC_REFACTOR_PLAN_v0.1.md` "Purpose"). */
export const REFACTOR_PROFILE = 'genesis/patch-authority-v0.1';
/** `:kind` of the closed request ("Closed Request"). */
export const REFACTOR_REQUEST_KIND = 'genesis/refactor-plan-request-v0.1';
/** `:kind` of the closed report ("Closed Report"). */
export const REFACTOR_REPORT_KIND = 'genesis/refactor-plan-v0.1';

/** `:provenance :tool` of every safe plan's patch (docs/reference/patch-protocols.md §3.10 "Safe patch header"). */
export const REFACTOR_TOOL = 'genesis semantic-edit refactor-plan';
/** `:intent` of a safe plan's patch is this prefix followed by the refactor kind, e.g. `semantic-refactor/move`. */
export const REFACTOR_INTENT_PREFIX = 'semantic-refactor/';

/** The three refactor kinds of v0.1. Any other `:refactor-kind` string is a `refactor/kind-invalid` conflict. */
export const REFACTOR_KINDS = ['rename', 'move', 'extract'] as const;

/**
 * The closed allowlist of planner conflict codes ("Closed Report"), in the order the planner
 * checks them (docs/reference/patch-protocols.md §3.10; see `plan.ts`). A conflict is a planning outcome carried in
 * a report, not an error. Each code is reported at most once.
 */
export const ConflictCode = {
  /** `:refactor-kind` is not `rename`, `move` or `extract`. */
  kindInvalid: 'refactor/kind-invalid',
  /** `:from-symbol` is the empty string. */
  sourceSymbolInvalid: 'refactor/source-symbol-invalid',
  /** `:to-symbol` is the empty string. */
  destinationSymbolInvalid: 'refactor/destination-symbol-invalid',
  /** `:from-symbol` equals `:to-symbol`. */
  noOp: 'refactor/no-op',
  /** No module has a top-level `(def <from> …)`. */
  sourceSymbolMissing: 'refactor/source-symbol-missing',
  /** More than one top-level `(def <from> …)`. */
  sourceSymbolAmbiguous: 'refactor/source-symbol-ambiguous',
  /** A top-level `(def <to> …)` exists (also when `to` = `from`). */
  destinationSymbolExists: 'refactor/destination-symbol-exists',
  /** move/extract with an empty `:target-module-path`. */
  targetModuleRequired: 'refactor/target-module-required',
  /** move/extract with a target that is not a portable package-relative path. */
  targetModuleInvalid: 'refactor/target-module-invalid',
  /** move/extract with a target that is already a module of the request. */
  targetModuleExists: 'refactor/target-module-exists',
  /**
   * The moved definition's right-hand side names a definition of the source module or a later
   * module (itself included). Checked only when no other conflict applies; then the only conflict.
   */
  targetOrderDependency: 'refactor/target-order-dependency',
} as const;
/** One of the eleven conflict codes. */
export type ConflictCodeValue = (typeof ConflictCode)[keyof typeof ConflictCode];

/**
 * The one fixed `:message` of each conflict code, exactly as the reference producer writes it
 * (docs/reference/patch-protocols.md §3.10). Human output may say more; the report term says this.
 */
export const CONFLICT_MESSAGES: Readonly<Record<ConflictCodeValue, string>> = {
  'refactor/kind-invalid': 'refactor kind must be rename, move, or extract',
  'refactor/source-symbol-invalid': 'source symbol must be a non-empty string',
  'refactor/destination-symbol-invalid': 'destination symbol must be a non-empty string',
  'refactor/no-op': 'source and destination symbols must differ',
  'refactor/source-symbol-missing': 'source symbol has no workspace definition',
  'refactor/source-symbol-ambiguous': 'source symbol has multiple workspace definitions',
  'refactor/destination-symbol-exists': 'destination symbol already has a workspace definition',
  'refactor/target-module-required': 'move and extract require a target module path',
  'refactor/target-module-invalid': 'target module path must be portable and package-relative',
  'refactor/target-module-exists': 'target module path already exists',
  'refactor/target-order-dependency': 'moved definition depends on a definition unavailable before the source module',
};

/** The eleven conflict codes in check order (the allowlist the verifier enforces). */
export const CONFLICT_CODES: readonly ConflictCodeValue[] = Object.values(ConflictCode);

/**
 * Error codes thrown (as `GcError`) by `src/refactor/`. Messages may change; these strings may not.
 * Request admission errors exit 10; verification errors exit 50.
 */
export const RefactorErrorCode = {
  /** A request module record is malformed, non-portable, duplicated or has non-canonical forms (exit 10). */
  requestInvalid: 'refactor/request-invalid',
  /** A report failed independent host verification (exit 50); `details.check` names the check. */
  verificationFailed: 'refactor/verification-failed',
  /** apply-plan was given a conflicted report (exit 10). */
  planConflicted: 'refactor/plan-conflicted',
  /** The package on disk is not the package the plan was made for (exit 50). */
  stalePlan: 'refactor/stale-plan',
  /**
   * A report written by gcpatch before reports matched the reference (its safe patch names the
   * request in `:provenance`, or its conflicts carry interpolated messages): it cannot verify under
   * the current rules. Re-plan with `gcpatch refactor plan` (exit 50).
   */
  reportOutdated: 'refactor/report-outdated',
  /** The refactor request of a report (found by `:request-h`) is not in the store (exit 10). */
  requestNotFound: 'refactor/request-not-found',
  /** The edit-plan export could not map every rewritten symbol to an exact source range (exit 10). */
  editPlanUnmappable: 'refactor/edit-plan-unmappable',
} as const;
