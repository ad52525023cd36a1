// The identity of a top-level form across commits: a definition by its symbol, `::meta` and other forms by their module and place.
import type { Term } from '../coreform/term.js';
import { listItems } from '../coreform/term.js';
import { topLevelDef } from '../patch/ops/common.js';
import type { CommitPackageSnapshot } from './evidence.js';

/** The `::meta` definition's name (the module metadata form: GenesisCode's `docs/spec/MODULE_SCOPE.md`; docs/audit.md "What log shows"). */
export const META = '::meta';

/** One top-level form of a module, with the key it is followed by. */
export interface KeyedForm {
  /** 0-based index among the module's top-level forms. */
  index: number;
  /**
   * `def:SYMBOL` for `(def SYMBOL …)` other than `::meta`; `meta` for `(def ::meta …)`; `form:N` for the
   * N-th (0-based) other top-level form of the module.
   */
  key: string;
  /** The defined symbol (undefined for forms that define nothing). */
  symbol: string | undefined;
  /** The canonical form. */
  term: Term;
}

/** The keys of a module's canonical top-level forms, in order. A repeated key gets `#2`, `#3`, … */
export function keyedForms(forms: readonly Term[]): KeyedForm[] {
  const out: KeyedForm[] = [];
  const seen = new Map<string, number>();
  let other = 0;
  forms.forEach((term, index) => {
    const def = topLevelDef(term);
    let key = def === undefined ? `form:${other++}` : def.name === META ? 'meta' : `def:${def.name}`;
    const n = (seen.get(key) ?? 0) + 1;
    seen.set(key, n);
    if (n > 1) key = `${key}#${n}`;
    out.push({ index, key, symbol: def?.name, term });
  });
  return out;
}

/** Where a definition lives in a package: module path and form. */
export interface Located {
  module: string;
  form: KeyedForm;
}

/** The keyed forms of every module of a snapshot, memoized per forms array (a blob parsed once is keyed once). */
const keyed = new WeakMap<readonly Term[], KeyedForm[]>();

/** {@link keyedForms}, memoized by the forms array. */
export function formsOf(forms: readonly Term[]): KeyedForm[] {
  let k = keyed.get(forms);
  if (k === undefined) keyed.set(forms, (k = keyedForms(forms)));
  return k;
}

/** Finds the form with `key` in `module` of the snapshot. */
export function formIn(snapshot: CommitPackageSnapshot, module: string, key: string): KeyedForm | undefined {
  const m = snapshot.byPath.get(module);
  return m === undefined ? undefined : formsOf(m.forms).find((f) => f.key === key);
}

/** Finds the definition of `symbol` anywhere in the package (manifest order; the first wins). */
export function findDefinition(snapshot: CommitPackageSnapshot, symbol: string): Located | undefined {
  const key = `def:${symbol}`;
  for (const m of snapshot.modules) {
    const form = formsOf(m.forms).find((f) => f.key === key);
    if (form !== undefined) return { module: m.path, form };
  }
  return undefined;
}

/** Every definition of the package (not `::meta`): symbol → where it lives (the first, in manifest order). */
export function definitions(snapshot: CommitPackageSnapshot): Map<string, Located> {
  const out = new Map<string, Located>();
  for (const m of snapshot.modules) {
    for (const form of formsOf(m.forms)) {
      if (form.key.startsWith('def:') && !form.key.includes('#') && !out.has(form.symbol!)) out.set(form.symbol!, { module: m.path, form });
    }
  }
  return out;
}

/** The symbol lists of a module's `::meta` map that `log` reports set-wise. */
export type MetaList = 'exports' | 'imports' | 'caps';

/**
 * The `:exports`, `:imports` and `:caps` symbol vectors of a `(def ::meta (quote {…}))` form (or a
 * bare map); a key that is absent or not a vector of symbols gives `[]`.
 */
export function metaLists(form: Term | undefined): Record<MetaList, string[]> {
  const out: Record<MetaList, string[]> = { exports: [], imports: [], caps: [] };
  const def = form === undefined ? undefined : topLevelDef(form);
  if (def === undefined) return out;
  let map: Term = def.rhs;
  const items = listItems(map);
  if (items !== undefined && items.length === 2 && items[0]!.kind === 'sym' && items[0]!.name === 'quote') map = items[1]!;
  if (map.kind !== 'map') return out;
  for (const [k, v] of map.entries) {
    if (k.kind !== 'sym' || v.kind !== 'vec') continue;
    const name = k.name.slice(1) as MetaList;
    if (k.name.startsWith(':') && name in out) out[name] = v.items.flatMap((x) => (x.kind === 'sym' ? [x.name] : []));
  }
  return out;
}
