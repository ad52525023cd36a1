/**
 * The filesystem side of patching: inspecting path states (rejecting symlinks), loading a package
 * into a {@link PackageState}, and packing on disk. Everything that decides lives in the pure
 * modules; this file only reads and writes.
 */
import { lstatSync, readFileSync, type Stats } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { SpannedModule } from '../../coreform/read.js';
import type { Term } from '../../coreform/term.js';
import { ioError, type GcCode } from '../../util/errors.js';
import { parseManifestTable } from '../../workspace/manifest-write.js';
import { parseManifest, type ManifestDependency } from '../../workspace/manifest.js';
import { canonicalizeFile, canonicalizeFileSpans, resolveManifestPath } from '../../workspace/package.js';
import { modulePathOnDisk } from '../../workspace/path.js';
import { firstPathProblem, PATCH_PATH_MAX_BYTES, PATCH_PATH_PROFILE } from '../../util/path-rules.js';
import { EvidenceStore } from '../../store/store.js';
import { PatchCode, patchError } from '../protocol/errors.js';
import { withPackageLock } from '../guard.js';
import { PackageTransaction, SimulatedCrash } from '../transaction.js';
import { packState, type PackResult } from './pack.js';
import type { PathState, PathStateRecord } from '../protocol/preflight.js';
import type { PackageState } from '../protocol/state.js';

export { modulePathOnDisk } from '../../workspace/path.js';

/**
 * Why a patch path is refused at the host boundary, or `undefined`. Checks, in order
 * (`PATCH_PATH_PROFILE` of `util/path-rules.ts`): the portable module-path rules; a reserved
 * segment — `.git`, `.gcpatch`, `.genesis` in any ASCII case, with trailing dots/spaces or
 * default-ignorable code points, or as an 8.3 short name; then the edit-plan portable-path rules
 * (weavatrix.edit-plan.v1 "Path rules", worded without their leading `path `: no `:`, control
 * characters, segments ending in `.`/space, Windows device names); then `package.toml` itself in
 * any case. The normalize report is unaffected (the reference accepts these paths); the host refuses.
 * @returns `{ code, problem }` with `code` `patch/non-portable-path` or `patch/reserved-path`.
 */
export function patchPathProblem(path: string): { code: GcCode; problem: string } | undefined {
  const problem = firstPathProblem(PATCH_PATH_PROFILE, path, PATCH_PATH_MAX_BYTES);
  if (problem === undefined) return undefined;
  const reserved = problem.rule === 'reservedSegment' || problem.rule === 'packageManifest';
  return { code: reserved ? PatchCode.reservedPath : PatchCode.nonPortablePath, problem: problem.message };
}

/**
 * Refuses a patch path that {@link patchPathProblem} rejects, before any access to it.
 * @param path the module path; @param field the op field it came from, for the message.
 * @throws GcError `patch/reserved-path` or `patch/non-portable-path` (exit 10).
 */
export function assertPatchPath(path: string, field = 'module path'): void {
  const p = patchPathProblem(path);
  if (p !== undefined) {
    throw patchError(p.code, `${field} ${JSON.stringify(path)} ${p.problem}; patches may only name modules of the package`, { at: path });
  }
}

/**
 * Refuses op paths of which one is a directory on the way to another (`x.gc` and `x.gc/y.gc`): no
 * package holds both, and the transaction would make the first a directory before it replaces or
 * removes it as a file. Checked with the other host path checks, before any access.
 * @param paths the op paths (`opReferencedPaths`).
 * @throws GcError `patch/path-collision` (exit 10) naming both paths.
 */
export function assertNoPathCollision(paths: readonly string[]): void {
  const all = new Set(paths);
  for (const p of paths) {
    for (let slash = p.indexOf('/'); slash !== -1; slash = p.indexOf('/', slash + 1)) {
      const above = p.slice(0, slash);
      if (all.has(above)) {
        throw patchError(
          PatchCode.pathCollision,
          `the patch names both ${JSON.stringify(above)} and ${JSON.stringify(p)}: ${above} cannot be a module and a directory holding ${p}; split the patch or rename one of them`,
          { at: p },
        );
      }
    }
  }
}

/**
 * `lstat` of one path component: its stats, `ENOENT` when it is missing, and `ENOTDIR` (when
 * `notDirectory` allows it) when a component above it is not a directory.
 * @throws GcError `io/*` for any other failure.
 */
function lstatComponent(path: string, notDirectory: false): Stats | 'ENOENT';
function lstatComponent(path: string, notDirectory: true): Stats | 'ENOENT' | 'ENOTDIR';
function lstatComponent(path: string, notDirectory: boolean): Stats | 'ENOENT' | 'ENOTDIR' {
  try {
    return lstatSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || (notDirectory && code === 'ENOTDIR')) return code;
    throw ioError(error, path, 'inspect');
  }
}

/**
 * Refuses a file gcpatch will replace (`package.toml`, `.genesis/last_acceptance`) when it or a
 * directory on its way from `packageDir` is a symbolic link (or the file is not a regular file):
 * gcpatch never replaces a link with a file nor writes through one.
 * @param relative the `/`-separated path under `packageDir`.
 * @throws GcError `patch/symlink-target` (exit 10); `io/*`.
 */
export function assertReplaceableTarget(packageDir: string, relative: string): void {
  const parts = relative.split('/');
  let current = packageDir;
  for (let i = 0; i < parts.length; i++) {
    current = join(current, parts[i]!);
    const st = lstatComponent(current, false);
    if (st === 'ENOENT') return;
    const last = i === parts.length - 1;
    if (st.isSymbolicLink() || (last ? !st.isFile() : !st.isDirectory())) {
      const what = st.isSymbolicLink() ? 'a symbolic link' : last ? 'not a regular file' : 'not a directory';
      throw patchError(
        PatchCode.symlinkTarget,
        `${current} is ${what}; gcpatch replaces only regular files and never writes through links — replace the link with the file it points to (e.g. \`cp --remove-destination "$(readlink -f ${parts.slice(0, i + 1).join('/')})" ${parts.slice(0, i + 1).join('/')}\`)`,
        { at: relative },
      );
    }
  }
}

/**
 * The state of one package-relative path: each component is `lstat`ed from the package directory
 * down; a missing component makes the path `absent`, a non-directory intermediate component makes
 * it `other`, and the final component is `file` (regular file) or `other`.
 * @throws GcError `patch/non-portable-path`, `patch/reserved-path` ({@link patchPathProblem}, checked before any access);
 *   `patch/symlink-path` when any component is a symbolic link; `io/*` for other I/O failures.
 */
export function inspectPathState(packageDir: string, modulePath: string): PathState {
  return inspectPathStateIn(packageDir, modulePath, undefined);
}

/**
 * {@link inspectPathState}, remembering in `directories` what each directory component's `lstat`
 * gave, so paths under one directory (`src/a.gc`, `src/b.gc`, …) inspect it once per call of
 * {@link inspectPathStates}.
 */
function inspectPathStateIn(packageDir: string, modulePath: string, directories: Map<string, Stats | 'ENOENT' | 'ENOTDIR'> | undefined): PathState {
  assertPatchPath(modulePath);
  const parts = modulePath.split('/');
  let current = packageDir;
  for (let i = 0; i < parts.length; i++) {
    current = join(current, parts[i]!);
    const last = i === parts.length - 1;
    let st = last ? undefined : directories?.get(current);
    if (st === undefined) {
      st = lstatComponent(current, true);
      if (!last) directories?.set(current, st);
    }
    if (st === 'ENOENT') return 'absent';
    if (st === 'ENOTDIR') return 'other';
    if (st.isSymbolicLink()) {
      throw patchError(
        PatchCode.symlinkPath,
        `${modulePath}: path component ${parts.slice(0, i + 1).join('/')} is a symbolic link; patches never follow symlinks`,
        {
          at: modulePath,
        },
      );
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
  const directories = new Map<string, Stats | 'ENOENT' | 'ENOTDIR'>();
  return paths.map((path) => ({ path, state: inspectPathStateIn(packageDir, path, directories) }));
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

/** A module file as loaded: its bytes, their canonical forms and, when asked for, the reader's node spans. */
export interface LoadedModuleText {
  bytes: Uint8Array;
  forms: readonly Term[];
  /** The spanned read of `bytes` (`canonicalizeSourceSpans`), for the `extraPaths` entries. */
  module?: SpannedModule;
}

/**
 * Loads a package into memory: the manifest table and the canonical forms of every listed module
 * plus every `extraPaths` entry that exists as a file.
 * @param sources when given, receives each loaded module as read (path → bytes, forms and, for the
 *   `extraPaths` entries, the node spans the format-preserving render needs), so a caller that needs
 *   them again need not read the file a second time.
 * @param extraStates the path state of each `extraPaths` entry when the caller has inspected them
 *   already (`inspectPathStates`, in the same order); inspected here otherwise.
 * @throws GcError `manifest/*`, `core/parse/*`, `core/canon/*` (exit 10), `io/*` (exit 70).
 */
export function loadPackageState(
  packageDir: string,
  manifestText: string,
  manifestFile: string,
  extraPaths: readonly string[] = [],
  sources?: Map<string, LoadedModuleText>,
  extraStates?: readonly PathStateRecord[],
): PackageState {
  const manifest = parseManifest(manifestText, manifestFile);
  const table = parseManifestTable(manifestText, manifestFile);
  const modules = new Map<string, readonly Term[]>();
  const withSpans = sources !== undefined ? new Set(extraPaths) : undefined;
  const load = (path: string, required: boolean) => {
    if (modules.has(path)) return;
    const file = modulePathOnDisk(packageDir, path);
    const bytes = required ? readRequired(file) : readIfExists(file);
    if (bytes === undefined) return;
    if (withSpans?.has(path) === true) {
      const read = canonicalizeFileSpans(bytes, file);
      modules.set(path, read.forms);
      sources!.set(path, { bytes, forms: read.forms, module: read.module });
    } else {
      const forms = canonicalizeFile(bytes, file);
      modules.set(path, forms);
      sources?.set(path, { bytes, forms });
    }
  };
  for (const m of manifest.modules) load(m.path, true);
  extraPaths.forEach((p, i) => {
    const known = extraStates?.[i];
    const state = known !== undefined && known.path === p ? known.state : inspectPathState(packageDir, p);
    if (state === 'file') load(p, false);
  });
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
  /** Fault hook (tests): `pack:write-manifest`, `pack:store-package-record` and the transaction's steps. */
  faults?: (step: string) => void;
  store?: EvidenceStore;
  /** Wait for a live lock owner, in milliseconds (default 0: fail at once with `patch/package-locked`). */
  lockWaitMs?: number;
}

/**
 * `gcpatch pack`: under the package lock (after recovering an interrupted transaction), loads the
 * package, re-pins every module (and dependency) hash, rewrites `package.toml` in the reference's
 * style through the journaled transaction (mode kept) and stores the package record.
 * @returns the pack result (see `pack.ts`) with the store used.
 * @throws GcError `patch/symlink-target` for a symlinked `package.toml` (nothing written),
 *   `patch/package-locked` (exit 70), `manifest/*`, `core/*`, `io/*`.
 */
export function packOnDisk(manifestArg: string, options: PackOnDiskOptions = {}): PackResult & { store: EvidenceStore; manifestFile: string } {
  const manifestFile = resolveManifestPath(manifestArg);
  const dir = dirname(manifestFile);
  const faults = options.faults ?? (() => {});
  assertReplaceableTarget(dir, basename(manifestFile));
  return withPackageLock(dir, { waitMs: options.lockWaitMs ?? 0, command: 'pack', fault: faults }, () => {
    const text = readRequired(manifestFile);
    const state = loadPackageState(dir, Buffer.from(text).toString('utf8'), manifestFile);
    const packed = packPackageState(dir, state);
    const store = options.store ?? EvidenceStore.forPackage(dir);
    const tx = PackageTransaction.begin(dir, 'pack', faults);
    try {
      tx.write([{ path: basename(manifestFile), bytes: Buffer.from(packed.manifestText, 'utf8'), step: 'pack:write-manifest' }]);
      faults('pack:store-package-record');
      store.putTerm(packed.packageRecord);
      tx.commit();
    } catch (error) {
      if (!(error instanceof SimulatedCrash)) tx.rollback(error);
      throw error;
    }
    return { ...packed, store, manifestFile };
  });
}

/**
 * Packs an in-memory state with its dependencies' artifacts computed from disk (read-only): the
 * bytes `package.toml` must get and the package record. Shared by pack and apply; writes nothing.
 */
export function packPackageState(packageDir: string, state: PackageState): PackResult {
  return packState(state, (d) => dependencyArtifactOnDisk(packageDir, d));
}
