// Opening a package's history for blame, why and log: the repository, the revisions, the package and the module a command names.
import { openRepository, resolveRevision, GitCode } from '../git/repository.js';
import { findPackageAtCommit, listPackagesAtCommit, normalizeRepoPath } from '../git/workspace.js';
import { repositoryPath } from '../git/repo-path.js';
import { ExitCode, GcError, isGcError } from '../util/errors.js';
import { BlameCode } from './codes.js';
import { PackageHistory } from './walk.js';

/** What a command names. Paths are as the user typed them, relative to `cwd`. */
export interface OpenOptions {
  /** The directory the command runs in (default: the current directory). */
  cwd?: string;
  /** The revision to start from (default `HEAD`). */
  rev?: string;
  /** Stop at commits reachable from this revision. */
  since?: string;
  /** The package: its directory or `package.toml`. */
  pkg?: string;
  /** A module file (a path), to find the package from and to check. */
  module?: string;
}

/** An opened history and, when one was named, the module's package-relative path. */
export interface OpenedHistory {
  history: PackageHistory;
  module: string | undefined;
}

/**
 * Opens the repository around `cwd`, resolves `rev` and `since`, finds the package (from `--pkg`,
 * else from the module's path, else the package containing `cwd`, else the head's only package),
 * checks the module is listed by the head's manifest, and walks the history.
 * @throws GcError `git/not-a-repository`, `git/unknown-revision`, `git/package-not-found`,
 *   `blame/unknown-module`, `blame/unreadable-head` (exit 10); `git/missing-commit` (exit 70).
 */
export async function openPackageHistory(options: OpenOptions): Promise<OpenedHistory> {
  const cwd = options.cwd ?? process.cwd();
  const repo = await openRepository(cwd);
  const rev = options.rev ?? 'HEAD';
  const head = await resolveRevision(repo, rev);
  const since = options.since === undefined ? undefined : await resolveRevision(repo, options.since);
  let dir: string;
  if (options.pkg !== undefined) {
    dir = (await findPackageAtCommit(repo, head, repositoryPath(repo.dir, cwd, options.pkg))).dir;
  } else if (options.module !== undefined) {
    dir = (await findPackageAtCommit(repo, head, repositoryPath(repo.dir, cwd, options.module))).dir;
  } else {
    try {
      dir = (await findPackageAtCommit(repo, head, repositoryPath(repo.dir, cwd, '.'))).dir;
    } catch (error) {
      if (!isGcError(error) || error.code !== GitCode.packageNotFound) throw error;
      const all = await listPackagesAtCommit(repo, head);
      if (all.length !== 1) {
        throw new GcError(
          GitCode.packageNotFound,
          `${rev} has ${all.length === 0 ? 'no package.toml' : `${all.length} packages (${all.map((p) => p.dir || '.').join(', ')})`}; name one with --pkg`,
          { location: { at: rev } },
        );
      }
      dir = all[0]!.dir;
    }
  }
  const history = await PackageHistory.walk(repo, { dir, head, ...(since !== undefined ? { since } : {}) });
  const snapshot = await history.snapshot(head);
  if (snapshot === undefined || snapshot instanceof Error) {
    const manifestPath = dir === '' ? 'package.toml' : `${dir}/package.toml`;
    throw new GcError(
      BlameCode.unreadableHead,
      `the package at ${manifestPath} cannot be read at ${rev}: ${snapshot instanceof Error ? snapshot.message : 'no package.toml'}; fix it (gcpatch fmt, verify-pins) or pick another --rev`,
      { location: { file: (isGcError(snapshot) && snapshot.location.file) || manifestPath, at: rev } },
    );
  }
  let module: string | undefined;
  if (options.module !== undefined) {
    // the path from the current directory, else (with --pkg) the path inside the package
    const fromCwd = repositoryPath(repo.dir, cwd, options.module);
    const candidates = [dir === '' ? fromCwd : fromCwd.startsWith(`${dir}/`) ? fromCwd.slice(dir.length + 1) : undefined];
    if (options.pkg !== undefined) candidates.push(normalizeRepoPath(options.module));
    module = candidates.find((c): c is string => c !== undefined && snapshot.byPath.has(c));
    if (module === undefined) {
      throw new GcError(
        BlameCode.unknownModule,
        `${options.module} is not a module of package ${snapshot.manifest.name} at ${rev} (${snapshot.manifestPath} lists ${[...snapshot.byPath.keys()].join(', ') || 'none'})`,
        { exitCode: ExitCode.invalidInput, location: { file: options.module, at: rev }, details: { modules: [...snapshot.byPath.keys()] } },
      );
    }
  }
  return { history, module };
}
