/**
 * The git merge driver's cascade (docs/driver.md "What happens, in order"; mergiraf's `merge.rs`): trivial merges, input checks,
 * the structural text merge under a time budget with its safety net, and the `git merge-file`
 * fallback. `driver/index.ts` parses the arguments and calls {@link runDriver}; this file reads the
 * sides and writes the result, and the merge of the bytes is `merge-bytes.ts`.
 *
 * Git runs `node <checkout>/driver/dist/index.js [--manifest] %O %A %B %L %P %S %X %Y` through
 * `sh -c` with the work tree's top as cwd (docs/reference/git-merge-driver.md "Wiring" to "Exit status"). The result goes into
 * %A; the exit code is 0 (clean) or 1 (conflicts or fallback trouble) and never anything else, so a
 * merge is never aborted by the driver and never silently keeps only ours.
 */
import { readFileSync } from 'node:fs';
import { runGit } from '../git/exec.js';
import { writeFileAtomic } from '../util/atomic.js';
import { gitMergeFile } from './line-based.js';
import { DEFAULT_TIMEOUT_MS, lineFallback, mergeFileBytes, mergeStructuralBytes, type DriverMode, type DriverOutcome } from './merge-bytes.js';
import type { ConflictStyle, MarkerOptions } from './common/diff3.js';

export {
  DEFAULT_TIMEOUT_MS,
  MAX_STRUCTURAL_BYTES,
  describeConflict,
  lineFallback,
  mergeFileBytes,
  mergeStructuralBytes,
  type DriverMethod,
  type DriverMode,
  type DriverOutcome,
  type MergeBytesOptions,
  type StructuralBytesResult,
} from './merge-bytes.js';
export { modifiedAndRemovedEntry, repeatedManifestEntry } from './manifest-entries.js';

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
