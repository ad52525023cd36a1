/**
 * The line-based fallback of the merge driver: `git merge-file` on the three files as git handed
 * them over (mergiraf's `line_based.rs`), and the input checks that send a merge there.
 *
 * Used whenever the structural merge is disabled, impossible or unsafe (docs/driver.md "What happens, in order",
 * docs/reference/git-merge-driver.md "Exit status", "git merge-file", "Inputs that broke other drivers"). `git merge-file` exits with the number of conflicts
 * (capped at 127) and 255 on errors such as binary input; this module maps every outcome to a result
 * the driver can write, never to an exception.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GIT_LONG_TIMEOUT_MS, runGitBytes } from '../git/exec.js';
import type { MarkerOptions } from './common/diff3.js';
import { indexOfByte } from './newline.js';

/** The outcome of {@link gitMergeFile}. */
export interface LineMergeResult {
  /** True when `git merge-file` ran and produced a result (clean or with markers). */
  ok: boolean;
  /** The merged bytes with markers (when `ok`). */
  text: Uint8Array;
  /** Number of conflicts `git merge-file` reported (0 = clean); meaningless when not `ok`. */
  conflicts: number;
  /** Why it failed (stderr of git, or the spawn error), when not `ok`. */
  message: string;
}

/**
 * Runs `git merge-file -p --marker-size=N [--diff3] -L ours -L base -L theirs ours base theirs`.
 * No `--diff-algorithm` (git 2.39 rejects it). Style `diff3` passes `--diff3` (the caller reads
 * zdiff3 as diff3); style `merge` passes nothing, and git merge-file then follows
 * `merge.conflictStyle`, which is what the caller derived `merge` from.
 * @param files paths of the ours, base and theirs files (relative to `cwd` or absolute).
 * @param options `cwd` to run in, `git` executable (default `git`), budget in ms (default
 *   `GIT_LONG_TIMEOUT_MS` of src/git/exec.ts).
 */
export function gitMergeFile(
  files: { ours: string; base: string; theirs: string },
  markers: MarkerOptions,
  options: { cwd?: string; git?: string; timeoutMs?: number } = {},
): LineMergeResult {
  const args = ['merge-file', '-p', `--marker-size=${markers.markerSize}`];
  if (markers.style === 'diff3') args.push('--diff3');
  args.push('-L', markers.oursLabel, '-L', markers.baseLabel, '-L', markers.theirsLabel, files.ours, files.base, files.theirs);
  const r = runGitBytes(args, { cwd: options.cwd, git: options.git, timeoutMs: options.timeoutMs ?? GIT_LONG_TIMEOUT_MS });
  if (r.failure !== undefined && r.failure.kind !== 'signal') return { ok: false, text: new Uint8Array(0), conflicts: 0, message: r.failure.detail };
  const status = r.status;
  if (status >= 128 || r.failure !== undefined) {
    return { ok: false, text: new Uint8Array(0), conflicts: 0, message: r.stderr.trim() || `git merge-file exited with ${r.failure?.detail ?? status}` };
  }
  return { ok: true, text: new Uint8Array(r.stdout), conflicts: status, message: '' };
}

/**
 * {@link gitMergeFile} on in-memory inputs: writes them to a fresh temporary directory outside the
 * work tree, runs git there and removes the directory.
 */
export function gitMergeBytes(base: Uint8Array, ours: Uint8Array, theirs: Uint8Array, markers: MarkerOptions, options: { git?: string } = {}): LineMergeResult {
  const dir = mkdtempSync(join(tmpdir(), 'gcpatch-merge-'));
  try {
    writeFileSync(join(dir, 'base'), base);
    writeFileSync(join(dir, 'ours'), ours);
    writeFileSync(join(dir, 'theirs'), theirs);
    return gitMergeFile({ ours: 'ours', base: 'base', theirs: 'theirs' }, markers, { cwd: dir, ...options });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** True when `bytes` contains a NUL byte (git's binary heuristic, applied to the whole input). */
export function isBinary(bytes: Uint8Array): boolean {
  return indexOfByte(bytes, 0) !== -1;
}

/** Seven `<`: every start marker line begins with them. */
const START_RUN = Buffer.from('<<<<<<<');

/**
 * True when `bytes` already holds a conflict: a line starting with 7 or more `<` followed by a
 * space or the end of the line, and later such a line of `>` (docs/reference/git-merge-driver.md "Inputs that broke other drivers",
 * mergiraf #520/#643). Works on raw bytes; CR before the line end is allowed.
 */
export function hasConflictMarkers(bytes: Uint8Array): boolean {
  // Fast negative (one native search per candidate): no line starting with seven `<` means no
  // start marker, and the answer needs one.
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  let anyStart = false;
  for (let at = buf.indexOf(START_RUN); at !== -1; at = buf.indexOf(START_RUN, at + 1)) {
    if (at === 0 || bytes[at - 1] === 0x0a) {
      anyStart = true;
      break;
    }
  }
  if (!anyStart) return false;
  let sawStart = false;
  let lineStart = 0;
  const n = bytes.length;
  while (lineStart < n) {
    let end = bytes.indexOf(0x0a, lineStart);
    if (end === -1) end = n;
    const c = bytes[lineStart];
    if (c === 0x3c || c === 0x3e) {
      let k = lineStart;
      while (k < end && bytes[k] === c) k++;
      const after = k < end ? bytes[k] : -1;
      if (k - lineStart >= 7 && (after === -1 || after === 0x20 || after === 0x0d)) {
        if (c === 0x3c) sawStart = true;
        else if (sawStart) return true;
      }
    }
    lineStart = end + 1;
  }
  return false;
}
