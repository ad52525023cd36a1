/** What driver set-up works on: its options, the git it runs, and the places it derives from them (install directory, service folder). */
import { isAbsolute, join, resolve } from 'node:path';
import { homedir } from 'node:os';
import { serviceFolder } from '../driver-service/lifecycle.js';
import { gitOutput, runGit, type GitRun } from '../git/exec.js';
import { ExitCode, GcError } from '../util/errors.js';

/** The driver names written to git config. */
export const DRIVER_NAMES = { gc: 'gcpatch', manifest: 'gcpatch-manifest' } as const;

/** Options shared by install, uninstall and doctor. */
export interface DriverSetupOptions {
  /** Directory inside the repository (default: process cwd). */
  cwd?: string;
  /** Write to the user's global config and attributes instead of the repository's. */
  global?: boolean;
  /** Attributes to `.gitattributes` (true, default) or `.git/info/attributes` (false). Local only. */
  commitAttributes?: boolean;
  /**
   * Absolute path of the driver bundle to install (default: this package's `driver/dist/index.js`);
   * `launch.cjs` must sit next to it. Install copies both to {@link installDirectory}.
   */
  driverPath?: string;
  /** Where install copies the driver (default: {@link installDirectory}); tests only. */
  installDir?: string;
  /** The `git` executable (default `git`). */
  git?: string;
}

/**
 * Runs `git ARGS` for set-up in `opts.cwd` with `opts.git` (src/git/exec.ts; its timeout). A non-zero
 * status is returned, not thrown.
 * @throws GcError `driver/git-missing`, `driver/git-timeout` (exit 70) when git cannot run.
 */
export function runSetupGit(opts: DriverSetupOptions, args: string[]): GitRun<string> {
  return runGit(args, { cwd: opts.cwd, git: opts.git, area: 'driver' });
}

/**
 * {@link runSetupGit} requiring exit 0; returns standard output.
 * @throws GcError `driver/git-missing`, `driver/git-timeout`, `driver/git-failed` (exit 70).
 */
export function setupGitOutput(opts: DriverSetupOptions, args: string[]): string {
  return gitOutput(args, { cwd: opts.cwd, git: opts.git, area: 'driver' });
}

/**
 * Checks that `opts.cwd` is inside a git work tree.
 * @throws GcError `driver/not-a-repository` (exit 10) naming the fix.
 */
export function requireRepository(opts: DriverSetupOptions): void {
  if (runSetupGit(opts, ['rev-parse', '--git-dir']).status !== 0) {
    throw new GcError('driver/not-a-repository', `${opts.cwd ?? process.cwd()} is not inside a git repository; run this in your repository, or use --global`, {
      exitCode: ExitCode.invalidInput,
    });
  }
}

/**
 * The directory an install copies the driver to: `<git common dir>/gcpatch/driver` (local) or
 * `$XDG_DATA_HOME/gcpatch/driver` (default `~/.local/share/gcpatch/driver`, global). Neither moves
 * with, nor disappears with, the gcpatch checkout or global npm install that ran `driver install`.
 */
export function installDirectory(opts: DriverSetupOptions): string {
  if (opts.installDir !== undefined) return resolve(opts.installDir);
  if (opts.global) {
    const xdg = process.env.XDG_DATA_HOME;
    return join(xdg && isAbsolute(xdg) ? xdg : join(homedir(), '.local', 'share'), 'gcpatch', 'driver');
  }
  const p = setupGitOutput(opts, ['rev-parse', '--git-common-dir']).trim();
  return join(isAbsolute(p) ? p : resolve(opts.cwd ?? process.cwd(), p), 'gcpatch', 'driver');
}

/**
 * The service folder the configured line uses in `opts.cwd`'s repository: next to an `installDir`
 * (tests), `<git common dir>/gcpatch/service` otherwise; undefined outside a repository.
 */
export function serviceFolderOf(opts: DriverSetupOptions, dir?: string): string | undefined {
  if (opts.installDir !== undefined && dir !== undefined) return join(dir, '..', 'service');
  const r = runSetupGit(opts, ['rev-parse', '--git-common-dir']);
  if (r.status !== 0) return undefined;
  const p = r.stdout.trim();
  return serviceFolder(isAbsolute(p) ? p : resolve(opts.cwd ?? process.cwd(), p));
}
