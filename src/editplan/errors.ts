/** Edit-plan error codes, their exit codes, and the wire (JSON) form of an edit-plan error. */
import { ExitCode, GcError, type GcErrorLocation } from '../util/errors.js';

/** The twelve stable categories of the spec's "Error contract". */
export const EDIT_ERROR_CODES = [
  'SCHEMA_MISMATCH',
  'INVALID_PLAN',
  'INVALID_FILE',
  'INVALID_EDIT',
  'INVALID_PATH',
  'UNPROVEN_EDIT',
  'PLAN_TOO_LARGE',
  'POSITION_OUT_OF_RANGE',
  'BEFORE_MISMATCH',
  'OVERLAPPING_EDITS',
  'OUTPUT_TOO_LARGE',
  'VALIDATION_REJECTED',
] as const;
/** One of the twelve edit-plan codes. */
export type EditErrorCode = (typeof EDIT_ERROR_CODES)[number];

/**
 * Codes added by the filesystem transaction (`transaction.ts`); not part of the pure edit contract.
 * - `SOURCE_HASH_MISMATCH` (50): the file's current raw bytes do not hash to the plan's `sha256`.
 * - `SOURCE_MISSING` (50): a planned file (or one of its parent directories) does not exist.
 * - `SOURCE_NOT_UTF8` (10): the source is not valid UTF-8 (or, for the pure API, holds a lone surrogate).
 * - `PATH_ESCAPES_ROOT` (10): a parent directory is a symbolic link leading outside the root.
 * - `TARGET_NOT_REGULAR` (10): the target is a symbolic link, directory or other non-regular file.
 * - `PATH_ALIAS` (10): two plan paths resolve to the same file (same device and inode).
 * - `RECOVERY_REQUIRED` (70): an interrupted transaction's journal exists; run `recover` first.
 * - `RECOVERY_CONFLICT` (50): during recovery a target matches neither its recorded before nor after hash.
 * - `JOURNAL_INVALID` (70): the journal cannot be read, fails its checksum or names unexpected paths.
 */
export const TRANSACTION_ERROR_CODES = [
  'SOURCE_HASH_MISMATCH',
  'SOURCE_MISSING',
  'SOURCE_NOT_UTF8',
  'PATH_ESCAPES_ROOT',
  'TARGET_NOT_REGULAR',
  'PATH_ALIAS',
  'RECOVERY_REQUIRED',
  'RECOVERY_CONFLICT',
  'JOURNAL_INVALID',
] as const;
/** One of the filesystem transaction's codes. */
export type TransactionErrorCode = (typeof TRANSACTION_ERROR_CODES)[number];

const VERIFICATION_CODES: ReadonlySet<string> = new Set(['BEFORE_MISMATCH', 'SOURCE_HASH_MISMATCH', 'SOURCE_MISSING', 'RECOVERY_CONFLICT']);
const IO_CODES: ReadonlySet<string> = new Set(['RECOVERY_REQUIRED', 'JOURNAL_INVALID']);

/**
 * The process exit code for an edit-plan code: 50 (verification failed) for hash and `before`
 * mismatches, 70 (I/O) for journal problems, 10 (invalid input) for everything else.
 */
export function exitCodeFor(code: string): ExitCode {
  if (VERIFICATION_CODES.has(code)) return ExitCode.verificationFailed;
  if (IO_CODES.has(code)) return ExitCode.io;
  return ExitCode.invalidInput;
}

/** Indices identifying the rejected entries (0-based array positions in `files` and `edits`). */
export interface EditErrorIndices {
  fileIndex?: number;
  editIndex?: number;
  relatedEditIndex?: number;
}

/**
 * Builds a `GcError` for an edit-plan code with the matching exit code.
 * @param code one of {@link EDIT_ERROR_CODES} or {@link TRANSACTION_ERROR_CODES}.
 * @param indices fileIndex / editIndex / relatedEditIndex where applicable.
 * @param extra more location fields (`file`, `offset`…) and structured `details` (e.g. `mismatch`).
 */
export function editError(
  code: EditErrorCode | TransactionErrorCode,
  message: string,
  indices: EditErrorIndices = {},
  extra: { location?: GcErrorLocation; details?: Record<string, unknown>; cause?: unknown } = {},
): GcError {
  const location: GcErrorLocation = { ...extra.location };
  if (indices.fileIndex !== undefined) location.fileIndex = indices.fileIndex;
  if (indices.editIndex !== undefined) location.editIndex = indices.editIndex;
  if (indices.relatedEditIndex !== undefined) location.relatedEditIndex = indices.relatedEditIndex;
  return new GcError(code, message, {
    exitCode: exitCodeFor(code),
    location,
    details: extra.details,
    cause: extra.cause,
  });
}

/** Returns a copy of `error` with `fileIndex` set (used when per-source errors are lifted to a plan). */
export function withFileIndex(error: GcError, fileIndex: number): GcError {
  return error.withLocation({ fileIndex });
}

/** The wire form of an edit-plan error (spec "Error contract"; camelCase, absent members omitted). */
export interface EditErrorJson {
  code: string;
  message: string;
  fileIndex?: number;
  editIndex?: number;
  relatedEditIndex?: number;
  /** `BEFORE_MISMATCH` evidence (UTF-8 byte range, bounded previews). */
  mismatch?: unknown;
  exitCode: number;
  /** Where else: `file` (the plan path of the failing entry, or the plan file for malformed JSON),
   * `offset`/`line`/`column` for malformed JSON. Omitted when empty. */
  location?: Record<string, unknown>;
  details?: Record<string, unknown>;
}

/**
 * Renders any `GcError` as `{code, message, fileIndex?, editIndex?, relatedEditIndex?, mismatch?,
 * exitCode, location?, details?}` — the `error` member of the CLI's `--json` failure output.
 */
export function editErrorToJson(error: GcError): EditErrorJson {
  const out: EditErrorJson = { code: error.code, message: error.message, exitCode: error.exitCode };
  const { fileIndex, editIndex, relatedEditIndex, ...rest } = error.location;
  if (fileIndex !== undefined) out.fileIndex = fileIndex;
  if (editIndex !== undefined) out.editIndex = editIndex;
  if (relatedEditIndex !== undefined) out.relatedEditIndex = relatedEditIndex;
  if (error.details !== undefined) {
    const { mismatch, ...others } = error.details;
    if (mismatch !== undefined) out.mismatch = mismatch;
    if (Object.keys(others).length > 0) out.details = others;
  }
  if (Object.keys(rest).length > 0) out.location = rest;
  return out;
}
