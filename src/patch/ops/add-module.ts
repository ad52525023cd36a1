/** `:add-module` (GenesisCode `docs/spec/PATCH_SCHEMA.md`): create a module from source text or forms, list it in the manifest. */
import { canonicalizeSource } from '../../coreform/canon.js';
import type { MapTerm, Term } from '../../coreform/term.js';
import { isGcError } from '../../util/errors.js';
import { PatchCode, patchError } from '../protocol/errors.js';
import { manifestModulePaths, manifestModules, withManifestEdit, withModule, type PackageState } from '../protocol/state.js';
import { field, recanonicalize, strField, type OpOutcome } from './common.js';

/**
 * Applies a normalized `:add-module` op: `:content` (a `.gc` source string, or a vector of forms)
 * is canonicalized; the manifest gains `{hash = "", path = …}` at the end (pack re-pins it).
 * @throws GcError `patch/module-exists` when the module or its manifest entry already exists;
 *   `core/parse/*` or `patch/canonicalize` for bad content.
 */
export function applyAddModule(state: PackageState, op: MapTerm): OpOutcome {
  const modulePath = strField(op, 'module-path');
  if (state.modules.has(modulePath) || manifestModulePaths(state.manifest).includes(modulePath)) {
    throw patchError(PatchCode.moduleExists, `:add-module: module ${JSON.stringify(modulePath)} already exists`, { at: modulePath });
  }
  const content = field(op, 'content');
  let forms: Term[];
  if (content.kind === 'str') {
    try {
      forms = canonicalizeSource(content.value);
    } catch (error) {
      if (isGcError(error)) throw error.withLocation({ file: `${modulePath} (:add-module :content)` });
      throw error;
    }
  } else {
    forms = recanonicalize(modulePath, (content as { items: readonly Term[] }).items);
  }
  const next = withManifestEdit(withModule(state, modulePath, forms), (manifest) => {
    if (manifest.modules === undefined) manifest.modules = [];
    manifestModules(manifest).push({ hash: '', path: modulePath });
  });
  return { state: next, edit: undefined };
}
