/**
 * The one conversion of a path typed in a working directory into a repository path (the path
 * `git show REV:PATH` takes: `/`-separated, relative to the work tree's root, `""` for the root).
 */
import { realpathSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { GcError } from '../util/errors.js';
import { GitCode } from './repository.js';
import { normalizeRepoPath } from './workspace.js';

/** `path` through the file system's links (`realpathSync`), or as resolved when it does not exist (yet). */
function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

/**
 * Whether the relative path `rel` (from `relative(root, x)`) leaves `root`: it is `..` or starts
 * with a `..` component, or is absolute (another drive). A name that merely starts with two dots
 * (`..foo`) is inside.
 */
function leaves(rel: string): boolean {
  return rel === '..' || rel.startsWith(`..${sep}`) || rel.startsWith('../') || isAbsolute(rel);
}

/**
 * The repository path of `path` (default `.`) as typed in `cwd`, `undefined` when it lies outside
 * the work tree `root`. Both sides are resolved through symbolic links first (`realpathSync`; a
 * part that does not exist yet is taken as typed), so a checkout reached through a link (macOS's
 * `/tmp`, a linked home) is the same tree.
 * @param root the work tree's root (e.g. `GitRepository.dir`).
 * @param cwd the directory `path` is relative to.
 * @returns `/`-separated, no `.` or `..` components, `""` for the root.
 */
export function repositoryPathOrUndefined(root: string, cwd: string, path = '.'): string | undefined {
  const rel = relative(real(root), real(resolve(real(cwd), path)));
  if (leaves(rel)) return undefined;
  return normalizeRepoPath(rel.split(sep).join('/'));
}

/**
 * {@link repositoryPathOrUndefined}, refusing a path outside the work tree.
 * @throws GcError `git/package-not-found` (exit 10) naming `path` and the repository when `path`
 *   lies outside `root`.
 */
export function repositoryPath(root: string, cwd: string, path = '.'): string {
  const inside = repositoryPathOrUndefined(root, cwd, path);
  if (inside === undefined) {
    throw new GcError(GitCode.packageNotFound, `${path} is outside the repository at ${root}`, { location: { file: path } });
  }
  return inside;
}
