/** Budgets of plan validation and per-source application, with the spec's defaults. */

/**
 * Plan-wide budgets checked by `validateEditPlan` (spec "Default budgets"). Every comparison is a
 * strict "greater than": a value equal to the limit passes. Limits are not themselves validated;
 * a zero limit simply makes the matching check fail.
 */
export interface PlanLimits {
  /** Maximum number of file entries (default 500). */
  maxFiles: number;
  /** Maximum edits in one file entry (default 2,000). */
  maxEditsPerFile: number;
  /** Maximum edits over all files (default 1,000,000). */
  maxTotalEdits: number;
  /** Maximum UTF-8 bytes of one path (default 4,096). */
  maxPathBytes: number;
  /** Maximum UTF-8 bytes of all `before` plus all `after` texts (default 64 MiB). */
  maxTotalTextBytes: number;
}

/** Per-source budgets checked by `applyEdits` (one source string at a time). */
export interface ApplyLimits {
  /** Maximum UTF-8 bytes of the source (default 16 MiB). */
  maxSourceBytes: number;
  /** Maximum number of edits for the source (default 2,000). */
  maxEdits: number;
  /** Maximum UTF-8 bytes of the output (default 64 MiB). */
  maxOutputBytes: number;
  /** Maximum UTF-8 bytes of each text preview in `BEFORE_MISMATCH` evidence (default 256). */
  maxPreviewBytes: number;
}

const MiB = 1024 * 1024;

/** The spec's default plan budgets. */
export const DEFAULT_PLAN_LIMITS: Readonly<PlanLimits> = Object.freeze({
  maxFiles: 500,
  maxEditsPerFile: 2_000,
  maxTotalEdits: 1_000_000,
  maxPathBytes: 4_096,
  maxTotalTextBytes: 64 * MiB,
});

/** The default per-source budgets (weavatrix-edit `ApplyLimits` and `DiagnosticLimits`). */
export const DEFAULT_APPLY_LIMITS: Readonly<ApplyLimits> = Object.freeze({
  maxSourceBytes: 16 * MiB,
  maxEdits: 2_000,
  maxOutputBytes: 64 * MiB,
  maxPreviewBytes: 256,
});

/** Hard ceiling on the UTF-8 bytes of `operation` (not configurable; over it → `PLAN_TOO_LARGE`). */
export const MAX_PLAN_OPERATION_BYTES = 4_096;

/** Fills the members missing from `partial` with {@link DEFAULT_PLAN_LIMITS}. */
export function planLimits(partial: Partial<PlanLimits> = {}): PlanLimits {
  return { ...DEFAULT_PLAN_LIMITS, ...partial };
}

/** Fills the members missing from `partial` with {@link DEFAULT_APPLY_LIMITS}. */
export function applyLimits(partial: Partial<ApplyLimits> = {}): ApplyLimits {
  return { ...DEFAULT_APPLY_LIMITS, ...partial };
}
