/** Shared helpers of the op implementations: reading normalized op fields and building evidence. */
import { canonicalizeForm } from '../../coreform/canon.js';
import { defName } from '../../coreform/forms.js';
import { kw, kwMap, listItems, mapGetKw, str, type MapTerm, type Term } from '../../coreform/term.js';
import { isGcError } from '../../util/errors.js';
import { PatchCode, patchError } from '../protocol/errors.js';
import { moduleHash } from '../protocol/module-memo.js';
import type { PackageState } from '../protocol/state.js';

/** What one op produced: the new state and, for module-editing ops, its semantic-edit evidence. */
export interface OpOutcome {
  state: PackageState;
  /** The per-op evidence entry (docs/reference/patch-protocols.md §3.7), or undefined for add/remove/update-manifest. */
  edit: MapTerm | undefined;
}

/** One op implementation: `op` is a normalized op map, `ordinal` its 0-based position. */
export type OpImplementation = (state: PackageState, op: MapTerm, ordinal: number) => OpOutcome;

/** A field of a normalized op (normalization guarantees presence). */
export function field(op: MapTerm, name: string): Term {
  return mapGetKw(op, name)!;
}

/** A string field of a normalized op. */
export function strField(op: MapTerm, name: string): string {
  return (field(op, name) as { value: string }).value;
}

/** A string-vector field of a normalized op (`[]` when nil). */
export function strsField(op: MapTerm, name: string): string[] {
  const t = field(op, name);
  return t.kind === 'vec' ? t.items.map((x) => (x as { value: string }).value) : [];
}

/**
 * Re-canonicalizes the forms at `indices` (all forms when omitted), so every op writes canonical
 * modules (GenesisCode `docs/spec/PATCH_SCHEMA.md`: "the result is re-canonicalized before writing").
 * @throws GcError `patch/canonicalize` (exit 10) naming the module when a form no longer canonicalizes.
 */
export function recanonicalize(modulePath: string, forms: readonly Term[], indices?: readonly number[]): Term[] {
  const out = [...forms];
  const which = indices ?? forms.map((_, i) => i);
  for (const i of which) {
    try {
      out[i] = canonicalizeForm(out[i]!, i);
    } catch (error) {
      if (isGcError(error)) {
        throw patchError(PatchCode.canonicalize, `${modulePath}: the patched module does not canonicalize: ${error.message}`, {
          at: modulePath,
        });
      }
      throw error;
    }
  }
  return out;
}

/**
 * The evidence entry of a high-level refactor op: `{:op :module-path :before-module-h
 * :after-module-h :detail}` (GenesisCode `docs/spec/PATCH_SCHEMA.md` "Replay-Aware Evidence").
 */
export function refactorEdit(op: string, modulePath: string, before: readonly Term[], after: readonly Term[], detail: MapTerm): MapTerm {
  return kwMap({
    op: kw(op),
    'module-path': str(modulePath),
    'before-module-h': str(moduleHash(before)),
    'after-module-h': str(moduleHash(after)),
    detail,
  });
}

/** `(def name rhs)` → `{name, rhs}` when `form` is a top-level def of a symbol; otherwise undefined. */
export function topLevelDef(form: Term): { name: string; rhs: Term } | undefined {
  const name = defName(form);
  const items = name === undefined ? undefined : listItems(form);
  return items?.length === 3 ? { name: name!, rhs: items[2]! } : undefined;
}
