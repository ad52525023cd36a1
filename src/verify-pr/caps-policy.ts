/**
 * Whether a capability policy (`caps.toml`, GenesisCode's `docs/spec/CAPS_TOML.md`, restated in
 * docs/reference/caps-policy.md) allows more after a change than before. Deny-by-default: a missing
 * policy allows nothing. The comparison is conservative: anything that may let a program do more
 * counts as widening, so only changes that can only narrow (an op removed from `allow`, a limit
 * lowered) are "changed without widening".
 */
import { parse as parseToml } from 'smol-toml';
import { tomlEqual } from '../workspace/toml-equal.js';
import type { TomlTable, TomlValue } from '../workspace/manifest-write.js';
import { isTomlTable } from '../workspace/manifest-write.js';

/** What changed between two versions of a policy: widenings (each described) and other changes. */
export interface PolicyComparison {
  /** Descriptions of the changes that allow more, e.g. `allow + "io/net::http-request"`. */
  widened: string[];
  /** Descriptions of the other changes (narrowing or neutral). */
  changed: string[];
}

/** A policy's text parsed, or why it cannot be; `undefined` text is "no policy" (allow nothing). */
function parsePolicy(text: string | undefined): { table: TomlTable } | { error: string } {
  if (text === undefined) return { table: { allow: [] } };
  try {
    return { table: parseToml(text, { integersAsBigInt: true }) as unknown as TomlTable };
  } catch (error) {
    return { error: error instanceof Error ? error.message.split('\n')[0]! : String(error) };
  }
}

function show(v: TomlValue | undefined): string {
  if (v === undefined) return '(absent)';
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'string') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(show).join(', ')}]`;
  if (v instanceof Date) return v.toISOString();
  if (isTomlTable(v)) return `{${Object.keys(v).sort().map((k) => `${k} = ${show(v[k])}`).join(', ')}}`;
  return String(v);
}

/** A budget's number; NaN bounds nothing, so it is no number (a change to NaN widens, as a removal does). */
function numeric(v: TomlValue | undefined): number | bigint | undefined {
  return typeof v === 'bigint' || (typeof v === 'number' && !Number.isNaN(v)) ? v : undefined;
}

/** True for keys that hold an allowlist (entries added = more allowed). */
function isAllowList(key: string): boolean {
  return key === 'allow' || /(^|_)allow(list)?$/.test(key) || key.endsWith('_allowlist');
}

/**
 * Compares one key's old and new value (both possibly absent) under the rules of docs/security.md:
 * allowlists widen when they gain entries; numbers widen when raised or removed; booleans widen when
 * they turn true; every other value (strings such as `base_dir` or `remote`, other arrays) widens on
 * any change; tables are compared key by key.
 */
function compareValue(path: string, key: string, a: TomlValue | undefined, b: TomlValue | undefined, out: PolicyComparison): void {
  if (tomlEqual(a, b)) return;
  if ((a === undefined || isTomlTable(a)) && (b === undefined || isTomlTable(b)) && (a !== undefined || b !== undefined)) {
    const ta = (a ?? {}) as TomlTable;
    const tb = (b ?? {}) as TomlTable;
    const keys = [...new Set([...Object.keys(ta), ...Object.keys(tb)])].sort();
    for (const k of keys) compareValue(path === '' ? k : `${path}.${k}`, k, ta[k], tb[k], out);
    return;
  }
  const what = `${path}: ${show(a)} → ${show(b)}`;
  if (isAllowList(key) && (a === undefined || Array.isArray(a)) && (b === undefined || Array.isArray(b))) {
    const before = (a ?? []) as TomlValue[];
    const after = (b ?? []) as TomlValue[];
    const added = after.filter((x) => !before.some((y) => tomlEqual(x, y)));
    if (added.length > 0) out.widened.push(`${path} + ${added.map(show).join(', ')}`);
    else out.changed.push(what);
    return;
  }
  const na = numeric(a);
  const nb = numeric(b);
  if ((na !== undefined || a === undefined) && (nb !== undefined || b === undefined)) {
    if (nb === undefined || (na !== undefined && nb > na)) out.widened.push(what);
    else out.changed.push(what);
    return;
  }
  if ((typeof a === 'boolean' || a === undefined) && (typeof b === 'boolean' || b === undefined)) {
    if (b === true) out.widened.push(what);
    else out.changed.push(what);
    return;
  }
  out.widened.push(what);
}

/**
 * Compares two versions of a capability policy's text (`undefined` = no policy, which allows nothing).
 * A version that does not parse as TOML is treated as allowing anything when it is the new one (fail
 * closed) and as allowing nothing when it is the old one.
 * @returns the widenings and other changes; both empty when the policies are equal as TOML.
 */
export function comparePolicies(before: string | undefined, after: string | undefined): PolicyComparison {
  const out: PolicyComparison = { widened: [], changed: [] };
  if (before === after) return out;
  const a = parsePolicy(before);
  const b = parsePolicy(after);
  if ('error' in b) {
    out.widened.push(`the policy does not parse (${b.error}): it is read as allowing anything`);
    return out;
  }
  compareValue('', '', 'error' in a ? { allow: [] } : a.table, b.table, out);
  return out;
}
