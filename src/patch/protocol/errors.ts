/** The patch layer's errors (GenesisCode `docs/spec/PATCH_SCHEMA.md`; docs/reference/patch-protocols.md §3): code names, a builder, closed-map codes re-coded. */
import type { StaticCode } from '../../util/codes.js';
import { GcError, ExitCode, isGcError, type GcCode } from '../../util/errors.js';

/**
 * The patch layer's names for its codes; what each code means and its exit code are in the
 * registry, `src/util/codes.ts`. Messages may change; these strings may not.
 */
export const PatchCode = {
  unknownOp: 'patch/unknown-op',
  unknownField: 'patch/unknown-field',
  missingField: 'patch/missing-field',
  wrongType: 'patch/wrong-type',
  wrongValue: 'patch/wrong-value',
  unsupportedVersion: 'patch/unsupported-version',
  emptyIdentifier: 'patch/empty-identifier',
  nonPortablePath: 'patch/non-portable-path',
  invalidPath: 'patch/invalid-path',
  formIndexOutOfRange: 'patch/form-index-out-of-range',
  vecIndexOutOfRange: 'patch/vec-index-out-of-range',
  mapKeyMissing: 'patch/map-key-missing',
  pathStepMismatch: 'patch/path-step-mismatch',
  unknownNodeId: 'patch/unknown-node-id',
  ambiguousNodeId: 'patch/ambiguous-node-id',
  pathStateConflict: 'patch/path-state-conflict',
  pathCollision: 'patch/path-collision',
  symlinkPath: 'patch/symlink-path',
  moduleMissing: 'patch/module-missing',
  moduleExists: 'patch/module-exists',
  manifestEntry: 'patch/manifest-entry',
  renameNoSites: 'patch/rename-no-sites',
  splitSymbolMissing: 'patch/split-symbol-missing',
  contractShape: 'patch/contract-shape',
  paramCapture: 'patch/param-capture',
  noChange: 'patch/no-change',
  metaMissing: 'patch/meta-missing',
  manifestValue: 'patch/manifest-value',
  canonicalize: 'patch/canonicalize',
  reportMismatch: 'patch/report-mismatch',
  rollbackFailed: 'patch/rollback-failed',
  obligationsFailed: 'patch/obligations-failed',
  reservedPath: 'patch/reserved-path',
  symlinkTarget: 'patch/symlink-target',
  packageLocked: 'patch/package-locked',
  recoveryConflict: 'patch/recovery-conflict',
  journalInvalid: 'patch/journal-invalid',
} as const satisfies Record<string, StaticCode>;

/** Builds a patch-layer `GcError` (exit 10 unless `exitCode` is given). */
export function patchError(code: GcCode, message: string, options: { at?: string; exitCode?: ExitCode; details?: Record<string, unknown> } = {}): GcError {
  return new GcError(code, message, {
    exitCode: options.exitCode ?? ExitCode.invalidInput,
    ...(options.at !== undefined ? { location: { at: options.at } } : {}),
    ...(options.details !== undefined ? { details: options.details } : {}),
  });
}

const CLOSED_TO_PATCH: Partial<Record<GcCode, GcCode>> = {
  'core/closed/not-a-map': PatchCode.wrongType,
  'core/closed/missing-key': PatchCode.missingField,
  'core/closed/unknown-key': PatchCode.unknownField,
  'core/closed/wrong-type': PatchCode.wrongType,
  'core/closed/wrong-value': PatchCode.wrongValue,
};

/**
 * Runs `fn`, re-coding closed-map codec errors (`core/closed/*`) as the matching `patch/*` code so
 * that a patch's schema errors carry patch codes. Other errors pass through unchanged.
 */
export function withPatchCodes<T>(fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    if (isGcError(error)) {
      const code = CLOSED_TO_PATCH[error.code];
      if (code !== undefined) {
        throw new GcError(code, error.message, { exitCode: error.exitCode, location: error.location });
      }
    }
    throw error;
  }
}
