/**
 * The in-memory package state that patch ops transform (docs/reference/patch-protocols.md §3.1 "Semantics"): the
 * manifest as an editable TOML table and every module as its canonical forms. The on-disk apply,
 * the GitHub Action and the refactor planner all run the same ops on this model.
 */
import { canonicalizeSource } from '../../coreform/canon.js';
import type { Term } from '../../coreform/term.js';
import { cloneTomlTable, isTomlTable, parseManifestTable, type TomlTable } from '../../workspace/manifest-write.js';
import { parseManifest } from '../../workspace/manifest.js';
import { PatchCode, patchError } from './errors.js';

/**
 * A package in memory. `manifest` is the parsed `package.toml` (unknown keys kept; see
 * `workspace/manifest-write.ts`); `modules` maps a portable module path to its canonical forms.
 * States are treated as immutable: ops return new states and never mutate their input.
 */
export interface PackageState {
  readonly manifest: TomlTable;
  readonly modules: ReadonlyMap<string, readonly Term[]>;
}

/** One `[[modules]]` entry as held in the manifest table. */
export interface ManifestModuleEntry {
  path: string;
  hash?: string;
  [key: string]: unknown;
}

/**
 * The `[[modules]]` entries of a manifest table, in manifest order (the live objects).
 * @throws GcError `patch/manifest-entry` when `modules` is not an array of tables with string paths.
 */
export function manifestModules(manifest: TomlTable): ManifestModuleEntry[] {
  const raw = manifest.modules ?? [];
  if (!Array.isArray(raw) || !raw.every((m) => isTomlTable(m) && typeof m.path === 'string')) {
    throw patchError(PatchCode.manifestEntry, 'package.toml modules must be an array of tables with a string path');
  }
  return raw as unknown as ManifestModuleEntry[];
}

/** The module paths listed in the manifest, in order. */
export function manifestModulePaths(manifest: TomlTable): string[] {
  return manifestModules(manifest).map((m) => m.path);
}

/**
 * Module maps that only the states of one running {@link editModulesInPlace} hold: `withModule`
 * updates them in place instead of copying them (a patch of n module ops costs n updates, not n
 * copies of the whole map).
 */
const exclusiveMaps = new WeakSet<ReadonlyMap<string, readonly Term[]>>();

/**
 * Runs `steps` on a private copy of `state`'s module map that `withModule` updates in place, and
 * returns the final state (an ordinary immutable state again; `state` itself is never changed).
 * For a sequence in which every step derives its result from the previous step's state only and
 * no intermediate state is kept or read after the next step begins (`applyOpsInMemory`).
 */
export function editModulesInPlace<T extends { state: PackageState }>(state: PackageState, steps: (start: PackageState) => T): T {
  const modules = new Map(state.modules);
  exclusiveMaps.add(modules);
  try {
    return steps({ manifest: state.manifest, modules });
  } finally {
    exclusiveMaps.delete(modules);
  }
}

/** A new state with `path` set to `forms`, or removed when `forms` is undefined. */
export function withModule(state: PackageState, path: string, forms: readonly Term[] | undefined): PackageState {
  const modules = exclusiveMaps.has(state.modules) ? (state.modules as Map<string, readonly Term[]>) : new Map(state.modules);
  if (forms === undefined) modules.delete(path);
  else modules.set(path, forms);
  return { manifest: state.manifest, modules };
}

/** A new state whose manifest is the result of `edit` on a deep copy of the current one. */
export function withManifestEdit(state: PackageState, edit: (manifest: TomlTable) => void): PackageState {
  const manifest = cloneTomlTable(state.manifest);
  edit(manifest);
  return { manifest, modules: state.modules };
}

/** The forms of `path`, or a `patch/module-missing` error naming the op. */
export function requireModule(state: PackageState, path: string, what: string): readonly Term[] {
  const forms = state.modules.get(path);
  if (forms === undefined) {
    throw patchError(PatchCode.moduleMissing, `${what}: module ${JSON.stringify(path)} does not exist`, { at: path });
  }
  return forms;
}

/**
 * Builds a state from `package.toml` text and module sources (no filesystem access): the pure entry
 * point for the GitHub Action and the refactor planner.
 * @param manifestText the `package.toml` text (validated with `parseManifest`).
 * @param sources module path → `.gc` source (text or UTF-8 bytes); each is canonicalized.
 * @throws GcError `manifest/*`, `core/parse/*`, `core/canon/*` (exit 10).
 */
export function packageStateFromSources(
  manifestText: string,
  sources: ReadonlyMap<string, string | Uint8Array> | Record<string, string | Uint8Array>,
): PackageState {
  parseManifest(manifestText);
  const manifest = parseManifestTable(manifestText);
  const entries = sources instanceof Map ? [...sources.entries()] : Object.entries(sources);
  const modules = new Map<string, readonly Term[]>();
  for (const [path, source] of entries) {
    try {
      modules.set(path, canonicalizeSource(source));
    } catch (error) {
      throw (error as { withLocation?: (l: object) => Error }).withLocation?.({ file: path }) ?? error;
    }
  }
  return { manifest, modules };
}
