/**
 * The `::meta` list rewrite shared by `:rewrite-imports` and `:rewrite-exports` (GenesisCode `docs/spec/PATCH_SCHEMA.md`):
 * `:replace` seeds the set (else the current list), then `:remove` and `:add` apply set-wise; the
 * result is written back as a sorted (UTF-8 byte order) vector of unique symbols.
 */
import { kw, kwMap, list, listItems, mapGet, mapSet, sym, vec, type MapTerm, type Term } from '../../coreform/term.js';
import { termsEqual } from '../../coreform/term.js';
import { compareUtf8 } from '../../util/bytes.js';
import { PatchCode, patchError } from '../protocol/errors.js';
import { requireModule, withModule, type PackageState } from '../protocol/state.js';
import { field, recanonicalize, refactorEdit, strField, strsField, topLevelDef, type OpOutcome } from './common.js';

function metaMap(rhs: Term, modulePath: string): { map: MapTerm; quoted: boolean } {
  if (rhs.kind === 'map') return { map: rhs, quoted: false };
  const items = listItems(rhs);
  if (items !== undefined && items.length === 2 && items[0]!.kind === 'sym' && items[0]!.name === 'quote' && items[1]!.kind === 'map') {
    return { map: items[1], quoted: true };
  }
  throw patchError(PatchCode.metaMissing, `${modulePath}: (def ::meta …) must hold a map or (quote <map>)`, { at: modulePath });
}

function symbolNames(t: Term | undefined, key: string, modulePath: string): string[] {
  if (t === undefined) return [];
  if (t.kind !== 'vec' || !t.items.every((x) => x.kind === 'sym')) {
    throw patchError(PatchCode.metaMissing, `${modulePath}: ::meta ${key} must be a vector of symbols`, { at: modulePath });
  }
  return t.items.map((x) => (x as { name: string }).name);
}

/**
 * Applies a normalized `:rewrite-imports` (`key` = `imports`) or `:rewrite-exports` (`exports`) op
 * to every top-level `(def ::meta …)` of the module.
 * @returns the edit with `:detail {:field :imports|:exports :before [syms] :after [syms]}`.
 * @throws GcError `patch/module-missing`; `patch/meta-missing` (no `::meta` map, or a malformed
 *   list); `patch/no-change` when the rewrite leaves the module unchanged.
 */
export function applyMetaListRewrite(state: PackageState, op: MapTerm, key: 'imports' | 'exports'): OpOutcome {
  const opName = `rewrite-${key}`;
  const modulePath = strField(op, 'module-path');
  const forms = requireModule(state, modulePath, `:${opName}`);
  const replace = field(op, 'replace').kind === 'nil' ? undefined : strsField(op, 'replace');
  const remove = strsField(op, 'remove');
  const add = strsField(op, 'add');
  let before: string[] | undefined;
  let after: string[] = [];
  let changed = false;
  const next = forms.map((form) => {
    const def = topLevelDef(form);
    if (def === undefined || def.name !== '::meta') return form;
    const { map, quoted } = metaMap(def.rhs, modulePath);
    const current = mapGet(map, kw(key));
    const currentNames = symbolNames(current, `:${key}`, modulePath);
    before ??= currentNames;
    const set = new Set(replace ?? currentNames);
    for (const s of remove) set.delete(s);
    for (const s of add) set.add(s);
    after = [...set].sort(compareUtf8);
    const nextList = vec(after.map(sym));
    const update = current !== undefined ? !termsEqual(current, nextList) : after.length > 0 || replace !== undefined;
    if (!update) return form;
    changed = true;
    const nextMap = mapSet(map, kw(key), nextList);
    return list(sym('def'), sym('::meta'), quoted ? list(sym('quote'), nextMap) : nextMap);
  });
  if (before === undefined) {
    throw patchError(PatchCode.metaMissing, `:${opName}: ${modulePath} has no top-level (def ::meta …)`, { at: modulePath });
  }
  if (!changed) throw patchError(PatchCode.noChange, `:${opName}: the ::meta :${key} of ${modulePath} would not change`, { at: modulePath });
  const canonical = recanonicalize(modulePath, next);
  const detail = kwMap({ field: kw(key), before: vec(before.map(sym)), after: vec(after.map(sym)) });
  return { state: withModule(state, modulePath, canonical), edit: refactorEdit(opName, modulePath, forms, canonical, detail) };
}
