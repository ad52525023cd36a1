/**
 * pack: re-pin every module hash in the manifest and build the package record
 * `genesis/package-v0.2` (docs/reference/package-toml.md §4 "Package artifact"). Pure: works on a
 * {@link PackageState}; `host.ts` does the filesystem side.
 */
import { termAddress } from '../../coreform/hash.js';
import { bytes, kwMap, str, sym, vec, type MapTerm } from '../../coreform/term.js';
import { fromHex } from '../../util/bytes.js';
import { isTomlTable, renderManifest, type TomlTable } from '../../workspace/manifest-write.js';
import { parseManifest, type Manifest } from '../../workspace/manifest.js';
import { PatchCode, patchError } from '../protocol/errors.js';
import { moduleHash, modulePrint } from '../protocol/module-memo.js';
import { manifestModules, withManifestEdit, type PackageState } from '../protocol/state.js';

/** `:kind` of the package record. */
export const PACKAGE_RECORD_KIND = 'genesis/package-v0.2';

/** The result of {@link packState}. Hashes are lowercase hex64. */
export interface PackResult {
  /** The state whose manifest carries the new pins. */
  state: PackageState;
  /** `package.toml` text in the reference's style. */
  manifestText: string;
  /** The validated manifest. */
  manifest: Manifest;
  /** Module path → canonical module text (`print_module`), in manifest order. */
  moduleTexts: Map<string, string>;
  /** Module path → module hash (the new pins). */
  pins: Map<string, string>;
  /** The `genesis/package-v0.2` term. */
  packageRecord: MapTerm;
  /** Its store address (plain BLAKE3 of its print): the package artifact id. */
  packageArtifact: string;
}

/**
 * Builds the package record term: `{:kind "genesis/package-v0.2" :name :version :modules [{:path
 * :hash <32 raw bytes>}] (manifest order) :dependencies [{:name :path :hash hex}] :obligations
 * [symbols] :tests [symbols]}`.
 */
export function packageRecordTerm(manifest: Manifest, pins: ReadonlyMap<string, string>, dependencyHashes: readonly string[]): MapTerm {
  return kwMap({
    kind: str(PACKAGE_RECORD_KIND),
    name: str(manifest.name),
    version: str(manifest.version),
    modules: vec(manifest.modules.map((m) => kwMap({ path: str(m.path), hash: bytes(fromHex(pins.get(m.path)!)!) }))),
    dependencies: vec(manifest.dependencies.map((d, i) => kwMap({ name: str(d.name), path: str(d.path), hash: str(dependencyHashes[i] ?? '') }))),
    obligations: vec(manifest.obligations.map(sym)),
    tests: vec(manifest.tests.map(sym)),
  });
}

/**
 * Packs a state: computes every listed module's hash, writes it as the module's `hash` pin,
 * renders and validates `package.toml`, and builds the package record.
 * @param state the package after the ops.
 * @param dependencyArtifact the package artifact of a dependency (by manifest index); defaults to
 *   its current pin (the on-disk pack recomputes it from the dependency package).
 * @throws GcError `patch/module-missing` when the manifest lists a module the state lacks;
 *   `manifest/*` when the resulting `package.toml` is invalid.
 */
export function packState(
  state: PackageState,
  dependencyArtifact?: (dependency: { name: string; path: string; hash: string | undefined }, index: number) => string,
): PackResult {
  const pins = new Map<string, string>();
  const moduleTexts = new Map<string, string>();
  for (const entry of manifestModules(state.manifest)) {
    const forms = state.modules.get(entry.path);
    if (forms === undefined) {
      throw patchError(PatchCode.moduleMissing, `package.toml lists ${JSON.stringify(entry.path)} but the package has no such module`, {
        at: entry.path,
      });
    }
    pins.set(entry.path, moduleHash(forms));
    moduleTexts.set(entry.path, modulePrint(forms));
  }
  const firstPass = parseManifest(renderManifest(state.manifest));
  const dependencyHashes = firstPass.dependencies.map((d, i) => (dependencyArtifact ? dependencyArtifact(d, i) : (d.hash ?? '')));
  const pinned = withManifestEdit(state, (manifest: TomlTable) => {
    for (const entry of manifestModules(manifest)) entry.hash = pins.get(entry.path)!;
    const deps = manifest.dependencies;
    if (Array.isArray(deps)) {
      deps.forEach((d, i) => {
        if (isTomlTable(d) && dependencyHashes[i] !== undefined && dependencyHashes[i] !== '') d.hash = dependencyHashes[i]!;
      });
    }
  });
  const manifestText = renderManifest(pinned.manifest, { keepKeyOrder: true });
  const manifest = parseManifest(manifestText);
  const packageRecord = packageRecordTerm(manifest, pins, dependencyHashes);
  return { state: pinned, manifestText, manifest, moduleTexts, pins, packageRecord, packageArtifact: termAddress(packageRecord) };
}
