/**
 * Loading the package a refactor is planned on (the I/O edge of `src/refactor/`): from disk, or
 * at a git revision with isomorphic-git. Either way the result is the closed request (modules in
 * manifest order, canonical forms) plus the raw module bytes the edit-plan export needs.
 */
import { join, relative } from 'node:path';
import { openRepository, readFileAtCommit, resolveRevision } from '../git/repository.js';
import { findPackageAtCommit } from '../git/workspace.js';
import { repositoryPath } from '../git/repo-path.js';
import { GitCode } from '../git/repository.js';
import { GcError } from '../util/errors.js';
import { parseManifest } from '../workspace/manifest.js';
import { loadPackage } from '../workspace/package.js';
import { refactorRequestFromPackage, refactorRequestFromSources, type RefactorParams, type RefactorRequest, type RequestModuleSource } from './request.js';

/** A package loaded for planning. */
export interface LoadedRefactorPackage {
  request: RefactorRequest;
  /** The module sources in manifest order (bytes as on disk or in the commit). */
  sources: RequestModuleSource[];
  /** Absolute package directory in the work tree (for a revision: where that package lives now). */
  packageDir: string;
  /** Package directory relative to the repository root (`""` = root); only for a revision. */
  repoPackageDir: string | undefined;
  /** The commit oid for a revision. */
  commit: string | undefined;
  /** Short human label: the directory, or `<oid12>:<package path>`. */
  label: string;
}

/**
 * Loads the package at `pkg` (a directory or its `package.toml`; default the current directory)
 * and builds the request for `params`.
 * @throws GcError `manifest/*`, `core/parse/*`, `core/canon/*`, `refactor/request-invalid` (exit
 *   10), `io/*` (exit 70).
 */
export function loadRefactorFromDisk(params: RefactorParams, pkg = '.'): LoadedRefactorPackage {
  const loaded = loadPackage(pkg);
  return {
    request: refactorRequestFromPackage(loaded, params),
    sources: loaded.modules.map((m) => ({ modulePath: m.path, bytes: m.bytes, file: m.file })),
    packageDir: loaded.dir,
    repoPackageDir: undefined,
    commit: undefined,
    label: relative(process.cwd(), loaded.dir) || '.',
  };
}

/**
 * Loads the package at git revision `rev` of the repository containing `cwd` and builds the
 * request for `params`. `pkg` names the package inside the commit: a path relative to `cwd`
 * (default `.`, the package containing `cwd`), resolved to a repository path; the nearest
 * directory at or above it holding a `package.toml` blob is the package.
 * @throws GcError `git/not-a-repository`, `git/unknown-revision`, `git/package-not-found`,
 *   `git/file-not-found`, `manifest/*`, `core/*` (exit 10); `git/missing-commit` (exit 70).
 */
export async function loadRefactorAtRevision(params: RefactorParams, rev: string, pkg = '.', cwd = process.cwd()): Promise<LoadedRefactorPackage> {
  const repo = await openRepository(cwd);
  const commit = await resolveRevision(repo, rev);
  const location = await findPackageAtCommit(repo, commit, repositoryPath(repo.dir, cwd, pkg));
  const at = (p: string): string => `${commit.slice(0, 12)}:${p}`;
  const manifestBytes = (await readFileAtCommit(repo, commit, location.manifestPath))!;
  const manifest = parseManifest(new TextDecoder().decode(manifestBytes), at(location.manifestPath));
  const sources: RequestModuleSource[] = [];
  for (const m of manifest.modules) {
    const filepath = location.dir === '' ? m.path : `${location.dir}/${m.path}`;
    const bytes = await readFileAtCommit(repo, commit, filepath);
    if (bytes === undefined) {
      throw new GcError(GitCode.fileNotFound, `${location.manifestPath} lists module ${m.path}, but commit ${commit} has no file ${filepath}`, {
        location: { file: at(filepath) },
      });
    }
    sources.push({ modulePath: m.path, bytes, file: at(filepath) });
  }
  return {
    request: refactorRequestFromSources(params, sources),
    sources,
    packageDir: join(repo.dir, ...location.dir.split('/').filter((p) => p !== '')),
    repoPackageDir: location.dir,
    commit,
    label: at(location.dir || '.'),
  };
}
