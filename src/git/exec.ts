/** Running the `git` executable: one timeout policy, and one way to report a git that is missing, timed out or failed. */
import { spawnSync } from 'node:child_process';
import { ExitCode, GcError } from '../util/errors.js';

/** How long one git command may run, in ms, before it is stopped and reported as timed out. */
export const GIT_TIMEOUT_MS = 30_000;

/**
 * The longer budget, in ms, of commands that read or merge whole files (`git merge-file`, `git
 * cat-file blob`, `git ls-files -u` of a large index): the line merge of the driver's largest
 * inputs must not be cut short.
 */
export const GIT_LONG_TIMEOUT_MS = 60_000;

/** Largest output (bytes) read from one git command: a whole merged file or blob fits. */
const MAX_OUTPUT_BYTES = 1 << 30;

/** The concerns that run git and name its failures with their own codes (`<area>/git-missing`, `…/git-timeout`, `…/git-failed`, each in `src/util/codes.ts`). */
export type GitArea = keyof typeof GIT_FAILURE_CODES;

/** The codes of each area's git failures. */
const GIT_FAILURE_CODES = {
  driver: { missing: 'driver/git-missing', timeout: 'driver/git-timeout', failed: 'driver/git-failed' },
  solve: { missing: 'solve/git-missing', timeout: 'solve/git-timeout', failed: 'solve/git-failed' },
} as const;

/** Options of {@link runGit} and {@link runGitBytes}. */
export interface GitRunOptions {
  /** Directory to run in (default: process cwd). */
  cwd?: string | undefined;
  /** The `git` executable (default `git`). */
  git?: string | undefined;
  /** Budget in ms (default {@link GIT_TIMEOUT_MS}). */
  timeoutMs?: number | undefined;
  /**
   * The code prefix of the errors to throw when git cannot run (`<area>/git-missing`,
   * `<area>/git-timeout`); without it nothing is thrown and {@link GitRun.failure} says why.
   */
  area?: GitArea | undefined;
}

/** Why git did not run to its end: not started (`missing`: not found, not executable), stopped at the budget, or killed. */
export interface GitFailure {
  kind: 'missing' | 'timeout' | 'signal';
  /** Node's own words (`spawnSync git ENOENT`), or the signal's name. */
  detail: string;
}

/** One git command's outcome. */
export interface GitRun<Out> {
  /** The exit status; 255 when git did not exit by itself (then `failure` is set). */
  status: number;
  stdout: Out;
  stderr: string;
  /** Set when git could not run to its end. */
  failure: GitFailure | undefined;
}

function spawnGit(args: readonly string[], options: GitRunOptions): GitRun<Buffer> {
  const r = spawnSync(options.git ?? 'git', args, {
    cwd: options.cwd,
    maxBuffer: MAX_OUTPUT_BYTES,
    timeout: options.timeoutMs ?? GIT_TIMEOUT_MS,
  });
  const error = r.error as NodeJS.ErrnoException | undefined;
  const failure: GitFailure | undefined = error
    ? { kind: error.code === 'ETIMEDOUT' ? 'timeout' : 'missing', detail: error.message }
    : r.signal
      ? { kind: 'signal', detail: r.signal }
      : undefined;
  const run: GitRun<Buffer> = {
    status: r.status ?? 255,
    stdout: r.stdout ?? Buffer.alloc(0),
    stderr: r.stderr ? r.stderr.toString('utf8') : '',
    failure,
  };
  if (options.area !== undefined && failure !== undefined && failure.kind !== 'signal') throw gitRunError(options.area, args, failure, options);
  return run;
}

/**
 * The error for a git that did not run: `<area>/git-missing` "cannot run git: …" or
 * `<area>/git-timeout` naming the command and the budget (exit 70 both).
 */
function gitRunError(area: GitArea, args: readonly string[], failure: GitFailure, options: GitRunOptions): GcError {
  if (failure.kind === 'timeout') {
    const seconds = (options.timeoutMs ?? GIT_TIMEOUT_MS) / 1000;
    return new GcError(GIT_FAILURE_CODES[area].timeout, `git ${args.join(' ')} did not finish within ${seconds} s`, { exitCode: ExitCode.io });
  }
  return new GcError(GIT_FAILURE_CODES[area].missing, `cannot run git: ${failure.detail}`, { exitCode: ExitCode.io });
}

/**
 * Runs `git ARGS` and returns its outcome with standard output as UTF-8 text. A non-zero status is
 * never an error here; a git that cannot run is one only with `options.area` (see
 * {@link GitRunOptions.area}).
 * @throws GcError `<area>/git-missing`, `<area>/git-timeout` (exit 70) with `options.area`.
 */
export function runGit(args: readonly string[], options: GitRunOptions = {}): GitRun<string> {
  const r = spawnGit(args, options);
  return { ...r, stdout: r.stdout.toString('utf8') };
}

/** {@link runGit} with standard output as bytes (blobs, merged files). */
export function runGitBytes(args: readonly string[], options: GitRunOptions = {}): GitRun<Buffer> {
  return spawnGit(args, options);
}

/**
 * Runs `git ARGS` and returns its standard output as text, requiring exit 0.
 * @throws GcError `<area>/git-missing`, `<area>/git-timeout`, and `<area>/git-failed` "git ARGS
 *   failed: <stderr, or exit N>" for any other outcome (exit 70 all).
 */
export function gitOutput(args: readonly string[], options: GitRunOptions & { area: GitArea }): string {
  return succeeded(runGit(args, options), args, options.area).stdout;
}

/** {@link gitOutput} with standard output as bytes (`git cat-file blob`). */
export function gitOutputBytes(args: readonly string[], options: GitRunOptions & { area: GitArea }): Buffer {
  return succeeded(spawnGit(args, options), args, options.area).stdout;
}

function succeeded<Out>(r: GitRun<Out>, args: readonly string[], area: GitArea): GitRun<Out> {
  if (r.status !== 0) {
    throw new GcError(GIT_FAILURE_CODES[area].failed, `git ${args.join(' ')} failed: ${r.stderr.trim() || `exit ${r.status}`}`, { exitCode: ExitCode.io });
  }
  return r;
}
