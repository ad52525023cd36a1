/**
 * The filesystem side of patching: inspecting path states (rejecting symlinks), loading a package
 * into a {@link PackageState}, and packing on disk. Everything that decides lives in the pure
 * modules; this file only reads and writes.
 */
import { lstatSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Term } from '../coreform/term.js';
import { ioError } from '../util/errors.js';
import { writeFileAtomic } from '../util/atomic.js';
import { parseManifestTable } from '../workspace/manifest-write.js';
import { parseManifest, type ManifestDependency } from '../workspace/manifest.js';
import { canonicalizeFile, resolveManifestPath } from '../workspace/package.js';
import { assertPortablePath } from '../workspace/path.js';
import { EvidenceStore } from '../store/store.js';
import { PatchCode, patchError } from './errors.js';
import { packState, type PackResult } from './pack.js';
import type { PathState, PathStateRecord } from './preflight.js';
import type { PackageState } from './state.js';

/** The absolute file of a portable module path inside `packageDir`. */
export function modulePathOnDisk(packageDir: string, modulePath: string): string {
  return join(packageDir, ...modulePath.split('/'));
}

/**
 * The state of one package-relative path: each component is `lstat`ed from the package directory
 * down; a missing component makes the path `absent`, a non-directory intermediate component makes
 * it `other`, and the final component is `file` (regular file) or `other`.
 * @throws GcError `patch/non-portable-path` for a non-portable path (checked before any access);
 *   `patch/symlink-path` when any component is a symbolic link; `io/*` for other I/O failures.
 */
export function inspectPathState(packageDir: string, modulePath: string): PathState {
  assertPortablePath(modulePath);
  const parts = modulePath.split('/');
  let current = packageDir;
  for (let i = 0; i < parts.length; i++) {
    current = join(current, parts[i]!);
    let st;
    try {
      st = lstatSync(current);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return 'absent';
      if (code === 'ENOTDIR') return 'other';
      throw ioError(error, current, 'inspect');
    }
    if (st.isSymbolicLink()) {
      throw patchError(PatchCode.symlinkPath, `${modulePath}: path component ${parts.slice(0, i + 1).join('/')} is a symbolic link; patches never follow symlinks`, {
        at: modulePath,
      });
    }
    if (i < parts.length - 1) {
      if (!st.isDirectory()) return 'other';
    } else {
      return st.isFile() ? 'file' : 'other';
    }
  }
  return 'absent';
}

/** {@link inspectPathState} for every path, as preflight records (input order kept). */
export function inspectPathStates(packageDir: string, paths: readonly string[]): PathStateRecord[] {
  return paths.map((path) => ({ path, state: inspectPathState(packageDir, path) }));
}

/** Reads a file, or `undefined` when it does not exist. @throws GcError `io/*` otherwise. */
export function readIfExists(file: string): Uint8Array | undefined {
  try {
    return readFileSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw ioError(error, file, 'read');
  }
}

/**
 * Loads a package into memory: the manifest table and the canonical forms of every listed module
 * plus every `extraPaths` entry that exists as a file.
 * @throws GcError `manifest/*`, `core/parse/*`, `core/canon/*` (exit 10), `io/*` (exit 70).
 */
export function loadPackageState(packageDir: string, manifestText: string, manifestFile: string, extraPaths: readonly string[] = []): PackageState {
  const manifest = parseManifest(manifestText, manifestFile);
  const table = parseManifestTable(manifestText, manifestFile);
  const modules = new Map<string, readonly Term[]>();
  const load = (path: string, required: boolean) => {
    if (modules.has(path)) return;
    const file = modulePathOnDisk(packageDir, path);
    const bytes = required ? readRequired(file) : readIfExists(file);
    if (bytes === undefined) return;
    modules.set(path, canonicalizeFile(bytes, file));
  };
  for (const m of manifest.modules) load(m.path, true);
  for (const p of extraPaths) if (inspectPathState(packageDir, p) === 'file') load(p, false);
  return { manifest: table, modules };
}

function readRequired(file: string): Uint8Array {
  try {
    return readFileSync(file);
  } catch (error) {
    throw ioError(error, file, 'read module');
  }
}

/**
 * The package artifact of a dependency: its package is loaded from `<packageDir>/<dep.path>`
 * (a directory holding `package.toml`, or the file itself) and packed in memory, recursively.
 * @throws GcError `patch/manifest-entry` on a dependency cycle or more than 64 levels.
 */
export function dependencyArtifactOnDisk(packageDir: string, dep: Pick<ManifestDependency, 'path'>, stack: readonly string[] = []): string {
  const manifestFile = resolveManifestPath(modulePathOnDisk(packageDir, dep.path));
  if (stack.includes(manifestFile) || stack.length > 64) {
    throw patchError(PatchCode.manifestEntry, `dependency cycle through ${manifestFile}`, { at: dep.path });
  }
  const text = readRequired(manifestFile);
  const dir = dirname(manifestFile);
  const state = loadPackageState(dir, Buffer.from(text).toString('utf8'), manifestFile);
  return packState(state, (d) => dependencyArtifactOnDisk(dir, d, [...stack, manifestFile])).packageArtifact;
}

/** Options of {@link packOnDisk}. */
export interface PackOnDiskOptions {
  faults?: (step: string) => void;
  store?: EvidenceStore;
}

/**
 * `gcpatch pack`: loads the package, re-pins every module (and dependency) hash, rewrites
 * `package.toml` in the reference's style and stores the package record.
 * @returns the pack result (see `pack.ts`) with the store used.
 */
export function packOnDisk(manifestArg: string, options: PackOnDiskOptions = {}): PackResult & { store: EvidenceStore; manifestFile: string } {
  const manifestFile = resolveManifestPath(manifestArg);
  const dir = dirname(manifestFile);
  const text = readRequired(manifestFile);
  const state = loadPackageState(dir, Buffer.from(text).toString('utf8'), manifestFile);
  return packStateOnDisk(dir, manifestFile, state, options);
}

/** Packs an in-memory state and writes its manifest and package record (shared by pack and apply). */
export function packStateOnDisk(
  packageDir: string,
  manifestFile: string,
  state: PackageState,
  options: PackOnDiskOptions = {},
): PackResult & { store: EvidenceStore; manifestFile: string } {
  const packed = packState(state, (d) => dependencyArtifactOnDisk(packageDir, d));
  options.faults?.('pack:write-manifest');
  writeFileAtomic(manifestFile, packed.manifestText);
  const store = options.store ?? EvidenceStore.forPackage(packageDir);
  options.faults?.('pack:store-package-record');
  store.putTerm(packed.packageRecord);
  return { ...packed, store, manifestFile };
}
