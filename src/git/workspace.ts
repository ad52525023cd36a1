/**
 * Loading a package's workspace at a git commit: find the package directory and its
 * `package.toml` in the commit's tree from a path argument, parse the manifest, read and
 * canonicalize every module it lists (docs/reference/patch-protocols.md §3.4 workspaces, §4 package.toml).
 */
import { posix } from 'node:path';
import { parseManifest, type Manifest } from '../workspace/manifest.js';
import { workspaceFromSources, type Workspace } from '../workspace/workspace.js';
import { GcError } from '../util/errors.js';
import { commitTree, entryAtCommit, GitCode, readFileAtCommit, readTreeEntries, type GitRepository } from './repository.js';

/** A package located in a commit: `dir` is repository-relative (`""` for the root). */
export interface PackageLocation {
  dir: string;
  manifestPath: string;
}

/** Normalizes a repository-relative path: `/` separators, no `./`, no leading/trailing `/`. */
export function normalizeRepoPath(path: string): string {
  const parts: string[] = [];
  for (const part of path.replace(/\\/g, '/').split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (parts.length === 0) throw new GcError(GitCode.packageNotFound, `path ${JSON.stringify(path)} leaves the repository`);
      parts.pop();
    } else parts.push(part);
  }
  return parts.join('/');
}

/**
 * Finds the package for a path in a commit: `path` may be the package directory, its
 * `package.toml`, or any file or directory inside the package; the nearest directory at or above
 * it that holds a `package.toml` blob is the package.
 * @param path repository-relative (`""` = repository root).
 * @throws GcError `git/package-not-found` (exit 10), `git/missing-commit` (exit 70).
 */
export async function findPackageAtCommit(repo: GitRepository, commitOid: string, path: string): Promise<PackageLocation> {
  let dir = normalizeRepoPath(path);
  if (posix.basename(dir) === 'package.toml') dir = posix.dirname(dir) === '.' ? '' : posix.dirname(dir);
  for (;;) {
    const manifestPath = dir === '' ? 'package.toml' : `${dir}/package.toml`;
    const entry = await entryAtCommit(repo, commitOid, manifestPath);
    if (entry?.type === 'blob') return { dir, manifestPath };
    if (dir === '') break;
    const parent = posix.dirname(dir);
    dir = parent === '.' ? '' : parent;
  }
  throw new GcError(GitCode.packageNotFound, `no package.toml at or above ${JSON.stringify(normalizeRepoPath(path) || '.')} in commit ${commitOid}`, {
    location: { at: normalizeRepoPath(path) || '.' },
  });
}

/**
 * Every package in a commit: the repository-relative directories holding a `package.toml` blob,
 * in tree order (`""` for the root). Reads the whole tree; use for discovery, not per file.
 * @throws GcError `git/missing-commit` (exit 70).
 */
export async function listPackagesAtCommit(repo: GitRepository, commitOid: string): Promise<PackageLocation[]> {
  const out: PackageLocation[] = [];
  const pending: { dir: string; oid: string }[] = [{ dir: '', oid: await commitTree(repo, commitOid) }];
  while (pending.length > 0) {
    const { dir, oid } = pending.shift()!;
    for (const e of await readTreeEntries(repo, oid)) {
      const path = dir === '' ? e.path : `${dir}/${e.path}`;
      if (e.type === 'tree') pending.push({ dir: path, oid: e.oid });
      else if (e.type === 'blob' && e.path === 'package.toml') out.push({ dir, manifestPath: path });
    }
  }
  return out;
}

/** A package's workspace read from a commit. */
export interface CommitPackage {
  commit: string;
  location: PackageLocation;
  manifest: Manifest;
  workspace: Workspace;
}

/**
 * Loads the workspace of the package at `path` in a commit: the modules its manifest lists, read
 * from the commit's tree (never the work tree) and canonicalized.
 * @param commitOid a commit oid (see `resolveRevision`).
 * @param path repository-relative path to the package directory, its manifest or a file inside it.
 * @throws GcError `git/package-not-found`, `git/file-not-found`, `manifest/*`, `core/parse/*`,
 *   `core/canon/*`, `workspace/*` (exit 10); `git/missing-commit` (exit 70).
 * @example const { workspace } = await loadWorkspaceAtCommit(repo, await resolveRevision(repo, 'main'), 'pkg')
 */
export async function loadWorkspaceAtCommit(repo: GitRepository, commitOid: string, path = ''): Promise<CommitPackage> {
  const location = await findPackageAtCommit(repo, commitOid, path);
  const at = (p: string) => `${commitOid.slice(0, 12)}:${p}`;
  const manifestBytes = (await readFileAtCommit(repo, commitOid, location.manifestPath))!;
  const manifest = parseManifest(new TextDecoder().decode(manifestBytes), at(location.manifestPath));
  const sources = await Promise.all(
    manifest.modules.map(async (m) => {
      const filepath = location.dir === '' ? m.path : `${location.dir}/${m.path}`;
      const bytes = await readFileAtCommit(repo, commitOid, filepath);
      if (bytes === undefined) {
        throw new GcError(GitCode.fileNotFound, `${location.manifestPath} lists module ${m.path}, but commit ${commitOid} has no file ${filepath}`, {
          location: { file: at(filepath) },
        });
      }
      return { modulePath: m.path, bytes, file: at(filepath) };
    }),
  );
  return { commit: commitOid, location, manifest, workspace: workspaceFromSources(sources, at(location.dir || '.')) };
}
