/**
 * The driver's engine on loose files and on files that already hold conflicts (docs/driver.md
 * "Merging loose files: `gcpatch merge-file`" and "Re-resolving conflicted files: `gcpatch solve`"):
 * `gcpatch merge-file` ({@link mergeLooseFiles}) and `gcpatch solve` ({@link solveFile}).
 *
 * Both run exactly the cascade git's driver runs (`mergeFileBytes` in driver.ts: trivial
 * merges, the structural merge under its time budget, `git merge-file` as the fallback), so their
 * bytes equal the driver's. `solve` takes the three sides from git's index (stages 1–3, `git
 * ls-files -u`) when the file is unmerged, else from diff3-style markers in the file (a base
 * section is required), and rewrites the file atomically. Neither stages anything (`git add` is
 * the user's decision).
 */
import { readFileSync } from 'node:fs';
import { basename, relative, resolve } from 'node:path';
import { GIT_LONG_TIMEOUT_MS, gitOutputBytes, runGitBytes, type GitRun } from '../git/exec.js';
import { writeFileAtomic } from '../util/atomic.js';
import { ExitCode, GcError, type GcCode } from '../util/errors.js';
import { gitMergeBytes, hasConflictMarkers, isBinary } from './line-based.js';
import { DEFAULT_TIMEOUT_MS, mergeFileBytes, readConflictStyle, type DriverMethod, type DriverMode } from './driver.js';
import type { ConflictStyle, MarkerOptions } from './common/diff3.js';

/** Options of {@link mergeBytesLikeDriver}. */
export interface LooseMergeOptions {
  /** `gc` (default) or `manifest` (package.toml). */
  mode?: DriverMode;
  /** Marker length, default 7. */
  markerSize?: number;
  /** Conflict style; default `merge.conflictStyle` read in `cwd` (diff3 for diff3/zdiff3). */
  style?: ConflictStyle;
  /** Labels, default ours / base / theirs. */
  labels?: { ours?: string; base?: string; theirs?: string };
  /** Structural time budget in ms (default the driver's, 5000). */
  timeoutMs?: number;
  /** Name used in messages. */
  path?: string;
  /** Where git config is read (conflict style). */
  cwd?: string;
}

/** What one merge produced. */
export interface LooseMergeResult {
  /** The merged bytes (ours when nothing could be merged, `method: 'kept-ours'`). */
  result: Uint8Array;
  /** Conflicts left: the number of conflict blocks in `result`, at least 1 when the cascade reported a conflict. */
  conflicts: number;
  method: DriverMethod;
  /** Why the structural merge was not used, if it was not. */
  reason: string | undefined;
  /** The driver's stderr lines (without the trailing newline). */
  messages: string[];
}

/** The marker options a merge uses: size, style (config unless given), labels. */
function markerOptions(opts: LooseMergeOptions): MarkerOptions {
  return {
    markerSize: opts.markerSize ?? 7,
    style: opts.style ?? readConflictStyle(opts.cwd),
    oursLabel: opts.labels?.ours ?? 'ours',
    baseLabel: opts.labels?.base ?? 'base',
    theirsLabel: opts.labels?.theirs ?? 'theirs',
  };
}

/**
 * Counts the conflict blocks in `bytes`: lines of exactly `markerSize` `<` followed by a space or
 * the line end (what git merge-file counts in its exit status).
 */
export function countConflicts(bytes: Uint8Array, markerSize: number): number {
  let count = 0;
  let start = 0;
  while (start < bytes.length) {
    let end = bytes.indexOf(0x0a, start);
    if (end === -1) end = bytes.length;
    if (bytes[start] === 0x3c) {
      let k = start;
      while (k < end && bytes[k] === 0x3c) k++;
      const after = k < end ? bytes[k] : -1;
      if (k - start === markerSize && (after === -1 || after === 0x20 || after === 0x0d)) count++;
    }
    start = end + 1;
  }
  return count;
}

/**
 * Merges three byte strings exactly as the merge driver would merge %O %A %B (same cascade, same
 * bytes). Never throws for content: binary sides give `kept-ours` with one conflict.
 */
export function mergeBytesLikeDriver(base: Uint8Array, ours: Uint8Array, theirs: Uint8Array, opts: LooseMergeOptions = {}): LooseMergeResult {
  const markers = markerOptions(opts);
  const outcome = mergeFileBytes(
    base,
    ours,
    theirs,
    { mode: opts.mode ?? 'gc', markers, timeoutMs: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS, path: opts.path },
    () => gitMergeBytes(base, ours, theirs, markers),
  );
  const result = outcome.result ?? ours;
  const counted = countConflicts(result, markers.markerSize);
  return {
    result,
    conflicts: outcome.exitCode === 0 ? 0 : Math.max(1, counted),
    method: outcome.method,
    reason: outcome.reason,
    messages: outcome.messages,
  };
}

/** `package.toml` merges with the manifest driver, everything else with the `.gc` driver. */
export function modeForPath(path: string): DriverMode {
  return basename(path) === 'package.toml' ? 'manifest' : 'gc';
}

/**
 * `gcpatch merge-file`: reads BASE, OURS, THEIRS and merges them like the driver.
 * @throws GcError `merge-file/unreadable` (exit 70) naming the file.
 */
export function mergeLooseFiles(files: { base: string; ours: string; theirs: string }, opts: LooseMergeOptions = {}): LooseMergeResult {
  const read = (file: string): Uint8Array => {
    try {
      return new Uint8Array(readFileSync(file));
    } catch (error) {
      throw new GcError('merge-file/unreadable', `cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}; check the path`, {
        exitCode: ExitCode.io,
        location: { file },
      });
    }
  };
  const base = read(files.base);
  const ours = read(files.ours);
  const theirs = read(files.theirs);
  return mergeBytesLikeDriver(base, ours, theirs, { mode: modeForPath(files.ours), path: files.ours, ...opts });
}

/** The three sides recovered from a file with conflict markers, and what the markers said. */
export interface MarkedSides {
  base: Uint8Array;
  ours: Uint8Array;
  theirs: Uint8Array;
  /** Conflict blocks found. */
  blocks: number;
  markerSize: number;
  /** Labels of the first block (empty string when a marker had none). */
  labels: { ours: string; base: string; theirs: string };
}

/** A line of `bytes` from `start` (inclusive) to `next` (just after its LF, or the end). */
interface Line {
  start: number;
  next: number;
}

/** `size` copies of `ch` then a space, CR, LF or the end; returns the label (text after the space) or undefined. */
function markerLabel(bytes: Uint8Array, line: Line, ch: number, size: number): string | undefined {
  let k = line.start;
  while (k < line.next && bytes[k] === ch) k++;
  if (k - line.start !== size) return undefined;
  let end = line.next;
  if (end > line.start && bytes[end - 1] === 0x0a) end--;
  if (end > k && bytes[end - 1] === 0x0d) end--;
  if (k === end) return '';
  if (bytes[k] !== 0x20) return undefined;
  return Buffer.from(bytes.subarray(k + 1, end)).toString('utf8');
}

/**
 * Splits a file holding diff3-style conflict blocks (`<<<<<<<`, `|||||||`, `=======`, `>>>>>>>`,
 * any marker size ≥ 7, detected from the first block) back into base, ours and theirs: text outside
 * blocks goes to all three. Lines keep their line ends, so the sides are the bytes git merged (up
 * to the regions git already resolved, which it wrote once for all three).
 * @returns undefined when the file has no conflict block.
 * @throws GcError `solve/no-base` (exit 10) when a block has no base section (merge style),
 *   `solve/bad-markers` (exit 10) when the markers are unbalanced; both name file and line.
 */
export function sidesFromMarkers(bytes: Uint8Array, file = 'file'): MarkedSides | undefined {
  const lines: Line[] = [];
  for (let start = 0; start < bytes.length;) {
    const nl = bytes.indexOf(0x0a, start);
    const next = nl === -1 ? bytes.length : nl + 1;
    lines.push({ start, next });
    start = next;
  }
  let size = 0;
  for (const line of lines) {
    if (bytes[line.start] !== 0x3c) continue;
    let k = line.start;
    while (k < line.next && bytes[k] === 0x3c) k++;
    if (k - line.start >= 7 && markerLabel(bytes, line, 0x3c, k - line.start) !== undefined) {
      size = k - line.start;
      break;
    }
  }
  if (size === 0) return undefined;
  const parts: Record<'base' | 'ours' | 'theirs', Uint8Array[]> = { base: [], ours: [], theirs: [] };
  const labels = { ours: '', base: '', theirs: '' };
  let state: 'out' | 'ours' | 'base' | 'theirs' = 'out';
  let blocks = 0;
  let blockLine = 0;
  const fail = (code: GcCode, message: string, line: number): never => {
    throw new GcError(code, message, { exitCode: ExitCode.invalidInput, location: { file, line: line + 1 } });
  };
  lines.forEach((line, i) => {
    const text = bytes.subarray(line.start, line.next);
    if (state === 'out') {
      const label = markerLabel(bytes, line, 0x3c, size);
      if (label !== undefined) {
        state = 'ours';
        blockLine = i;
        if (blocks++ === 0) labels.ours = label;
        return;
      }
      parts.base.push(text);
      parts.ours.push(text);
      parts.theirs.push(text);
      return;
    }
    if (state === 'ours') {
      const label = markerLabel(bytes, line, 0x7c, size);
      if (label !== undefined) {
        state = 'base';
        if (blocks === 1) labels.base = label;
        return;
      }
      if (markerLabel(bytes, line, 0x3d, size) === '') {
        fail(
          'solve/no-base',
          `the conflict at line ${blockLine + 1} has no base section (merge style markers): solve needs the base; ` +
            `run \`git checkout --conflict=diff3 -- ${file}\` in a conflicted merge, or \`git config merge.conflictStyle diff3\` before merging`,
          blockLine,
        );
      }
      parts.ours.push(text);
      return;
    }
    if (state === 'base') {
      if (markerLabel(bytes, line, 0x3d, size) === '') {
        state = 'theirs';
        return;
      }
      parts.base.push(text);
      return;
    }
    const label = markerLabel(bytes, line, 0x3e, size);
    if (label !== undefined) {
      state = 'out';
      if (blocks === 1) labels.theirs = label;
      return;
    }
    parts.theirs.push(text);
  });
  if (state !== 'out')
    fail('solve/bad-markers', `the conflict opened at line ${blockLine + 1} is not closed by a ${'>'.repeat(size)} line; fix the markers by hand`, blockLine);
  const join = (chunks: Uint8Array[]): Uint8Array => new Uint8Array(Buffer.concat(chunks));
  return { base: join(parts.base), ours: join(parts.ours), theirs: join(parts.theirs), blocks, markerSize: size, labels };
}

/** The labels of the first `<<<<<<<` and `>>>>>>>` markers (any size ≥ 7) of merge-style conflicts. */
function labelsOfMarkers(bytes: Uint8Array): { ours: string; base: string; theirs: string } {
  const text = Buffer.from(bytes).toString('utf8');
  const open = /^(<{7,}) ([^\r\n]*)\r?$/m.exec(text);
  const close = open ? new RegExp(`^>{${open[1]!.length}} ([^\\r\\n]*)\\r?$`, 'm').exec(text) : null;
  return { ours: open?.[2] ?? '', base: '', theirs: close?.[1] ?? '' };
}

/** What {@link solveFile} did to one file. */
export interface SolveResult {
  /** The file as given. */
  file: string;
  /** Where the sides came from. */
  source: 'index' | 'markers' | 'none';
  /**
   * `resolved`: written without conflicts; `conflicts`: written, conflicts remain; `unchanged`:
   * nothing to solve (no stages, no markers); `skipped`: not written (why in `message`).
   */
  status: 'resolved' | 'conflicts' | 'unchanged' | 'skipped';
  conflicts: number;
  method: DriverMethod | undefined;
  message: string;
  /** The driver's messages. */
  messages: string[];
}

/** `git ARGS` in `cwd` for solve: whole blobs, so the long budget. @throws GcError `solve/git-missing`, `solve/git-timeout`. */
function gitRun(cwd: string, args: string[]): GitRun<Buffer> {
  return runGitBytes(args, { cwd, area: 'solve', timeoutMs: GIT_LONG_TIMEOUT_MS });
}

/** The unmerged stages of `file` (`git ls-files -u -z`): stage number → blob id. Empty outside a repository. */
export function unmergedStages(cwd: string, file: string): Map<number, string> {
  const stages = new Map<number, string>();
  const r = gitRun(cwd, ['ls-files', '-u', '-z', '--', file]);
  if (r.status !== 0) return stages;
  for (const entry of r.stdout.toString('utf8').split('\0')) {
    const m = /^\d+ ([0-9a-f]+) ([123])\t/.exec(entry);
    if (m) stages.set(Number(m[2]), m[1]!);
  }
  return stages;
}

/** Paths (relative to `cwd`) of every unmerged `.gc` file and `package.toml` in the repository at `cwd`. */
export function conflictedPaths(cwd: string): string[] {
  const r = gitRun(cwd, ['ls-files', '-u', '-z', '--full-name']);
  if (r.status !== 0) {
    throw new GcError('solve/not-a-repository', `${cwd} is not inside a git work tree; name the files to solve`, { exitCode: ExitCode.invalidInput });
  }
  const top = gitRun(cwd, ['rev-parse', '--show-toplevel']).stdout.toString('utf8').trim();
  const paths = new Set<string>();
  for (const entry of r.stdout.toString('utf8').split('\0')) {
    const tab = entry.indexOf('\t');
    if (tab === -1) continue;
    const p = entry.slice(tab + 1);
    if (p.endsWith('.gc') || basename(p) === 'package.toml') paths.add(relative(cwd, resolve(top, p)) || p);
  }
  return [...paths].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
}

/**
 * `gcpatch solve FILE`: re-resolves one file with the driver's engine and rewrites it atomically.
 * Sides from git's index stages 1–3 when the file is unmerged (stage 1 absent: empty base, as git
 * hands an add/add to the driver; stage 2 or 3 absent: delete/modify, skipped), else from its
 * diff3-style markers ({@link sidesFromMarkers}). Labels, marker size and style follow the markers
 * in the file when it has any (a base section means diff3), else `merge.conflictStyle`.
 * @throws GcError `solve/unreadable` (exit 70), `solve/no-base`, `solve/bad-markers` (exit 10),
 *   `io/*` when the write fails.
 */
export function solveFile(file: string, opts: { cwd?: string; style?: ConflictStyle; timeoutMs?: number; force?: boolean } = {}): SolveResult {
  const cwd = opts.cwd ?? process.cwd();
  const path = resolve(cwd, file);
  const mode = modeForPath(path);
  let current: Uint8Array;
  try {
    current = new Uint8Array(readFileSync(path));
  } catch (error) {
    throw new GcError('solve/unreadable', `cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, {
      exitCode: ExitCode.io,
      location: { file },
    });
  }
  const done = (status: SolveResult['status'], source: SolveResult['source'], message: string, extra: Partial<SolveResult> = {}): SolveResult => ({
    file,
    source,
    status,
    conflicts: status === 'conflicts' || status === 'skipped' ? Math.max(1, extra.conflicts ?? 0) : 0,
    method: undefined,
    message,
    messages: [],
    ...extra,
  });
  const stages = unmergedStages(cwd, path);
  // Markers in the working file tell the labels, size and style the user (or git) chose.
  let marked: MarkedSides | undefined;
  let markerError: GcError | undefined;
  if (!isBinary(current)) {
    try {
      marked = sidesFromMarkers(current, file);
    } catch (error) {
      if (!(error instanceof GcError) || stages.size === 0) throw error;
      markerError = error;
    }
  }
  let sides: { base: Uint8Array; ours: Uint8Array; theirs: Uint8Array };
  let source: SolveResult['source'];
  if (stages.size > 0) {
    if (!stages.has(2) || !stages.has(3)) {
      return done(
        'skipped',
        'index',
        `${stages.has(2) ? 'theirs' : 'ours'} deleted the file: a delete/modify conflict has no merge to redo; keep one side with git rm or git add`,
      );
    }
    const blob = (stage: number): Uint8Array => {
      const id = stages.get(stage);
      if (id === undefined) return new Uint8Array(0);
      return new Uint8Array(gitOutputBytes(['cat-file', 'blob', id], { cwd, area: 'solve', timeoutMs: GIT_LONG_TIMEOUT_MS }));
    };
    // A file git left conflicted whose markers are gone was resolved by hand: re-merging it from the
    // index would throw that work away. Leave it alone unless the user asks (--force).
    if (opts.force !== true && !isBinary(current) && !hasConflictMarkers(current)) {
      return done(
        'skipped',
        'index',
        'holds no conflict markers: it looks resolved by hand, so solve leaves it alone (git add it when done; ' +
          "`gcpatch solve --force FILE` re-merges it from git's index, replacing its content)",
      );
    }
    sides = { base: blob(1), ours: blob(2), theirs: blob(3) };
    source = 'index';
  } else if (marked !== undefined) {
    sides = marked;
    source = 'markers';
  } else {
    return done('unchanged', 'none', 'not in a conflicted merge and holds no conflict markers: nothing to solve');
  }
  const hadBase = marked !== undefined ? true : markerError?.code === 'solve/no-base' ? false : undefined;
  const style: ConflictStyle | undefined = opts.style ?? (hadBase === undefined ? undefined : hadBase ? 'diff3' : 'merge');
  const found = marked?.labels ?? (markerError !== undefined ? labelsOfMarkers(current) : undefined);
  const labels = found !== undefined ? { ours: found.ours || 'ours', base: found.base || 'base', theirs: found.theirs || 'theirs' } : undefined;
  const merged = mergeBytesLikeDriver(sides.base, sides.ours, sides.theirs, {
    mode,
    markerSize: marked?.markerSize ?? 7,
    style,
    labels,
    timeoutMs: opts.timeoutMs,
    path: file,
    cwd,
  });
  if (merged.method === 'kept-ours') {
    return done('skipped', source, 'a side is binary (NUL bytes): not merged, resolve by hand', { method: merged.method, messages: merged.messages });
  }
  if (!Buffer.from(merged.result).equals(Buffer.from(current))) writeFileAtomic(path, merged.result);
  return done(
    merged.conflicts === 0 ? 'resolved' : 'conflicts',
    source,
    merged.conflicts === 0 ? `resolved (${merged.method})` : `${merged.conflicts} conflict(s) remain (${merged.method})`,
    {
      conflicts: merged.conflicts,
      method: merged.method,
      messages: merged.messages,
    },
  );
}
