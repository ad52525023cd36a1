/**
 * Workspace sources of the `diff` and `merge` commands: each side is either a package directory on
 * disk or `REV[:PATH]`, a package at a git revision of the repository containing the current
 * directory. Rule: an argument naming an existing directory or file on disk is read from disk;
 * anything else is a revision.
 */
import { existsSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import type { Workspace } from '../workspace/workspace.js';
import { loadWorkspace } from '../workspace/workspace.js';
import { isGcError } from '../util/errors.js';
import { GitCode, openRepository, resolveRevision, type GitRepository } from './repository.js';
import { findPackageAtCommit, listPackagesAtCommit, loadWorkspaceAtCommit, normalizeRepoPath } from './workspace.js';
import { repositoryPath, repositoryPathOrUndefined } from './repo-path.js';

/** A loaded side. `packageDir` is absolute (for a revision: the same package in the work tree). */
export interface WorkspaceSource {
  /** The argument as given. */
  spec: string;
  origin: 'directory' | 'revision';
  workspace: Workspace;
  packageDir: string;
  /** The commit oid for a revision. */
  commit: string | undefined;
  /** A short human label: the directory, or `<oid12>:<package path>`. */
  label: string;
}

/**
 * Splits `REV[:PATH]` at the first `:` (ref names cannot contain `:`).
 * @returns `path` undefined when there is no `:`.
 */
export function parseRevisionSpec(spec: string): { rev: string; path: string | undefined } {
  const i = spec.indexOf(':');
  return i < 0 ? { rev: spec, path: undefined } : { rev: spec.slice(0, i), path: spec.slice(i + 1) };
}

/**
 * The package used for a bare `REV`: the one containing `cwdInRepo` when there is one, else the
 * only package of the commit when it has exactly one (so `gcpatch merge --base X --left a --right b`
 * works from the repository root of a one-package repository).
 */
async function defaultPackagePath(repo: GitRepository, commit: string, cwdInRepo: string): Promise<string> {
  try {
    return (await findPackageAtCommit(repo, commit, cwdInRepo)).dir;
  } catch (error) {
    if (!isGcError(error) || error.code !== GitCode.packageNotFound) throw error;
    const all = await listPackagesAtCommit(repo, commit);
    if (all.length === 1) return all[0]!.dir;
    throw all.length === 0 ? error : error.withLocation({ at: `packages in the commit: ${all.map((p) => p.dir || '.').join(', ')}; name one with REV:PATH` });
  }
}

/**
 * Returns a loader of workspace sources that shares one repository (and object cache) between
 * calls. For `REV[:PATH]`: `PATH` is relative to the repository root as in `git show REV:PATH`,
 * or to `cwd` when it starts with `./` or `../`; without `:PATH` the package containing `cwd` is
 * used, or the commit's only package when `cwd` is in none. `PATH` may name the package
 * directory, its `package.toml` or any file inside the package.
 * @param cwd directory used for relative paths and to find the repository; default `process.cwd()`.
 * @throws (from the loader) GcError `manifest/*`, `core/*`, `workspace/*`, `git/unknown-revision`,
 *   `git/package-not-found`, `git/file-not-found`, `git/not-a-repository` (exit 10);
 *   `git/missing-commit`, `io/*` (exit 70).
 * @example const load = workspaceSourceLoader(); const left = await load('main:pkg');
 */
export function workspaceSourceLoader(cwd: string = process.cwd()): (spec: string) => Promise<WorkspaceSource> {
  let repo: Promise<GitRepository> | undefined;
  return async (spec) => {
    const onDisk = resolve(cwd, spec);
    if (spec !== '' && existsSync(onDisk)) {
      const { workspace, pkg } = loadWorkspace(onDisk);
      return { spec, origin: 'directory', workspace, packageDir: pkg.dir, commit: undefined, label: relative(cwd, pkg.dir) || '.' };
    }
    repo ??= openRepository(cwd);
    const r = await repo;
    const { rev, path } = parseRevisionSpec(spec);
    const repoPath =
      path === undefined
        ? (repositoryPathOrUndefined(r.dir, cwd) ?? '')
        : path.startsWith('./') || path.startsWith('../')
          ? repositoryPath(r.dir, cwd, path)
          : path;
    const commit = await resolveRevision(r, rev);
    let packagePath = normalizeRepoPath(repoPath);
    if (path === undefined) packagePath = await defaultPackagePath(r, commit, packagePath);
    const loaded = await loadWorkspaceAtCommit(r, commit, packagePath);
    return {
      spec,
      origin: 'revision',
      workspace: loaded.workspace,
      packageDir: join(r.dir, ...loaded.location.dir.split('/').filter((p) => p !== '')),
      commit,
      label: `${commit.slice(0, 12)}:${loaded.location.dir || '.'}`,
    };
  };
}
