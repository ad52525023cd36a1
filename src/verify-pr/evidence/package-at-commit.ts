/**
 * A package as it is at one commit, read from git objects (never the work tree): the manifest
 * text and table, every module's bytes, canonical forms and hash, and the evidence-store listing.
 * Unlike `git/workspace.ts` (which builds a diff/merge workspace) this keeps the raw bytes, so
 * findings can point at a line, and the manifest table, so a patch can be replayed on it.
 */
import * as fs from 'node:fs';
import { posix } from 'node:path';
import { canonicalizeSource } from '../../coreform/canon.js';
import { hashModule } from '../../coreform/hash.js';
import type { Term } from '../../coreform/term.js';
import { commitTree, entryAtCommit, missingCommitError, objectKindOfMode, readTreeEntries, type GitRepository, type TreeEntry } from '../../git/repository.js';
import type { PackageState } from '../../patch/protocol/state.js';
import { decodeUtf8Strict, isHex64 } from '../../util/bytes.js';
import { GcError, isGcError } from '../../util/errors.js';
import { parseManifestTable, type TomlTable } from '../../workspace/manifest-write.js';
import { parseManifest, type Manifest } from '../../workspace/manifest.js';
import { parse as parseToml } from 'smol-toml';

/** One manifest module at a commit. `file` is repository-relative. */
export interface CommitModule {
  path: string;
  file: string;
  bytes: Uint8Array;
  forms: readonly Term[];
  /** hash-module of the canonical forms (hex64). */
  hash: string;
  /** The manifest pin (`undefined` when absent). */
  pin: string | undefined;
}

/** A package read from a commit. Paths are repository-relative with `/` separators. */
export interface CommitPackageSnapshot {
  commit: string;
  /** Package directory (`''` = repository root). */
  dir: string;
  manifestPath: string;
  manifestText: string;
  manifest: Manifest;
  /** The manifest as an editable TOML table (integers as bigint). */
  table: TomlTable;
  /** Manifest order. */
  modules: CommitModule[];
  byPath: Map<string, CommitModule>;
  /**
   * Capability policy files, by package-relative path: the file `caps_policy` names and every other
   * policy file of the package directory, at any depth outside `.genesis/` and nested packages: by
   * name ({@link isPolicyName}: `toolcaps.toml`, which the reference CLI takes with `--caps`,
   * `ci/caps.ci.toml`, `caps/ci.toml`) or by content ({@link isPolicyText}: any other `.toml` file
   * with a top-level `allow` or `op`). Text as read; parsed by `caps-policy.ts`.
   */
  policies: Map<string, PolicyFile>;
}

/** One capability policy file of a package at a commit. */
export interface PolicyFile {
  /** Package-relative path. */
  path: string;
  /** Repository-relative path. */
  file: string;
  text: string;
  /** True when the manifest's `caps_policy` names this file. */
  referenced: boolean;
}

/** True for the git modes of a regular file (`100644`, and `100755` executable). */
function isRegular(entry: TreeEntry): boolean {
  const kind = objectKindOfMode(entry.mode);
  return entry.type === 'blob' && (kind === 'blob' || kind === 'executable');
}

function notRegular(what: string, file: string, entry: TreeEntry, manifestPath: string): GcError {
  const kind = objectKindOfMode(entry.mode);
  return new GcError(
    'audit/not-a-regular-file',
    `${what} ${file} is a ${kind === 'tree' ? 'directory' : kind === 'gitlink' ? 'gitlink (submodule)' : kind} (mode ${entry.mode}), not a regular file; ` +
      `gcpatch never reads ${kind === 'symlink' ? 'link text' : 'it'} as content: replace it with a regular file`,
    { location: { file: what === 'package directory' ? manifestPath : file }, details: { path: file, mode: entry.mode, kind } },
  );
}

/** Joins a package directory and a package-relative path into a repository-relative path. */
export function repoPath(dir: string, path: string): string {
  return dir === '' ? path : `${dir}/${path}`;
}

/** True when `manifestPath` (repository-relative) is a `package.toml` blob at the commit. */
export async function hasManifest(repo: GitRepository, commit: string, manifestPath: string): Promise<boolean> {
  return (await entryAtCommit(repo, commit, manifestPath))?.type === 'blob';
}

/**
 * Parsed modules by git blob oid, shared between the base and head reads of one run so that a
 * module the change did not touch is read and canonicalized once.
 */
export type ModuleCache = Map<string, Promise<{ bytes: Uint8Array; forms: Term[]; hash: string }>>;

/**
 * Reads the package whose directory is `dir` at `commit`.
 * @returns the snapshot, or `undefined` when the commit has no `package.toml` there.
 * @throws GcError `manifest/*`, `core/parse/*`, `core/canon/*` (exit 10, `location.file` =
 *   repository-relative path), `git/file-not-found` when a listed module is absent,
 *   `git/missing-commit` (exit 70).
 */
export async function readPackageAtCommit(
  repo: GitRepository,
  commit: string,
  dir: string,
  cache: ModuleCache = new Map(),
): Promise<CommitPackageSnapshot | undefined> {
  const manifestPath = repoPath(dir, 'package.toml');
  if (dir !== '') {
    const dirEntry = await entryAtCommit(repo, commit, dir);
    if (dirEntry !== undefined && dirEntry.type !== 'tree') throw notRegular('package directory', dir, dirEntry, manifestPath);
  }
  const manifestEntry = await entryAtCommit(repo, commit, manifestPath);
  if (manifestEntry === undefined) {
    // `Package.toml` is `package.toml` to a case-insensitive checkout (macOS, Windows): fail closed
    const root = dir === '' ? { type: 'tree' as const, oid: await commitTree(repo, commit) } : await entryAtCommit(repo, commit, dir);
    const variant = root?.type === 'tree' ? (await readTreeEntries(repo, root.oid)).find((e) => e.path.toLowerCase() === 'package.toml') : undefined;
    if (variant !== undefined) {
      throw new GcError(
        'audit/package-unreadable',
        `${repoPath(dir, variant.path)} stands where package.toml was: a case-insensitive checkout reads it as the manifest, git and gcpatch do not; name it package.toml`,
        {
          location: { file: repoPath(dir, variant.path) },
        },
      );
    }
    return undefined;
  }
  if (!isRegular(manifestEntry)) throw notRegular('the manifest', manifestPath, manifestEntry, manifestPath);
  const manifestBytes = (await repo.git.readBlob({ fs, dir: repo.dir, oid: manifestEntry.oid, cache: repo.cache })).blob;
  const manifestText = decodeUtf8Strict(manifestBytes);
  if (manifestText === undefined) {
    throw new GcError('manifest/invalid', 'package.toml is not valid UTF-8', { location: { file: manifestPath } });
  }
  const manifest = parseManifest(manifestText, manifestPath);
  const table = parseManifestTable(manifestText, manifestPath);
  const modules = await Promise.all(
    manifest.modules.map(async (m): Promise<CommitModule> => {
      const file = repoPath(dir, m.path);
      const entry = await entryAtCommit(repo, commit, file);
      if (entry === undefined) {
        throw new GcError('git/file-not-found', `${manifestPath} lists module ${m.path}, but the commit has no file ${file}`, {
          location: { file: manifestPath },
        });
      }
      if (!isRegular(entry)) throw notRegular('module', file, entry, manifestPath);
      let parsed = cache.get(entry.oid);
      if (parsed === undefined) {
        parsed = repo.git.readBlob({ fs, dir: repo.dir, oid: entry.oid, cache: repo.cache }).then(({ blob }) => {
          const forms = canonicalizeSource(blob);
          return { bytes: blob, forms, hash: hashModule(forms) };
        });
        cache.set(entry.oid, parsed);
      }
      let module;
      try {
        module = await parsed;
      } catch (error) {
        if (isGcError(error)) throw error.withLocation({ file });
        throw error;
      }
      return { path: m.path, file, bytes: module.bytes, forms: module.forms, hash: module.hash, pin: m.hash };
    }),
  );
  const policies = await readPolicies(repo, commit, dir, table, manifestPath);
  return { commit, dir, manifestPath, manifestText, manifest, table, modules, byPath: new Map(modules.map((m) => [m.path, m])), policies };
}

/**
 * True for the package-relative path of a capability policy file by its name: a `.toml` file whose
 * name, or the name of a directory it is in, contains `caps` (`caps.toml`, `toolcaps.toml` that the
 * reference CLI takes with `--caps`, `ci/caps.ci.toml`, `caps/ci.toml`), at any depth of the package
 * directory outside `.genesis/`, whether or not the manifest names it. `--caps` takes any path, so a
 * policy in a subdirectory is as much the package's as one beside its manifest (red-team round 5). A
 * nested package's own files are its own: {@link readPackageAtCommit} does not descend into a
 * directory holding a `package.toml`. Any other `.toml` file is a policy by its content
 * ({@link isPolicyText}, red-team round 6).
 */
export function isPolicyName(path: string): boolean {
  const parts = path.split('/');
  const name = parts[parts.length - 1]!;
  return !parts.slice(0, -1).includes('.genesis') && name !== 'package.toml' && name.toLowerCase().endsWith('.toml') && parts.some((p) => /caps/i.test(p));
}

/** True for a package-relative `.toml` path (not `package.toml`, not under `.genesis/`) whose content may make it a policy ({@link isPolicyText}). */
function mayBePolicy(path: string): boolean {
  const parts = path.split('/');
  const name = parts[parts.length - 1]!;
  return !parts.slice(0, -1).includes('.genesis') && name !== 'package.toml' && name.toLowerCase().endsWith('.toml');
}

/**
 * True when a `.toml` file's text is a capability policy by its content, whatever its name: TOML
 * whose top level has `allow` or `op`, the keys through which the reference loader grants ops
 * (docs/reference/caps-policy.md "Effective grants"). `--caps` takes any path, so a policy named
 * `ci/policy.toml` is read as one (red-team round 6); a file the loader would refuse but that has
 * these keys is judged as a policy too (a refused policy is read as allowing anything).
 */
export function isPolicyText(text: string): boolean {
  try {
    const table = parseToml(text.replace(/^\uFEFF/, '')) as Record<string, unknown>;
    return 'allow' in table || 'op' in table;
  } catch {
    return false;
  }
}

/** The package-relative path `caps_policy` names, when it is a string. */
export function capsPolicyPath(table: TomlTable): string | undefined {
  const v = table.caps_policy;
  return typeof v === 'string' ? v.replace(/^\.\//, '') : undefined;
}

async function readPolicies(repo: GitRepository, commit: string, dir: string, table: TomlTable, manifestPath: string): Promise<Map<string, PolicyFile>> {
  const out = new Map<string, PolicyFile>();
  const referenced = capsPolicyPath(table);
  const read = async (path: string, entry: TreeEntry): Promise<void> => {
    const file = repoPath(dir, path);
    if (!isRegular(entry)) throw notRegular('capability policy', file, entry, manifestPath);
    const text = decodeUtf8Strict((await repo.git.readBlob({ fs, dir: repo.dir, oid: entry.oid, cache: repo.cache })).blob);
    if (text === undefined) throw new GcError('manifest/invalid', `capability policy ${file} is not valid UTF-8`, { location: { file } });
    out.set(path, { path, file, text, referenced: path === referenced });
  };
  const root = await entryAtCommit(repo, commit, dir);
  if (root?.type === 'tree') {
    // every policy file of the package's tree: not under .genesis/, not in a nested package
    const pending: { prefix: string; oid: string }[] = [{ prefix: '', oid: root.oid }];
    while (pending.length > 0) {
      const { prefix, oid } = pending.pop()!;
      const entries = await readTreeEntries(repo, oid);
      if (prefix !== '' && entries.some((e) => e.path === 'package.toml')) continue;
      for (const e of entries) {
        const path = prefix === '' ? e.path : `${prefix}/${e.path}`;
        if (e.type === 'tree') {
          if (e.path !== '.genesis' && objectKindOfMode(e.mode) === 'tree') pending.push({ prefix: path, oid: e.oid });
        } else if (isPolicyName(path)) {
          await read(path, e);
        } else if (mayBePolicy(path) && isRegular(e)) {
          // a policy by its content (red-team round 6): `--caps` takes any path
          const text = decodeUtf8Strict((await repo.git.readBlob({ fs, dir: repo.dir, oid: e.oid, cache: repo.cache })).blob);
          if (text !== undefined && isPolicyText(text)) out.set(path, { path, file: repoPath(dir, path), text, referenced: path === referenced });
        }
      }
    }
  }
  if (referenced !== undefined && !out.has(referenced)) {
    const entry = await entryAtCommit(repo, commit, repoPath(dir, referenced));
    if (entry === undefined) {
      throw new GcError(
        'git/file-not-found',
        `${manifestPath} names caps_policy ${JSON.stringify(referenced)}, but the commit has no file ${repoPath(dir, referenced)}`,
        {
          location: { file: manifestPath },
        },
      );
    }
    await read(referenced, entry);
  }
  return out;
}

/** The in-memory patch state of a snapshot (manifest table and canonical forms), for replay. */
export function snapshotState(snapshot: CommitPackageSnapshot): PackageState {
  return { manifest: snapshot.table, modules: new Map(snapshot.modules.map((m) => [m.path, m.forms])) };
}

/**
 * The evidence-store listing of a package at a commit: entry name → git blob oid, for regular
 * files named by 64 lowercase hex digits (temp files and others are skipped, as GenesisCode's
 * whole-store verify does; a symlink or gitlink entry is never evidence — the path accounting
 * reports it as `audit/not-a-regular-file`).
 * @returns an empty map when the package has no store at that commit.
 */
export async function listStoreAtCommit(repo: GitRepository, commit: string, dir: string): Promise<Map<string, string>> {
  const storeDir = repoPath(dir, '.genesis/store');
  const entry = await entryAtCommit(repo, commit, storeDir);
  const out = new Map<string, string>();
  if (entry?.type !== 'tree') return out;
  for (const e of await readTreeEntries(repo, entry.oid)) {
    if (isRegular(e) && isHex64(e.path)) out.set(e.path, e.oid);
  }
  return out;
}

/** The repository-relative path of store entry `address` of the package in `dir`. */
export function storeEntryPath(dir: string, address: string): string {
  return repoPath(dir, posix.join('.genesis/store', address));
}

/** How far {@link nearestReadablePackage} walks back. */
export const NEAREST_READABLE_DEPTH = 200;

/**
 * The package at the nearest ancestor of `commit` (first parents, `commit` excluded) where it can be
 * read: what an unreadable state is judged against (docs/security.md "Unreadable means unverified").
 * @returns the snapshot and the commit, or `undefined` when an ancestor has no package (the package
 *   is newer) or none within {@link NEAREST_READABLE_DEPTH} commits can be read.
 * @throws GcError `git/missing-commit` (exit 70) when an ancestor is not in the clone.
 */
export async function nearestReadablePackage(
  repo: GitRepository,
  commit: string,
  dir: string,
  cache: ModuleCache = new Map(),
): Promise<{ snapshot: CommitPackageSnapshot; commit: string } | undefined> {
  let oid = commit;
  for (let i = 0; i < NEAREST_READABLE_DEPTH; i++) {
    let parent: string | undefined;
    try {
      parent = (await repo.git.readCommit({ fs, dir: repo.dir, oid, cache: repo.cache })).commit.parent[0];
    } catch (error) {
      if ((error as { code?: string } | undefined)?.code === 'NotFoundError') throw missingCommitError(repo, oid, 'ancestor commit', error);
      throw error;
    }
    if (parent === undefined) return undefined;
    oid = parent;
    try {
      const snapshot = await readPackageAtCommit(repo, oid, dir, cache);
      return snapshot === undefined ? undefined : { snapshot, commit: oid };
    } catch (error) {
      if (isGcError(error) && error.code === 'git/missing-commit') throw error;
    }
  }
  return undefined;
}
