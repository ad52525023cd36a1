/** `:split-module` (GenesisCode `docs/spec/PATCH_SCHEMA.md`): move top-level `(def <symbol> …)` forms into a new module. */
import { hashModule } from '../../coreform/hash.js';
import { int, kwMap, str, sym, vec, type MapTerm, type Term } from '../../coreform/term.js';
import { PatchCode, patchError } from '../protocol/errors.js';
import { manifestModulePaths, manifestModules, requireModule, withManifestEdit, withModule, type PackageState } from '../protocol/state.js';
import { refactorEdit, strField, strsField, topLevelDef, type OpOutcome } from './common.js';

/**
 * Applies a normalized `:split-module` op: every top-level `(def s …)` whose `s` is in `:symbols`
 * moves, in source order, to the new module `:to-module-path`, which is appended to the manifest.
 * @returns the edit for the source module with `:detail {:to-module-path :symbols :moved-count
 *   :to-module-h}`.
 * @throws GcError `patch/module-missing`, `patch/module-exists`, `patch/split-symbol-missing` when
 *   no listed symbol has a top-level def.
 */
export function applySplitModule(state: PackageState, op: MapTerm): OpOutcome {
  const from = strField(op, 'from-module-path');
  const to = strField(op, 'to-module-path');
  const symbols = new Set(strsField(op, 'symbols'));
  const forms = requireModule(state, from, ':split-module');
  if (state.modules.has(to) || manifestModulePaths(state.manifest).includes(to)) {
    throw patchError(PatchCode.moduleExists, `:split-module: target ${JSON.stringify(to)} already exists`, { at: to });
  }
  const keep: Term[] = [];
  const moved: Term[] = [];
  for (const form of forms) {
    const def = topLevelDef(form);
    if (def !== undefined && symbols.has(def.name)) moved.push(form);
    else keep.push(form);
  }
  if (moved.length === 0) {
    throw patchError(PatchCode.splitSymbolMissing, `:split-module: ${from} has no top-level (def …) for ${[...symbols].join(', ')}`, { at: from });
  }
  const withBoth = withModule(withModule(state, from, keep), to, moved);
  const next = withManifestEdit(withBoth, (manifest) => {
    if (manifest.modules === undefined) manifest.modules = [];
    manifestModules(manifest).push({ hash: '', path: to });
  });
  const detail = kwMap({
    'to-module-path': str(to),
    symbols: vec([...symbols].map(sym)),
    'moved-count': int(moved.length),
    'to-module-h': str(hashModule(moved)),
  });
  return { state: next, edit: refactorEdit('split-module', from, forms, keep, detail) };
}
