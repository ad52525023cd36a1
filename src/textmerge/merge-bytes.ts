/**
 * The merge of one file's bytes, without the driver's I/O (`driver.ts` reads %O %A %B and writes
 * %A): trivial merges, input checks, the structural merge under a time budget — line endings and
 * BOM normalized and restored around the `.gc` module merge (`module.ts`) or the `package.toml`
 * merge (`manifest.ts`) — and the line-merge fallback with the checks its clean result needs.
 */
import { isUtf8 } from 'node:buffer';
import { isGcError } from '../util/errors.js';
import { hasConflictMarkers, isBinary } from './line-based.js';
import { mergeManifestText } from './manifest.js';
import { modifiedAndRemovedEntry, repeatedManifestEntry } from './manifest-entries.js';
import { BOM, chooseOutputStyle, hasBom, indexOfByte, normalizeSide, restorePiece, type NormalizedSide, type OutputStyle } from './newline.js';
import { TEXT_UNSAFE, mergeModuleText, type Side, type TextConflict } from './module.js';
import { TimeoutError, deadlineIn } from './common/deadline.js';
import { concatBytes, conflictBlock, sameBytes, type MarkerOptions } from './common/diff3.js';
import { sideLocation } from './fallback-note.js';

/** Which of the two drivers runs: `.gc` modules, or `package.toml` (`--manifest`). */
export type DriverMode = 'gc' | 'manifest';

/** Default time budget of the structural merge, in ms (`GCPATCH_DRIVER_TIMEOUT_MS`). */
export const DEFAULT_TIMEOUT_MS = 5000;

/**
 * Largest side (bytes) the structural merge attempts. The budget is checked between and inside
 * the merge's stages, but one read of a side is not interruptible, so very large inputs go
 * straight to the line merge.
 */
export const MAX_STRUCTURAL_BYTES = 8 * 1024 * 1024;

/** How the driver produced its result. */
export type DriverMethod = 'trivial' | 'structural' | 'line' | 'kept-ours';

/** What {@link mergeFileBytes} and `runDriver` (`driver.ts`) decided. */
export interface DriverOutcome {
  /** 0 clean, 1 conflicts (or a fallback that could not merge). Never anything else. */
  exitCode: 0 | 1;
  method: DriverMethod;
  /** The bytes to write into %A, or undefined to leave %A (ours) as it is. */
  result: Uint8Array | undefined;
  /** Why the structural merge was not used (fallbacks only). */
  reason: string | undefined;
  /** Conflicts of the structural merge (empty for other methods). */
  conflicts: TextConflict[];
  /** Lines for standard error. */
  messages: string[];
}

/** Options of {@link mergeFileBytes}. */
export interface MergeBytesOptions {
  mode: DriverMode;
  markers: MarkerOptions;
  /** Structural merge budget in ms (default {@link DEFAULT_TIMEOUT_MS}). */
  timeoutMs?: number;
  /** False disables the structural merge (`GCPATCH_DRIVER=0`). */
  structural?: boolean;
  /** Display path for messages. */
  path?: string;
}

/** Result of the structural stage on raw bytes. */
export interface StructuralBytesResult {
  result: Uint8Array;
  conflicts: TextConflict[];
  messages: string[];
}

/**
 * The structural merge of one file on raw bytes: normalizes line endings and BOM (newline.ts),
 * merges (`.gc`: module.ts; manifest: manifest.ts), restores the chosen style and checks that
 * the restored bytes normalize back to exactly the merged text.
 * @throws GcError (parse, canonicalization, `merge/text/unsafe`, `merge/manifest/*`), TimeoutError.
 */
export function mergeStructuralBytes(
  base: Uint8Array,
  ours: Uint8Array,
  theirs: Uint8Array,
  mode: DriverMode,
  markers: MarkerOptions,
  deadline: number,
): StructuralBytesResult {
  const sides: Record<Side, NormalizedSide> = {
    base: normalizeSide(base),
    ours: normalizeSide(ours),
    theirs: normalizeSide(theirs),
  };
  const style: OutputStyle = chooseOutputStyle(sides.base, sides.ours, sides.theirs);
  let pieces: { bytes: Uint8Array; from: { side: Side; start: number; end: number } | undefined }[];
  let conflicts: TextConflict[] = [];
  const messages: string[] = [];
  let normalized: Uint8Array;
  if (mode === 'gc') {
    const r = mergeModuleText(sides.base.text, sides.ours.text, sides.theirs.text, { markers, deadline, prefer: style.side });
    pieces = r.pieces;
    conflicts = r.conflicts;
    for (const m of r.messages) messages.push(m);
    normalized = r.text;
  } else {
    const r = mergeManifestText(sides.base.text, sides.ours.text, sides.theirs.text, { deadline });
    pieces = [{ bytes: r.text, from: undefined }];
    normalized = r.text;
    for (const m of r.messages) messages.push(m);
  }
  const out: Uint8Array[] = style.bom ? [BOM] : [];
  let identity = true;
  for (const p of pieces) {
    const from = p.from ? { side: sides[p.from.side], isStyleSide: p.from.side === style.side, start: p.from.start, end: p.from.end } : undefined;
    const restored = restorePiece(p.bytes, style, from);
    if (restored !== p.bytes) identity = false;
    out.push(restored);
  }
  // Every piece restored as itself (LF output, the common case): the result is the merged text
  // (after the BOM, if any), and it normalizes back to it when it holds no CR and no second BOM.
  if (identity && indexOfByte(normalized, 0x0d) === -1 && (style.bom || !hasBom(normalized))) {
    return { result: style.bom ? concatBytes([BOM, normalized]) : normalized, conflicts, messages };
  }
  const result = concatBytes(out);
  const check = normalizeSide(result);
  if (check.bom !== style.bom || !sameBytes(check.text, normalized)) {
    throw new Error('newline restoration changed the merged text');
  }
  return { result, conflicts, messages };
}

/**
 * One conflict as a stderr line (the caller prefixes `gcpatch: <path>:`): the definition, the line
 * of its `<<<<<<<` marker, the code and which side did what, e.g.
 * `conflict in (def ledger/core::total …) at line 12 [form/delete-modify]: theirs deleted it, ours changed it`.
 */
export function describeConflict(c: TextConflict): string {
  const what = c.kind === 'comment' ? 'a comment block' : c.name !== undefined ? `(def ${c.name} …)` : 'a top-level form';
  return `conflict in ${what} at line ${c.line} [${c.code}]: ${c.detail}`;
}

/**
 * Decides the merge of three in-memory versions, without touching the filesystem except through
 * `lineMerge` (the `git merge-file` fallback, given by the caller because it needs files).
 * Order: trivial (two equal versions) → binary (keep ours) → disabled / not UTF-8 / existing
 * markers / larger than {@link MAX_STRUCTURAL_BYTES} → structural under the budget → line merge.
 * @param lineMerge runs `git merge-file` (or any line merge) and reports its outcome.
 */
export function mergeFileBytes(
  base: Uint8Array,
  ours: Uint8Array,
  theirs: Uint8Array,
  options: MergeBytesOptions,
  lineMerge: () => { ok: boolean; text: Uint8Array; conflicts: number; message: string },
): DriverOutcome {
  const where = options.path ?? (options.mode === 'manifest' ? 'package.toml' : 'module');
  // v0.1 rules 1–3 on the whole file: always right, whatever the content.
  if (sameBytes(ours, theirs) || sameBytes(base, theirs)) {
    return { exitCode: 0, method: 'trivial', result: undefined, reason: undefined, conflicts: [], messages: [] };
  }
  if (sameBytes(base, ours)) {
    return { exitCode: 0, method: 'trivial', result: theirs, reason: undefined, conflicts: [], messages: [] };
  }
  if (isBinary(base) || isBinary(ours) || isBinary(theirs)) {
    return {
      exitCode: 1,
      method: 'kept-ours',
      result: undefined,
      reason: 'binary',
      conflicts: [],
      messages: [`gcpatch: ${where}: a side contains NUL bytes (binary); kept ours unmerged, resolve by hand`],
    };
  }
  let reason = structuralRefusal(base, ours, theirs, options);
  let forceConflict = false;
  let refusedWithinBudget = false; // the structural merge read every side and refused (a GcError)
  if (reason === undefined) {
    try {
      const deadline = deadlineIn(options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
      const r = mergeStructuralBytes(base, ours, theirs, options.mode, options.markers, deadline);
      const messages = [...r.messages.map((m) => `gcpatch: ${where}: ${m}`), ...r.conflicts.map((c) => `gcpatch: ${where}: ${describeConflict(c)}`)];
      return {
        exitCode: r.conflicts.length > 0 ? 1 : 0,
        method: 'structural',
        result: r.result,
        reason: undefined,
        conflicts: r.conflicts,
        messages,
      };
    } catch (error) {
      if (error instanceof TimeoutError) reason = `the structural merge exceeded its ${options.timeoutMs ?? DEFAULT_TIMEOUT_MS} ms budget`;
      else if (isGcError(error)) {
        reason = `${error.code}${sideLocation(error, { base, ours, theirs })}: ${error.message}`;
        refusedWithinBudget = true;
        // The structural merge saw a conflict it cannot mark (or failed its own check): a clean
        // line merge would hide it, so the file is reported conflicted whatever git merge-file says.
        forceConflict = error.code === TEXT_UNSAFE;
      } else {
        reason = `internal error: ${error instanceof Error ? error.message : String(error)}`;
        forceConflict = true;
      }
    }
  }
  const outcome = lineFallback(where, reason, lineMerge, forceConflict);
  if (options.mode === 'manifest') return checkManifestLineMerge(outcome, base, ours, theirs, options.markers, where, refusedWithinBudget);
  return outcome;
}

/** Why the structural merge is not attempted on these sides (disabled, not UTF-8, markers, too large), or undefined. */
function structuralRefusal(base: Uint8Array, ours: Uint8Array, theirs: Uint8Array, options: MergeBytesOptions): string | undefined {
  if (options.structural === false) return 'disabled by GCPATCH_DRIVER=0';
  if (!isUtf8(base) || !isUtf8(ours) || !isUtf8(theirs)) return 'a side is not valid UTF-8';
  if (hasConflictMarkers(base) || hasConflictMarkers(ours) || hasConflictMarkers(theirs)) return 'a side already contains conflict markers';
  if (Math.max(base.length, ours.length, theirs.length) > MAX_STRUCTURAL_BYTES) return `a side is larger than ${MAX_STRUCTURAL_BYTES} bytes`;
  return undefined;
}

/**
 * The line merge's outcome for a `package.toml`, the whole file marked as conflicted when a clean
 * line merge lists an entry twice or hides an entry one side removed and the other changed.
 * @param refusedWithinBudget whether the structural merge read every side and refused (a GcError).
 */
function checkManifestLineMerge(
  outcome: DriverOutcome,
  base: Uint8Array,
  ours: Uint8Array,
  theirs: Uint8Array,
  markers: MarkerOptions,
  where: string,
  refusedWithinBudget: boolean,
): DriverOutcome {
  if (outcome.exitCode !== 0 || outcome.result === undefined) return outcome;
  // A clean line merge of two manifests that each added an entry can list it twice (one module
  // path or dependency name in two tables): not a manifest either side wrote. Mark the whole file.
  // Nor can a clean line merge keep both sides of an entry one side removed and the other changed
  // (the structural merge refuses it; git merge-file can align the blocks so that it merges
  // cleanly). Checked when the structural merge read the sides within its budget, so that a side
  // too large for it is not parsed three more times.
  const repeated = repeatedManifestEntry(outcome.result);
  const modifiedRemoved = repeated === undefined && refusedWithinBudget ? modifiedAndRemovedEntry(base, ours, theirs) : undefined;
  const problem =
    repeated !== undefined
      ? `the line merge lists ${repeated} twice; the whole file is marked as conflicted (ours, then theirs): keep one entry, then git add`
      : modifiedRemoved !== undefined
        ? `one side removed ${modifiedRemoved} and the other changed it, which the clean line merge hides; the whole file is marked as conflicted (ours, then theirs): keep or remove the entry, then git add`
        : undefined;
  if (problem === undefined) return outcome;
  return {
    exitCode: 1,
    method: 'line',
    result: conflictBlock(ours, base, theirs, markers),
    reason: outcome.reason,
    conflicts: [],
    messages: [...outcome.messages, `gcpatch: ${where}: ${problem}`],
  };
}

/**
 * Runs the line merge and turns its outcome into a driver outcome: exit 0 only when it is clean and
 * `forceConflict` is false; when it fails, %A keeps ours and the outcome says so (exit 1).
 */
export function lineFallback(
  where: string,
  reason: string,
  lineMerge: () => { ok: boolean; text: Uint8Array; conflicts: number; message: string },
  forceConflict = false,
): DriverOutcome {
  const messages = [`gcpatch: ${where}: structural merge not used (${reason}); falling back to git merge-file`];
  let r: { ok: boolean; text: Uint8Array; conflicts: number; message: string };
  try {
    r = lineMerge();
  } catch (error) {
    r = { ok: false, text: new Uint8Array(0), conflicts: 0, message: error instanceof Error ? error.message : String(error) };
  }
  if (!r.ok) {
    messages.push(`gcpatch: ${where}: git merge-file failed (${r.message}); kept ours unmerged, theirs is NOT included: resolve by hand`);
    return { exitCode: 1, method: 'kept-ours', result: undefined, reason, conflicts: [], messages };
  }
  if (forceConflict && r.conflicts === 0) {
    messages.push(
      `gcpatch: ${where}: the line merge is clean but may hide that conflict (e.g. a duplicated definition); marked as conflicted: review, then git add`,
    );
  }
  return { exitCode: r.conflicts > 0 || forceConflict ? 1 : 0, method: 'line', result: r.text, reason, conflicts: [], messages };
}
