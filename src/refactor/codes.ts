/**
 * Fixed identities and stable codes of the refactor-plan protocol (SEMANTIC_REFACTOR_PLAN_v0.1.md).
 * Constants only: the planner (`plan.ts`) and the independent verifier (`verify.ts`) both name
 * these strings, but no decision is shared through this file.
 */

/** `:profile` of the refactor request and report (SEMANTIC_REFACTOR_PLAN_v0.1.md "Purpose"). */
export const REFACTOR_PROFILE = 'genesis/patch-authority-v0.1';
/** `:kind` of the closed request ("Closed Request"). */
export const REFACTOR_REQUEST_KIND = 'genesis/refactor-plan-request-v0.1';
/** `:kind` of the closed report ("Closed Report"). */
export const REFACTOR_REPORT_KIND = 'genesis/refactor-plan-v0.1';

/** The three refactor kinds of v0.1. Any other `:refactor-kind` string is a `refactor/kind-invalid` conflict. */
export const REFACTOR_KINDS = ['rename', 'move', 'extract'] as const;
/** One of {@link REFACTOR_KINDS}. */
export type RefactorKind = (typeof REFACTOR_KINDS)[number];

/**
 * The closed allowlist of planner conflict codes ("Closed Report"), in the order the planner
 * checks them (see `plan.ts`). A conflict is a planning outcome carried in a report, not an error.
 */
export const ConflictCode = {
  /** `:refactor-kind` is not `rename`, `move` or `extract`. */
  kindInvalid: 'refactor/kind-invalid',
  /** `:from-symbol` is malformed (see `plan.ts` `symbolProblem`). */
  sourceSymbolInvalid: 'refactor/source-symbol-invalid',
  /** `:to-symbol` is malformed. */
  destinationSymbolInvalid: 'refactor/destination-symbol-invalid',
  /** `:from-symbol` equals `:to-symbol`. */
  noOp: 'refactor/no-op',
  /** No module has a top-level `(def <from> …)`. */
  sourceSymbolMissing: 'refactor/source-symbol-missing',
  /** More than one top-level `(def <from> …)`; one conflict per definition after the first. */
  sourceSymbolAmbiguous: 'refactor/source-symbol-ambiguous',
  /** A top-level `(def <to> …)` exists; one conflict per such definition. */
  destinationSymbolExists: 'refactor/destination-symbol-exists',
  /** move/extract with an empty `:target-module-path`. */
  targetModuleRequired: 'refactor/target-module-required',
  /** move/extract with a target that is not a portable package-relative path. */
  targetModuleInvalid: 'refactor/target-module-invalid',
  /** move/extract with a target that is already a module of the request. */
  targetModuleExists: 'refactor/target-module-exists',
  /** The moved definition references a definition of the source module or a later module. */
  targetOrderDependency: 'refactor/target-order-dependency',
} as const;
/** One of the eleven conflict codes. */
export type ConflictCodeValue = (typeof ConflictCode)[keyof typeof ConflictCode];

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
  /** The refactor request named by a report could not be found (exit 70 when the store cannot be read, else 10). */
  requestNotFound: 'refactor/request-not-found',
  /** The edit-plan export could not map every rewritten symbol to an exact source range (exit 10). */
  editPlanUnmappable: 'refactor/edit-plan-unmappable',
} as const;
