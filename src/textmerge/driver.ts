/**
 * The git merge driver's cascade (docs/driver.md "What happens, in order"; mergiraf's `merge.rs`): trivial merges, input checks,
 * the structural text merge under a time budget with its safety net, and the `git merge-file`
 * fallback. `driver/index.ts` parses the arguments and calls {@link runDriver}.
 *
 * Git runs `node <checkout>/driver/dist/index.js [--manifest] %O %A %B %L %P %S %X %Y` through
 * `sh -c` with the work tree's top as cwd (docs/reference/git-merge-driver.md "Wiring" to "Exit status"). The result goes into
 * %A; the exit code is 0 (clean) or 1 (conflicts or fallback trouble) and never anything else, so a
 * merge is never aborted by the driver and never silently keeps only ours.
 */
import { readFileSync } from 'node:fs';
import { isUtf8 } from 'node:buffer';
import { runGit } from '../git/exec.js';
import { writeFileAtomic } from '../util/atomic.js';
import { isGcError } from '../util/errors.js';
import { gitMergeFile, hasConflictMarkers, isBinary } from './line-based.js';
import { mergeManifestText } from './manifest.js';
import { BOM, chooseOutputStyle, hasBom, indexOfByte, normalizeSide, restorePiece, type NormalizedSide, type OutputStyle } from './newline.js';
import { TEXT_UNSAFE, mergeModuleText, type Side, type TextConflict } from './module.js';
import { TimeoutError, deadlineIn } from './common/deadline.js';
import { concatBytes, conflictBlock, sameBytes, type ConflictStyle, type MarkerOptions } from './common/diff3.js';
import { isTomlTable, parseManifestTable, type TomlValue } from '../workspace/manifest-write.js';
import { tomlEqual } from '../workspace/toml-equal.js';
import { sideLocation } from './fallback-note.js';

/** Which of the two drivers runs: `.gc` modules, or `package.toml` (`--manifest`). */
export type DriverMode = 'gc' | 'manifest';

/** One invocation, as parsed from git's command line by {@link parseDriverArgs}. */
export interface DriverInvocation {
  mode: DriverMode;
  /** %O: the merge base's temporary file. */
  base: string;
  /** %A: ours' temporary file; the result is written here. */
  ours: string;
  /** %B: theirs' temporary file. */
  theirs: string;
  /** %L: conflict marker length (default 7). */
  markerSize: number;
  /** %P: the path the result will be stored at (after renames, the new path), if given. */
  path: string | undefined;
  /** %S %X %Y, or defaults when git (< 2.44) passed them literally. */
  labels: { base: string; ours: string; theirs: string };
}

/** Default labels when git does not expand `%S %X %Y` (git < 2.44). */
export const DEFAULT_LABELS = { base: 'base', ours: 'ours', theirs: 'theirs' } as const;

/** Default time budget of the structural merge, in ms (`GCPATCH_DRIVER_TIMEOUT_MS`). */
export const DEFAULT_TIMEOUT_MS = 5000;

/**
 * Largest side (bytes) the structural merge attempts. The budget is checked between and inside
 * the merge's stages, but one read of a side is not interruptible, so very large inputs go
 * straight to the line merge.
 */
export const MAX_STRUCTURAL_BYTES = 8 * 1024 * 1024;

/**
 * Parses the driver's arguments (after `node script`): `[--manifest] %O %A %B [%L [%P [%S %X %Y]]]`.
 * A missing or invalid %L (≤ 0, not a number) gives 7; a label that is missing, empty or the
 * literal placeholder (`%S`, `%X`, `%Y`) gives the default.
 * @throws Error when fewer than three file arguments are given.
 */
export function parseDriverArgs(argv: readonly string[]): DriverInvocation {
  const args = [...argv];
  let mode: DriverMode = 'gc';
  if (args[0] === '--manifest') {
    mode = 'manifest';
    args.shift();
  }
  if (args.length < 3) {
    throw new Error('usage: index.js [--manifest] %O %A %B %L %P %S %X %Y');
  }
  const size = Number.parseInt(args[3] ?? '', 10);
  const label = (value: string | undefined, placeholder: string, fallback: string): string => (value === undefined || value === placeholder ? fallback : value);
  return {
    mode,
    base: args[0]!,
    ours: args[1]!,
    theirs: args[2]!,
    markerSize: Number.isFinite(size) && size > 0 ? size : 7,
    path: args[4] === undefined || args[4] === '%P' ? undefined : args[4],
    labels: {
      base: label(args[5], '%S', DEFAULT_LABELS.base),
      ours: label(args[6], '%X', DEFAULT_LABELS.ours),
      theirs: label(args[7], '%Y', DEFAULT_LABELS.theirs),
    },
  };
}

/**
 * The repository's conflict style from `git config --get merge.conflictStyle` in `cwd`:
 * `diff3` and `zdiff3` give `diff3`, anything else (or no git) gives `merge`.
 */
export function readConflictStyle(cwd?: string): ConflictStyle {
  const value = runGit(['config', '--get', 'merge.conflictStyle'], { cwd }).stdout.trim().toLowerCase();
  return value === 'diff3' || value === 'zdiff3' ? 'diff3' : 'merge';
}

/** How the driver produced its result. */
export type DriverMethod = 'trivial' | 'structural' | 'line' | 'kept-ours';

/** What {@link mergeFileBytes} and {@link runDriver} decided. */
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
  let reason: string | undefined;
  let forceConflict = false;
  let refusedWithinBudget = false; // the structural merge read every side and refused (a GcError)
  if (options.structural === false) reason = 'disabled by GCPATCH_DRIVER=0';
  else if (!isUtf8(base) || !isUtf8(ours) || !isUtf8(theirs)) {
    reason = 'a side is not valid UTF-8';
  } else if (hasConflictMarkers(base) || hasConflictMarkers(ours) || hasConflictMarkers(theirs)) {
    reason = 'a side already contains conflict markers';
  } else if (Math.max(base.length, ours.length, theirs.length) > MAX_STRUCTURAL_BYTES) {
    reason = `a side is larger than ${MAX_STRUCTURAL_BYTES} bytes`;
  }
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
  if (options.mode === 'manifest' && outcome.exitCode === 0 && outcome.result !== undefined) {
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
    if (problem !== undefined) {
      return {
        exitCode: 1,
        method: 'line',
        result: conflictBlock(ours, base, theirs, options.markers),
        reason,
        conflicts: [],
        messages: [...outcome.messages, `gcpatch: ${where}: ${problem}`],
      };
    }
  }
  return outcome;
}

/** The entry lists of a manifest matched by name: `[[modules]]` by `path`, `[[dependencies]]` by `name`. */
const MANIFEST_ENTRY_LISTS = [
  ['modules', 'path', 'module'],
  ['dependencies', 'name', 'dependency'],
] as const;

/** The entries of `list` in `table` by their `field`; entries without a string name are left out. */
function entriesByName(table: Record<string, unknown>, list: string, field: string): Map<string, TomlValue> {
  const byName = new Map<string, TomlValue>();
  const entries = table[list];
  if (!Array.isArray(entries)) return byName;
  for (const entry of entries) {
    if (isTomlTable(entry) && typeof entry[field] === 'string') byName.set(entry[field] as string, entry as TomlValue);
  }
  return byName;
}

/**
 * The first `[[modules]]` or `[[dependencies]]` entry of base that one side removed while the
 * other changed it, as `module "p"` / `dependency "n"`; undefined when there is none or a side does
 * not read as TOML (never throws). No merge can keep both sides' change of such an entry; entries
 * compare as values (`tomlEqual`, src/workspace/toml-equal.ts), so a reformatted entry is unchanged.
 * @param base the three sides as UTF-8 `package.toml` bytes (docs/reference/package-toml.md).
 */
export function modifiedAndRemovedEntry(base: Uint8Array, ours: Uint8Array, theirs: Uint8Array): string | undefined {
  let tables;
  try {
    tables = [base, ours, theirs].map((side) => parseManifestTable(side));
  } catch {
    return undefined;
  }
  const [b, o, t] = tables as [Record<string, unknown>, Record<string, unknown>, Record<string, unknown>];
  for (const [list, field, what] of MANIFEST_ENTRY_LISTS) {
    const [inBase, inOurs, inTheirs] = [entriesByName(b, list, field), entriesByName(o, list, field), entriesByName(t, list, field)];
    for (const [name, entry] of inBase) {
      const [mine, other] = [inOurs.get(name), inTheirs.get(name)];
      if ((mine === undefined) === (other === undefined)) continue;
      const kept = mine ?? other!;
      if (!tomlEqual(kept, entry)) return `${what} ${JSON.stringify(name)}`;
    }
  }
  return undefined;
}

/**
 * The first `[[modules]]` path or `[[dependencies]]` name a manifest text lists twice, as
 * `module "p"` / `dependency "n"`; undefined when there is none or the text does not read as TOML.
 */
export function repeatedManifestEntry(text: Uint8Array): string | undefined {
  let table;
  try {
    table = parseManifestTable(text);
  } catch {
    return undefined;
  }
  for (const [key, field, what] of MANIFEST_ENTRY_LISTS) {
    const list = table[key];
    if (!Array.isArray(list)) continue;
    const seen = new Set<string>();
    for (const entry of list) {
      if (!isTomlTable(entry)) continue;
      const name = entry[field];
      if (typeof name !== 'string') continue;
      if (seen.has(name)) return `${what} ${JSON.stringify(name)}`;
      seen.add(name);
    }
  }
  return undefined;
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

/** A `MarkerOptions` whose `style` is read from git config only when a marker is written. */
export function lazyMarkers(markerSize: number, labels: { base: string; ours: string; theirs: string }, cwd?: string): MarkerOptions {
  let style: ConflictStyle | undefined;
  return {
    markerSize,
    oursLabel: labels.ours,
    baseLabel: labels.base,
    theirsLabel: labels.theirs,
    get style(): ConflictStyle {
      style ??= readConflictStyle(cwd);
      return style;
    },
  };
}

/**
 * A plain `Uint8Array` view of a Buffer's bytes (no copy). The merge slices its inputs thousands of
 * times; a Buffer's `subarray` allocates a Buffer object each time, which is several times dearer.
 */
function plainBytes(buffer: Buffer): Uint8Array {
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.length);
}

/**
 * Runs the driver for one invocation: reads %O %A %B, decides, writes %A, prints messages to
 * `stderr`, and returns the exit code (0 or 1). Never throws.
 * @param env environment (`GCPATCH_DRIVER=0`, `GCPATCH_DRIVER_TIMEOUT_MS`).
 */
export function runDriver(inv: DriverInvocation, env: NodeJS.ProcessEnv = process.env, stderr: (text: string) => void = (t) => process.stderr.write(t)): 0 | 1 {
  const where = inv.path ?? inv.ours;
  const markers = lazyMarkers(inv.markerSize, inv.labels);
  const lineMerge = (): { ok: boolean; text: Uint8Array; conflicts: number; message: string } =>
    gitMergeFile({ ours: inv.ours, base: inv.base, theirs: inv.theirs }, markers);
  try {
    let ours: Uint8Array;
    try {
      ours = plainBytes(readFileSync(inv.ours));
    } catch (error) {
      stderr(`gcpatch: ${where}: cannot read ours (${inv.ours}): ${(error as Error).message}\n`);
      return 1;
    }
    let base: Uint8Array;
    let theirs: Uint8Array;
    try {
      base = plainBytes(readFileSync(inv.base));
      theirs = plainBytes(readFileSync(inv.theirs));
    } catch (error) {
      return finish(inv, lineFallback(where, `cannot read an input: ${(error as Error).message}`, lineMerge), stderr);
    }
    const timeout = Number.parseInt(env.GCPATCH_DRIVER_TIMEOUT_MS ?? '', 10);
    const outcome = mergeFileBytes(
      base,
      ours,
      theirs,
      {
        mode: inv.mode,
        markers,
        timeoutMs: Number.isFinite(timeout) && timeout >= 0 ? timeout : DEFAULT_TIMEOUT_MS,
        structural: env.GCPATCH_DRIVER !== '0',
        path: where,
      },
      lineMerge,
    );
    return finish(inv, outcome, stderr);
  } catch (error) {
    // Last resort: whatever went wrong, leave a line merge with markers and report a conflict.
    stderr(`gcpatch: ${where}: internal error: ${error instanceof Error ? error.message : String(error)}\n`);
    return emergencyFallback(inv, stderr);
  }
}

function finish(inv: DriverInvocation, outcome: DriverOutcome, stderr: (text: string) => void): 0 | 1 {
  for (const m of outcome.messages) stderr(`${m}\n`);
  if (outcome.result !== undefined && !writeResult(inv, outcome.result, stderr)) return 1;
  return outcome.exitCode;
}

/**
 * Writes the merge result (or the markers) into %A atomically ({@link writeFileAtomic}: a
 * temporary file beside %A, fsync, rename): a full disk, a quota or a kill never leaves a prefix
 * of the result in %A. On failure %A keeps ours byte for byte, one line on `stderr` says why, and
 * the caller exits 1 (git then sees a conflict and the work tree holds ours).
 * @returns whether %A now holds `bytes`.
 */
export function writeResult(inv: DriverInvocation, bytes: Uint8Array, stderr: (text: string) => void): boolean {
  try {
    writeFileAtomic(inv.ours, bytes);
    return true;
  } catch (error) {
    const cause = (error as { cause?: unknown }).cause;
    const reason = cause instanceof Error ? cause.message : error instanceof Error ? error.message : String(error);
    stderr(`gcpatch: ${inv.path ?? inv.ours}: cannot write the result (${reason}); kept ours unmerged, theirs is NOT included: free space, then merge again\n`);
    return false;
  }
}

/**
 * The crash path (also used by the entry's `uncaughtException` handler): `git merge-file` into %A,
 * exit 1 whatever it reports; if even that fails, %A keeps ours and stderr says so.
 */
export function emergencyFallback(inv: DriverInvocation, stderr: (text: string) => void = (t) => process.stderr.write(t)): 1 {
  try {
    const r = gitMergeFile(
      { ours: inv.ours, base: inv.base, theirs: inv.theirs },
      {
        markerSize: inv.markerSize,
        style: 'merge',
        oursLabel: inv.labels.ours,
        baseLabel: inv.labels.base,
        theirsLabel: inv.labels.theirs,
      },
    );
    if (r.ok) {
      if (!writeResult(inv, r.text, stderr)) return 1;
      stderr(`gcpatch: ${inv.path ?? inv.ours}: wrote git merge-file's line merge; marked as conflicted for review\n`);
      return 1;
    }
    stderr(`gcpatch: ${inv.path ?? inv.ours}: git merge-file failed (${r.message}); kept ours unmerged, resolve by hand\n`);
  } catch (error) {
    stderr(`gcpatch: ${inv.path ?? inv.ours}: fallback failed (${error instanceof Error ? error.message : String(error)}); kept ours unmerged\n`);
  }
  return 1;
}

/**
 * Merges a built-in example (adjacent definitions edited on each side) structurally and checks the
 * result; used by `--self-check` and `gcpatch driver doctor`.
 * @returns undefined when healthy, otherwise what went wrong.
 */
export function selfCheck(): string | undefined {
  const enc = new TextEncoder();
  const base = enc.encode('(def a 1)\n\n(def b 2)\n');
  const ours = enc.encode('(def a 10)\n\n(def b 2)\n');
  const theirs = enc.encode('(def a 1)\n\n(def b 20)\n');
  const expected = '(def a 10)\n\n(def b 20)\n';
  try {
    const r = mergeStructuralBytes(
      base,
      ours,
      theirs,
      'gc',
      { markerSize: 7, style: 'merge', oursLabel: 'ours', baseLabel: 'base', theirsLabel: 'theirs' },
      Infinity,
    );
    const got = new TextDecoder().decode(r.result);
    return r.conflicts.length === 0 && got === expected ? undefined : `unexpected self-check merge: ${JSON.stringify(got)}`;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}
