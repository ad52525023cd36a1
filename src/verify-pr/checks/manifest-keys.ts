/**
 * The manifest key table of docs/security.md, derived from docs/reference/package-toml.md "Keys the
 * reference reads" (GenesisCode `crates/gc_pkg/src/manifest.rs`, `PackageManifest`, `Limits`,
 * `Budgets`, `PropertyConfig`, `GfxConfig`): how an unexplained change of one `package.toml` key is
 * judged. Default deny: every change is an error unless it is on the short list of changes that
 * cannot weaken anything — `version` and `description` (notices), and a narrowing proven under the
 * reference's semantics (a limit, budget or frame budget lowered or added, `allow_unlimited` turned
 * off, more property cases (at least the toolchain default's when added), a golden or frame-budget test suite added: notices). A key or field the
 * reference does not read is an error when changed by hand. The module list and its pins are judged
 * elsewhere (`explain.ts`, the head pin check), the list keys' removals by `check-manifest.ts`, and
 * `caps_policy`'s effect by the policy check (`caps-policy.ts`).
 */
import type { MapTerm } from '../../coreform/term.js';
import { opNameOf, type NormalizedPatch } from '../../patch/protocol/normalize.js';
import { field, strsField } from '../../patch/ops/common.js';
import { tomlEqual } from '../../workspace/toml-equal.js';
import { isTomlTable, type TomlTable, type TomlValue } from '../../workspace/manifest-write.js';
import { AuditCode, type AuditCodeValue, type Severity } from '../report/findings.js';

/** The set-valued keys whose entries only evidence may remove. */
export const LIST_KEYS = ['obligations', 'tests', 'property_tests'] as const;
/** One of {@link LIST_KEYS}. */
export type ListKey = (typeof LIST_KEYS)[number];

/** Keys not judged by {@link judgeKeyChange}: the module list (with pins), the list keys, and `caps_policy` (judged by the policy it points to). */
const JUDGED_ELSEWHERE = new Set<string>(['modules', ...LIST_KEYS, 'caps_policy']);

/** The verdict on one unexplained key change. */
export interface KeyVerdict {
  code: AuditCodeValue;
  severity: Severity;
  /** What changed, e.g. `[limits] step_limit: 1000 → 5000`. */
  detail: string;
  /** The finding's title. */
  title: string;
}

/** A short TOML-like spelling of a value for messages (`(absent)` for undefined), at most ~120 characters. */
export function showValue(v: TomlValue | undefined): string {
  let s: string;
  if (v === undefined) s = '(absent)';
  else if (typeof v === 'bigint') s = v.toString();
  else if (typeof v === 'string') s = JSON.stringify(v);
  else if (Array.isArray(v)) s = `[${v.map(showValue).join(', ')}]`;
  else if (v instanceof Date) s = v.toISOString();
  else if (isTomlTable(v))
    s = `{${Object.keys(v)
      .sort()
      .map((k) => `${k} = ${showValue(v[k])}`)
      .join(', ')}}`;
  else s = String(v);
  return s.length > 120 ? `${s.slice(0, 117)}…` : s;
}

/** A number of a limit; NaN is no number (a NaN limit is judged like a removed one: it bounds nothing). */
function num(v: TomlValue | undefined): number | bigint | undefined {
  return typeof v === 'bigint' || (typeof v === 'number' && !Number.isNaN(v)) ? v : undefined;
}

/** How the reference reads one field of a manifest table (docs/reference/package-toml.md "Keys the reference reads"). */
type FieldRule =
  /** `Option<u64>`, a ceiling: raised or removed (unbounded) weakens. */
  | 'ceiling'
  /**
   * `Option<u64>`, a floor (`cases_per_test`): lowered or removed weakens, and so does one added
   * below the toolchain default that its absence means ({@link FLOOR_DEFAULT}).
   */
  | 'floor'
  /** `bool` defaulting to false that allows more when true (`allow_unlimited`). */
  | 'switch'
  /** `Vec<String>` of suites that must pass: an entry removed weakens. */
  | 'suites'
  /** An expectation (`api_exports`, `api_surface_hash`): any change changes what is checked. */
  | 'expectation';

/** The tables of the reference's `PackageManifest` and how each field is read. */
const TABLES: Record<string, Record<string, FieldRule>> = {
  limits: {
    step_limit: 'ceiling',
    allow_unlimited: 'switch',
    max_alloc_units: 'ceiling',
    max_live_units: 'ceiling',
    max_pair_cells: 'ceiling',
    max_vec_len: 'ceiling',
    max_map_len: 'ceiling',
    max_bytes_len: 'ceiling',
    max_string_len: 'ceiling',
  },
  budgets: { max_steps_per_test: 'ceiling', max_effect_entries_per_test: 'ceiling', max_effect_log_bytes_per_test: 'ceiling' },
  property: { cases_per_test: 'floor' },
  gfx: {
    golden_tests: 'suites',
    frame_budget_tests: 'suites',
    api_exports: 'expectation',
    api_surface_hash: 'expectation',
    max_render_passes_per_frame: 'ceiling',
    max_compute_passes_per_frame: 'ceiling',
    max_draw_commands_per_frame: 'ceiling',
    max_compute_commands_per_frame: 'ceiling',
    max_frame_graph_bytes: 'ceiling',
    max_frame_time_ms: 'ceiling',
  },
};

/**
 * What a missing floor means: the reference runs `manifest.property.cases_per_test.unwrap_or(64)`
 * cases (GenesisCode `crates/gc_obligations/src/obligation_authority_property.rs`,
 * docs/reference/package-toml.md §7). A floor added below it lowers the number of cases run, so
 * only one at or above it is a proven narrowing.
 */
export const FLOOR_DEFAULT = 64n;

/** Top-level keys whose change by hand cannot weaken anything (docs/security.md "The allow-list"). */
const HARMLESS_KEYS = new Set(['version', 'description']);

/** One field's change: `'weakens'`, `'narrows'` (proven), or `'unknown'` (a field the reference does not read). */
function judgeField(rule: FieldRule | undefined, x: TomlValue | undefined, y: TomlValue | undefined): 'weakens' | 'narrows' | 'unknown' {
  if (rule === undefined) return 'unknown';
  const nx = num(x);
  const ny = num(y);
  const wellTyped = (v: TomlValue | undefined, n: number | bigint | undefined): boolean => v === undefined || n !== undefined;
  switch (rule) {
    case 'ceiling':
      if (!wellTyped(x, nx) || !wellTyped(y, ny)) return 'weakens';
      return ny === undefined || (nx !== undefined && ny > nx) ? 'weakens' : 'narrows';
    case 'floor':
      if (!wellTyped(x, nx) || !wellTyped(y, ny)) return 'weakens';
      // a floor added is compared with the default its absence meant, not with nothing
      return ny === undefined || ny < (nx ?? FLOOR_DEFAULT) ? 'weakens' : 'narrows';
    case 'switch':
      if ((x !== undefined && typeof x !== 'boolean') || (y !== undefined && typeof y !== 'boolean')) return 'weakens';
      return y === true ? 'weakens' : 'narrows';
    case 'suites': {
      if ((x !== undefined && !Array.isArray(x)) || (y !== undefined && !Array.isArray(y))) return 'weakens';
      const after = (y ?? []) as TomlValue[];
      return ((x ?? []) as TomlValue[]).every((e) => after.some((f) => tomlEqual(e, f))) ? 'narrows' : 'weakens';
    }
    default:
      return 'weakens';
  }
}

/**
 * Judges an unexplained change of top-level manifest key `key` from `before` to `after` (either may
 * be absent), per the key table of docs/security.md (see the module comment).
 * @returns the verdict (an error, or a notice for what cannot weaken), or `undefined` for keys judged
 *   elsewhere (`modules`, the list keys, `caps_policy`) and for equal values.
 */
export function judgeKeyChange(key: string, before: TomlValue | undefined, after: TomlValue | undefined): KeyVerdict | undefined {
  if (JUDGED_ELSEWHERE.has(key) || tomlEqual(before, after)) return undefined;
  // the reference's defaults: a missing `schema` is 1, missing `dependencies` are none
  const normal = (v: TomlValue | undefined): TomlValue | undefined => (v !== undefined ? v : key === 'schema' ? 1n : key === 'dependencies' ? [] : undefined);
  if (tomlEqual(normal(before), normal(after))) return undefined;
  const whole = `${key}: ${showValue(before)} → ${showValue(after)}`;
  if (HARMLESS_KEYS.has(key)) return { code: AuditCode.manifestKeyChanged, severity: 'notice', detail: whole, title: 'manifest key changed' };
  const fields = TABLES[key];
  if (fields === undefined) {
    const known = ['schema', 'name', 'dependencies'].includes(key);
    return {
      code: AuditCode.manifestKeyChanged,
      severity: 'error',
      detail: `${whole}${known ? '' : ' (a key the reference does not read: gcpatch cannot tell what it changes)'}`,
      title: 'manifest key changed',
    };
  }
  if ((before !== undefined && !isTomlTable(before)) || (after !== undefined && !isTomlTable(after))) {
    return { code: AuditCode.limitsRaised, severity: 'error', detail: `[${key}]: ${showValue(before)} → ${showValue(after)}`, title: 'limits raised' };
  }
  const ta = (before ?? {}) as TomlTable;
  const tb = (after ?? {}) as TomlTable;
  const weak: string[] = [];
  const unknown: string[] = [];
  const removedSuites: string[] = [];
  const narrowed: string[] = [];
  for (const k of [...new Set([...Object.keys(ta), ...Object.keys(tb)])].sort()) {
    if (tomlEqual(ta[k], tb[k])) continue;
    const what = `[${key}] ${k}: ${showValue(ta[k])} → ${showValue(tb[k])}`;
    const rule = fields[k];
    const verdict = judgeField(rule, ta[k], tb[k]);
    if (verdict === 'narrows') narrowed.push(what);
    else if (verdict === 'unknown') unknown.push(`${what} (a field the reference does not read)`);
    else if (rule === 'suites') removedSuites.push(what);
    else weak.push(what);
  }
  if (removedSuites.length > 0)
    return { code: AuditCode.obligationsWeakened, severity: 'error', detail: [...removedSuites, ...weak, ...unknown].join('; '), title: 'test suite removed' };
  if (weak.length > 0) return { code: AuditCode.limitsRaised, severity: 'error', detail: [...weak, ...unknown].join('; '), title: 'limits raised' };
  if (unknown.length > 0) return { code: AuditCode.manifestKeyChanged, severity: 'error', detail: unknown.join('; '), title: 'manifest key changed' };
  return {
    code: AuditCode.manifestKeyChanged,
    severity: 'notice',
    detail: `${narrowed.join('; ')} (narrows what the package is checked against)`,
    title: 'manifest key changed',
  };
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
    for (const [list, opKey] of [
      ['obligations', 'obligations'],
      ['tests', 'tests'],
    ] as const) {
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
