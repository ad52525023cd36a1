/** `:move-module` (GenesisCode `docs/spec/PATCH_SCHEMA.md`): move a module file and rewrite its manifest entry in place. */
import { kwMap, str, type MapTerm } from '../../coreform/term.js';
import { PatchCode, patchError } from '../protocol/errors.js';
import { manifestModules, requireModule, withManifestEdit, withModule, type PackageState } from '../protocol/state.js';
import { refactorEdit, strField, type OpOutcome } from './common.js';

/**
 * Applies a normalized `:move-module` op. The manifest entry keeps its position (module order is
 * semantic); its pin is cleared for pack to recompute.
 * @returns the edit `{:op :move-module :module-path <from> … :detail {:from-module-path :to-module-path}}`.
 * @throws GcError `patch/module-missing` (source missing), `patch/module-exists` (target exists),
 *   `patch/manifest-entry` (manifest does not list the source, or already lists the target).
 */
export function applyMoveModule(state: PackageState, op: MapTerm): OpOutcome {
  const from = strField(op, 'from-module-path');
  const to = strField(op, 'to-module-path');
  const forms = requireModule(state, from, ':move-module');
  if (state.modules.has(to)) throw patchError(PatchCode.moduleExists, `:move-module: target ${JSON.stringify(to)} already exists`, { at: to });
  const entries = manifestModules(state.manifest);
  if (!entries.some((m) => m.path === from)) {
    throw patchError(PatchCode.manifestEntry, `:move-module: package.toml does not list ${JSON.stringify(from)}`, { at: from });
  }
  if (entries.some((m) => m.path === to)) {
    throw patchError(PatchCode.manifestEntry, `:move-module: package.toml already lists ${JSON.stringify(to)}`, { at: to });
  }
  const moved = withModule(withModule(state, from, undefined), to, forms);
  const next = withManifestEdit(moved, (manifest) => {
    const entry = manifestModules(manifest).find((m) => m.path === from)!;
    entry.path = to;
    entry.hash = '';
  });
  const detail = kwMap({ 'from-module-path': str(from), 'to-module-path': str(to) });
  return { state: next, edit: refactorEdit('move-module', from, forms, forms, detail) };
}
