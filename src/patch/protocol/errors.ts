/**
 * Stable error codes of the patch layer (PATCH_SCHEMA.md; GENESIS_FACTS.md §3). Every code is
 * thrown as a `GcError`; the exit code is 10 (invalid input) unless noted.
 */
import { GcError, ExitCode, isGcError } from '../../util/errors.js';

/** Error codes thrown by `src/patch/`. Messages may change; these strings may not. */
export const PatchCode = {
  /** `:op` names no known operation. */
  unknownOp: 'patch/unknown-op',
  /** A patch or op map has a key its closed schema does not list. */
  unknownField: 'patch/unknown-field',
  /** A patch or op map lacks a required key. */
  missingField: 'patch/missing-field',
  /** A field has the wrong CoreForm kind (or the patch is not a map). */
  wrongType: 'patch/wrong-type',
  /** A fixed field has the wrong value. */
  wrongValue: 'patch/wrong-value',
  /** `:version` is an int other than 1. */
  unsupportedVersion: 'patch/unsupported-version',
  /** A required identifier (symbol-or-string) is empty. */
  emptyIdentifier: 'patch/empty-identifier',
  /** A module path is not portable (empty, non-NFC, `..`, drive prefix, backslash, …). */
  nonPortablePath: 'patch/non-portable-path',
  /** A `:path` vector is malformed (empty, bad step tag, `[:form i]` not first, bad index). */
  invalidPath: 'patch/invalid-path',
  /** `[:form i]` with i ≥ the module's form count. */
  formIndexOutOfRange: 'patch/form-index-out-of-range',
  /** `[:vec i]` with i ≥ the vector's length. */
  vecIndexOutOfRange: 'patch/vec-index-out-of-range',
  /** `[:map k]` where the map has no key k. */
  mapKeyMissing: 'patch/map-key-missing',
  /** A step does not fit the node it descends into (`[:pair-car]` on a non-pair, …). */
  pathStepMismatch: 'patch/path-step-mismatch',
  /** `:replace-node-id` names no node of the module. */
  unknownNodeId: 'patch/unknown-node-id',
  /** `:replace-node-id` matches more than one node. */
  ambiguousNodeId: 'patch/ambiguous-node-id',
  /** Preflight: an op's path is not in the state it requires. */
  pathStateConflict: 'patch/path-state-conflict',
  /** A path component on disk is a symbolic link. */
  symlinkPath: 'patch/symlink-path',
  /** An op targets a module the in-memory state does not hold. */
  moduleMissing: 'patch/module-missing',
  /** An op would create a module that already exists. */
  moduleExists: 'patch/module-exists',
  /** The manifest lacks (or already has) a module entry the op needs. */
  manifestEntry: 'patch/manifest-entry',
  /** `:rename-symbol` found no site to rewrite. */
  renameNoSites: 'patch/rename-no-sites',
  /** `:split-module` found no `(def sym …)` for a listed symbol. */
  splitSymbolMissing: 'patch/split-symbol-missing',
  /** `:migrate-contract-signature` found no `(def contract (fn (p …) …))` of the expected shape. */
  contractShape: 'patch/contract-shape',
  /** `:migrate-contract-signature` would capture: `:to-param` is already bound or referenced in scope. */
  paramCapture: 'patch/param-capture',
  /** `:rewrite-imports`/`:rewrite-exports` left the module unchanged (the reference rejects no-op rewrites). */
  noChange: 'patch/no-change',
  /** `:rewrite-imports`/`:rewrite-exports` found no `::meta` map to edit. */
  metaMissing: 'patch/meta-missing',
  /** `:update-manifest` sets a value that cannot be written as TOML. */
  manifestValue: 'patch/manifest-value',
  /** The result of an op does not canonicalize. */
  canonicalize: 'patch/canonicalize',
  /** A producer report failed its independent verification (exit 50). */
  reportMismatch: 'patch/report-mismatch',
  /** Rollback after a failed apply could not restore the package (exit 70). */
  rollbackFailed: 'patch/rollback-failed',
  /** Acceptance was `:ok false` (exit 30). */
  obligationsFailed: 'patch/obligations-failed',
  /** A patch path names `.git`, `.gcpatch` or `.genesis` (any case, alias or 8.3 short name): refused at the host boundary. */
  reservedPath: 'patch/reserved-path',
  /** A write target (`package.toml`, `.genesis/last_acceptance`) is a symbolic link; gcpatch never replaces links. */
  symlinkTarget: 'patch/symlink-target',
  /** Another live gcpatch process holds the package lock (exit 70). */
  packageLocked: 'patch/package-locked',
  /** Recovery found a file matching neither its recorded before nor after bytes; nothing was changed (exit 50). */
  recoveryConflict: 'patch/recovery-conflict',
  /** The apply journal is damaged (bad JSON, checksum, entries) (exit 70). */
  journalInvalid: 'patch/journal-invalid',
  /** A fault injected by a test hook. */
  injectedFault: 'patch/injected-fault',
} as const;

/** Builds a patch-layer `GcError` (exit 10 unless `exitCode` is given). */
export function patchError(
  code: string,
  message: string,
  options: { at?: string; exitCode?: ExitCode; details?: Record<string, unknown> } = {},
): GcError {
  return new GcError(code, message, {
    exitCode: options.exitCode ?? ExitCode.invalidInput,
    ...(options.at !== undefined ? { location: { at: options.at } } : {}),
    ...(options.details !== undefined ? { details: options.details } : {}),
  });
}

const CLOSED_TO_PATCH: Record<string, string> = {
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
