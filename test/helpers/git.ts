/**
 * The real `git` binary for tests, isolated from the user's and the system's configuration: no
 * global or system config (GIT_CONFIG_GLOBAL=/dev/null, GIT_CONFIG_NOSYSTEM=1), HOME and
 * XDG_CONFIG_HOME in a temporary folder, a fixed author and committer and fixed dates, so that
 * commits are the same bytes on every machine. {@link git} throws with git's stderr on failure.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** The identity every test commit is made with (unless a test passes another one). */
export const TEST_IDENTITY = { name: 'Test Author', email: 'author@example.invalid' } as const;

/** The date every test commit carries unless a test passes another (`git` date format). */
export const TEST_DATE = '2026-01-01T00:00:00Z';

let home: string | undefined;

/** A HOME for git of this test process: an empty folder under the run's temporary root. */
function testHome(): string {
  home ??= mkdtempSync(join(tmpdir(), 'gcpatch-home-'));
  return home;
}

/** Options of one git run. */
export interface GitOptions {
  /** Variables added to (or overriding) the isolated environment. */
  env?: Record<string, string>;
  /** Author and committer date (default {@link TEST_DATE}). */
  date?: string;
  /** Author and committer (default {@link TEST_IDENTITY}). */
  identity?: { name: string; email: string };
  /** Bytes on git's standard input. */
  input?: string | Uint8Array;
}

/** The environment git runs with in tests: the process's, isolated as the file's doc says. */
export function gitEnv(options: GitOptions = {}): NodeJS.ProcessEnv {
  const h = testHome();
  const who = options.identity ?? TEST_IDENTITY;
  const date = options.date ?? TEST_DATE;
  return {
    ...process.env,
    HOME: h,
    XDG_CONFIG_HOME: join(h, '.config'),
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_AUTHOR_NAME: who.name,
    GIT_AUTHOR_EMAIL: who.email,
    GIT_COMMITTER_NAME: who.name,
    GIT_COMMITTER_EMAIL: who.email,
    GIT_AUTHOR_DATE: date,
    GIT_COMMITTER_DATE: date,
    ...options.env,
  };
}

/** What one git run gave. */
export interface GitRun {
  status: number;
  stdout: string;
  stderr: string;
}

/** Runs `git ...args` in `cwd` and returns its status and output; never throws (for runs expected to fail). */
export function tryGit(cwd: string, args: readonly string[], options: GitOptions = {}): GitRun {
  const r = spawnSync('git', args, { cwd, encoding: 'utf8', env: gitEnv(options), ...(options.input !== undefined ? { input: options.input } : {}) });
  return { status: r.status ?? -1, stdout: r.stdout ?? '', stderr: r.stderr ?? r.error?.message ?? '' };
}

/** Runs `git ...args` in `cwd` and returns its trimmed stdout; throws with git's stderr when it fails. */
export function git(cwd: string, ...args: string[]): string {
  return gitWith(cwd, args);
}

/** {@link git} with options (environment, date, identity, input). */
export function gitWith(cwd: string, args: readonly string[], options: GitOptions = {}): string {
  const r = tryGit(cwd, args, options);
  if (r.status !== 0) throw new Error(`git ${args.join(' ')} failed (exit ${r.status}) in ${cwd}: ${r.stderr}`);
  return r.stdout.trim();
}

/**
 * `git init -q -b main` in `dir` with commit signing off and the test identity in the repository's
 * own config too (for tests that also run git or the CLI without this helper); returns `dir`.
 */
export function initRepo(dir: string = mkdtempSync(join(tmpdir(), 'gcpatch-git-'))): string {
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'config', 'user.name', TEST_IDENTITY.name);
  git(dir, 'config', 'user.email', TEST_IDENTITY.email);
  git(dir, 'config', 'commit.gpgsign', 'false');
  return dir;
}

/** A temporary repository and the operations tests make on it. */
export interface TempRepo {
  dir: string;
  /** {@link git} in the repository. */
  git: (...args: string[]) => string;
  /** Writes files (repository-relative path → content; `null` deletes). */
  write: (files: Record<string, string | null>) => void;
  /** Writes files, stages everything and commits; returns the new commit's oid. */
  commit: (message: string, files?: Record<string, string | null>) => string;
  /** Removes the repository. */
  cleanup: () => void;
}

/** A repository on `main` in a fresh temporary folder ({@link initRepo}). */
export function tempRepo(): TempRepo {
  const dir = initRepo();
  const run = (...args: string[]): string => git(dir, ...args);
  const write = (files: Record<string, string | null>): void => {
    for (const [path, content] of Object.entries(files)) {
      const file = join(dir, path);
      if (content === null) rmSync(file, { force: true });
      else {
        mkdirSync(dirname(file), { recursive: true });
        writeFileSync(file, content);
      }
    }
  };
  const commit = (message: string, files: Record<string, string | null> = {}): string => {
    write(files);
    run('add', '-A');
    run('commit', '-q', '--allow-empty', '-m', message);
    return run('rev-parse', 'HEAD');
  };
  return { dir, git: run, write, commit, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
