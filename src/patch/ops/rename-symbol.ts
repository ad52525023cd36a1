/** `:rename-symbol` (GenesisCode `docs/spec/PATCH_SCHEMA.md`): rewrite every occurrence of a symbol in one module. */
import { int, kwMap, sym, type MapTerm, type Term } from '../../coreform/term.js';
import { PatchCode, patchError } from '../protocol/errors.js';
import { requireModule, withModule, type PackageState } from '../protocol/state.js';
import { recanonicalize, refactorEdit, strField, type OpOutcome } from './common.js';
import { rewriteTerm } from './rewrite.js';

/**
 * Renames symbol `from` to `to` everywhere in `forms` (code and data alike, map keys included —
 * a deterministic symbol-level rewrite across the canonical module tree).
 * @returns the rewritten forms and the number of rewritten sites.
 */
export function renameSymbolInForms(forms: readonly Term[], from: string, to: string): { forms: Term[]; count: number } {
  let count = 0;
  if (from === to) return { forms: [...forms], count };
  const out = forms.map((form) =>
    rewriteTerm(form, null, (t) => {
      if (t.kind === 'sym') {
        if (t.name !== from) return { done: t };
        count++;
        return { done: sym(to) };
      }
      return undefined;
    }),
  );
  return { forms: out, count };
}

/**
 * Applies a normalized `:rename-symbol` op.
 * @returns the edit with `:detail {:from sym :to sym :rewrite-count n}`.
 * @throws GcError `patch/module-missing`; `patch/rename-no-sites` when the symbol does not occur
 *   (or `:from` equals `:to`); `patch/canonicalize` when the result is not canonical CoreForm.
 */
export function applyRenameSymbol(state: PackageState, op: MapTerm): OpOutcome {
  const modulePath = strField(op, 'module-path');
  const from = strField(op, 'from');
  const to = strField(op, 'to');
  const forms = requireModule(state, modulePath, ':rename-symbol');
  const { forms: renamed, count } = renameSymbolInForms(forms, from, to);
  if (count === 0) {
    throw patchError(PatchCode.renameNoSites, `:rename-symbol: ${modulePath} has no occurrence of ${from} to rename to ${to}`, { at: modulePath });
  }
  const after = recanonicalize(modulePath, renamed);
  const detail = kwMap({ from: sym(from), to: sym(to), 'rewrite-count': int(count) });
  return { state: withModule(state, modulePath, after), edit: refactorEdit('rename-symbol', modulePath, forms, after, detail) };
}
