/**
 * The manifest key table of docs/security.md: how an unexplained change of one `package.toml` key is
 * judged. Changes that weaken what the package is checked against (obligations, test suites and
 * property tests removed; limits and budgets raised; fewer property cases) are errors; every other
 * key change is a warning that names the key and both values. The module list and its pins are
 * judged elsewhere (`explain.ts`, the head pin check), `caps_policy`'s effect by `caps-policy.ts`.
 */
import type { MapTerm } from '../coreform/term.js';
import { opNameOf, type NormalizedPatch } from '../patch/protocol/normalize.js';
import { field, strsField } from '../patch/ops/common.js';
import { tomlEqual } from '../workspace/toml-equal.js';
import { isTomlTable, type TomlTable, type TomlValue } from '../workspace/manifest-write.js';
import { AuditCode, type AuditCodeValue, type Severity } from './findings.js';

/** The set-valued keys whose entries only evidence may remove. */
export const LIST_KEYS = ['obligations', 'tests', 'property_tests'] as const;
/** One of {@link LIST_KEYS}. */
export type ListKey = (typeof LIST_KEYS)[number];

/** Keys not judged by {@link judgeKeyChange}: the module list (with pins) and the list keys. */
const JUDGED_ELSEWHERE = new Set<string>(['modules', ...LIST_KEYS]);

/** The verdict on one unexplained key change. */
export interface KeyVerdict {
  code: AuditCodeValue;
  severity: Severity;
  /** What changed, e.g. `[limits] step_limit: 1000 → 5000`. */
  detail: string;
}

/** A short TOML-like spelling of a value for messages (`(absent)` for undefined), at most ~120 characters. */
export function showValue(v: TomlValue | undefined): string {
  let s: string;
  if (v === undefined) s = '(absent)';
  else if (typeof v === 'bigint') s = v.toString();
  else if (typeof v === 'string') s = JSON.stringify(v);
  else if (Array.isArray(v)) s = `[${v.map(showValue).join(', ')}]`;
  else if (v instanceof Date) s = v.toISOString();
  else if (isTomlTable(v)) s = `{${Object.keys(v).sort().map((k) => `${k} = ${showValue(v[k])}`).join(', ')}}`;
  else s = String(v);
  return s.length > 120 ? `${s.slice(0, 117)}…` : s;
}

/** A number of a limit; NaN is no number (a NaN limit is judged like a removed one: it bounds nothing). */
function num(v: TomlValue | undefined): number | bigint | undefined {
  return typeof v === 'bigint' || (typeof v === 'number' && !Number.isNaN(v)) ? v : undefined;
}

/** The leaf-by-leaf weakenings of a `[limits]` / `[budgets]` / `[property]` table change. */
function weakenings(key: string, a: TomlValue | undefined, b: TomlValue | undefined): string[] {
  const ta = isTomlTable(a) ? a : {};
  const tb = isTomlTable(b) ? b : {};
  if ((a !== undefined && !isTomlTable(a)) || (b !== undefined && !isTomlTable(b))) return [`[${key}]: ${showValue(a)} → ${showValue(b)}`];
  const out: string[] = [];
  for (const k of [...new Set([...Object.keys(ta), ...Object.keys(tb)])].sort()) {
    const x = ta[k];
    const y = tb[k];
    if (tomlEqual(x, y)) continue;
    const what = `[${key}] ${k}: ${showValue(x)} → ${showValue(y)}`;
    if (key === 'property') {
      // fewer cases check less
      const nx = num(x);
      const ny = num(y);
      if (nx !== undefined && (ny === undefined || ny < nx)) out.push(what);
      else if (nx === undefined && ny === undefined) out.push(what);
      continue;
    }
    if (k === 'allow_unlimited') {
      if (y === true) out.push(what);
      continue;
    }
    const nx = num(x);
    const ny = num(y);
    if (x !== undefined && (y === undefined || nx === undefined || ny === undefined || ny > nx)) out.push(what);
  }
  return out;
}

/**
 * Judges an unexplained change of top-level manifest key `key` from `before` to `after` (either may
 * be absent), per the key table of docs/security.md.
 * @returns the verdict, or `undefined` for keys judged elsewhere (`modules`, the list keys) and for
 *   equal values.
 */
export function judgeKeyChange(key: string, before: TomlValue | undefined, after: TomlValue | undefined): KeyVerdict | undefined {
  if (JUDGED_ELSEWHERE.has(key) || tomlEqual(before, after)) return undefined;
  if (key === 'limits' || key === 'budgets' || key === 'property') {
    const weak = weakenings(key, before, after);
    if (weak.length > 0) return { code: AuditCode.limitsRaised, severity: 'error', detail: weak.join('; ') };
  }
  // A version bump is what authors do by hand: it names the change, it does not fail `--fail-on warning`.
  const severity: Severity = key === 'version' ? 'notice' : 'warning';
  return { code: AuditCode.manifestKeyChanged, severity, detail: `${key}: ${showValue(before)} → ${showValue(after)}` };
}

/** The entries of list key `key` (strings only). */
export function listEntries(table: TomlTable, key: string): string[] {
  const v = table[key];
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

/**
 * What a patch's `update-manifest` ops name, read from the patch without applying it (for
 * `replay: false`): the top-level keys they may change and the list entries they remove.
 * Module-list ops (`add-module`, `remove-module`, `move-module`, `split-module`) name `modules`.
 */
export function manifestKeysNamedByPatch(patch: NormalizedPatch): { keys: Set<string>; removed: Map<ListKey, Set<string>> } {
  const keys = new Set<string>();
  const removed = new Map<ListKey, Set<string>>();
  for (const op of patch.ops) {
    const name = opNameOf(op);
    if (name === 'add-module' || name === 'remove-module' || name === 'move-module' || name === 'split-module') keys.add('modules');
    if (name !== 'update-manifest') continue;
    const m = op as MapTerm;
    const set = field(m, 'set');
    if (set.kind === 'map') {
      for (const [k] of set.entries) {
        if (k.kind === 'str') keys.add(k.value);
        else if (k.kind === 'sym') keys.add(k.name.replace(/^:/, ''));
      }
    }
    if (field(m, 'caps-policy').kind === 'str') keys.add('caps_policy');
    for (const [list, opKey] of [['obligations', 'obligations'], ['tests', 'tests']] as const) {
      const rm = strsField(m, `${opKey}-remove`);
      const add = strsField(m, `${opKey}-add`);
      if (rm.length > 0 || add.length > 0) keys.add(list);
      if (rm.length > 0) {
        let s = removed.get(list);
        if (s === undefined) removed.set(list, (s = new Set()));
        for (const r of rm) s.add(r);
      }
    }
  }
  return { keys, removed };
}

/**
 * The entries of a list key that merging the parents keeps: for each entry, the three-way rule over
 * the merge base (`base`, undefined when there is none) and the parents: kept when every parent has
 * it, or when some parent has it and the merge base does not (a parent added it). With no merge base
 * an entry any parent has is kept.
 */
export function mergedListEntries(base: readonly string[] | undefined, parents: readonly (readonly string[])[]): Set<string> {
  const out = new Set<string>();
  const all = new Set(parents.flat());
  const inBase = new Set(base ?? []);
  for (const e of all) {
    const everyone = parents.every((p) => p.includes(e));
    if (everyone || base === undefined || !inBase.has(e)) out.add(e);
  }
  return out;
}
