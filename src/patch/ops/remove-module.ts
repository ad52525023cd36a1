/** `:remove-module` (GenesisCode `docs/spec/PATCH_SCHEMA.md`): delete a module and drop its manifest entry. */
import type { MapTerm } from '../../coreform/term.js';
import { manifestModules, requireModule, withManifestEdit, withModule, type PackageState } from '../protocol/state.js';
import { strField, type OpOutcome } from './common.js';

/**
 * Applies a normalized `:remove-module` op.
 * @throws GcError `patch/module-missing` when the module does not exist.
 */
export function applyRemoveModule(state: PackageState, op: MapTerm): OpOutcome {
  const modulePath = strField(op, 'module-path');
  requireModule(state, modulePath, ':remove-module');
  const next = withManifestEdit(withModule(state, modulePath, undefined), (manifest) => {
    const modules = manifestModules(manifest);
    const i = modules.findIndex((m) => m.path === modulePath);
    if (i >= 0) modules.splice(i, 1);
  });
  return { state: next, edit: undefined };
}
