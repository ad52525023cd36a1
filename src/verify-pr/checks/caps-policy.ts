/**
 * Whether a capability policy (`caps.toml`) allows more after a change than before, read as the
 * reference loader reads it (docs/reference/caps-policy.md "Effective grants", restating GenesisCode
 * `crates/gc_effects/src/policy.rs` `from_toml_str` and `policy_parse.rs` `apply_op_cfg`): a policy
 * is the set of grants the loader produces — the ops it allows (the `allow` array, then every
 * `[op."X"]` table, which grants X even when empty because `allow` defaults to true, and removes it
 * with `allow = false`), each op's sandbox settings, and the `[log]`, `[store]`, `[refs]`, `[task]`
 * and `[runtime]` budgets with the loader's defaults applied. Two versions are compared grant by
 * grant, each by its own rule; a change that is not proven to narrow (an unknown field, a string
 * that chooses a sandbox or a remote, a policy the loader refuses) counts as widening. Deny by
 * default: a missing policy allows nothing.
 */
import { parse as parseToml } from 'smol-toml';
import { tomlEqual } from '../../workspace/toml-equal.js';
import type { TomlTable, TomlValue } from '../../workspace/manifest-write.js';
import { isTomlTable } from '../../workspace/manifest-write.js';

/** What changed between two versions of a policy: widenings (each described) and proven narrowings. */
export interface PolicyComparison {
  /** Descriptions of the changes that allow more (or may: unknown fields), e.g. `allow + "io/net::http-request"`. */
  widened: string[];
  /** Descriptions of the other changes, each proven to narrow (or to change nothing the loader uses). */
  changed: string[];
}

/** How one grant compares (docs/reference/caps-policy.md "Effective grants"). */
type Rule =
  /** A ceiling: a higher number, or none (unbounded), allows more. */
  | 'ceiling'
  /**
   * A ceiling whose absence is a default the machine chooses, at least {@link DEFAULTED_FLOOR}
   * (`[task] default_workers`: the available parallelism): removing it allows more, and adding one is a
   * proven narrowing only at that floor (red-team round 6).
   */
  | 'defaulted'
  /** A switch: `true` allows more. */
  | 'flag'
  /** A choice (a directory, a remote, a credential): any change may allow more. */
  | 'exact'
  /** An allowlist: an added entry allows more. */
  | 'set'
  /** A field the loader keeps but gcpatch does not know (an op's other settings): any change counts as widening. */
  | 'unknown'
  /** Read and ignored by the loader (`version`). */
  | 'neutral';

interface Grant {
  rule: Rule;
  /** bigint for ceilings (undefined: unbounded), boolean for flags, string[] for sets, TomlValue otherwise. */
  value: TomlValue | undefined;
}

/** The effective grants of a policy: grant name → grant; ops are `op "X"` (value: where the grant came from). */
export type PolicyGrants = Map<string, Grant>;

/** The loader's numbers: an integer (bigint); `nonPositiveIsNone` for the fields the loader reads `<= 0` as unset. */
function ceiling(v: TomlValue | undefined, nonPositiveIsNone: boolean): { ok: true; value: bigint | undefined } | { ok: false } {
  if (v === undefined) return { ok: true, value: undefined };
  if (typeof v !== 'bigint') return { ok: false };
  if (nonPositiveIsNone && v <= 0n) return { ok: true, value: undefined };
  return { ok: true, value: v };
}

/** The tables the loader reads besides `allow` and `op`: field → rule (and whether `<= 0` means unset). */
const SECTIONS: Record<string, Record<string, { rule: Rule; nonPositiveIsNone?: boolean }>> = {
  log: {
    inline_max_bytes: { rule: 'ceiling', nonPositiveIsNone: true },
    store_dir: { rule: 'exact' },
    max_artifact_bytes_per_run: { rule: 'ceiling', nonPositiveIsNone: true },
  },
  store: {
    dir: { rule: 'exact' },
    remote: { rule: 'exact' },
    remote_allow: { rule: 'set' },
    allow_http: { rule: 'flag' },
    max_run_bytes: { rule: 'ceiling', nonPositiveIsNone: true },
    auth_token: { rule: 'exact' },
    auth_token_env: { rule: 'exact' },
    basic_username: { rule: 'exact' },
    basic_password: { rule: 'exact' },
    basic_password_env: { rule: 'exact' },
    mtls_ca_pem: { rule: 'exact' },
    mtls_identity_pem: { rule: 'exact' },
  },
  refs: { path: { rule: 'exact' } },
  task: {
    // absent, the loader uses the machine's parallelism (`adaptive_default_task_workers`: at least 1,
    // unbounded above), the worker budget when `max_workers` is unset; 0 is refused
    default_workers: { rule: 'defaulted' },
    max_tasks: { rule: 'ceiling' },
    max_workers: { rule: 'ceiling' },
    max_queue: { rule: 'ceiling' },
    max_steps_per_task: { rule: 'ceiling' },
    max_time_ms_per_task: { rule: 'ceiling' },
  },
  runtime: {
    max_effect_ops: { rule: 'ceiling' },
    max_payload_bytes_per_op: { rule: 'ceiling' },
    max_payload_bytes_per_run: { rule: 'ceiling' },
    max_response_bytes_per_op: { rule: 'ceiling' },
    max_response_bytes_per_run: { rule: 'ceiling' },
  },
};

/** The fields `apply_op_cfg` reads into an op's policy; every other field is kept as the op's `extra`. */
const OP_FIELDS: Record<string, { rule: Rule; nonPositiveIsNone?: boolean }> = {
  base_dir: { rule: 'exact' },
  create_dirs: { rule: 'flag' },
  // `timeout_ms = 0` (or a negative one, clamped to 0 by the loader) is no timeout where it is used:
  // the runner reads `timeout_ms.filter(|ms| *ms > 0)` (GenesisCode `runner_capability_dispatch.rs`,
  // `runner_host_bridge.rs`), so 0 or less bounds nothing
  timeout_ms: { rule: 'ceiling', nonPositiveIsNone: true },
  log_inline_max_bytes: { rule: 'ceiling', nonPositiveIsNone: true },
};

/** The least a {@link Rule} `defaulted` ceiling is when absent: the loader's machine default is never below 1. */
const DEFAULTED_FLOOR = 1n;

function setGrant(out: PolicyGrants, name: string, rule: Rule, raw: TomlValue | undefined, nonPositiveIsNone = false): string | undefined {
  switch (rule) {
    case 'defaulted': {
      // undefined: the machine default; the loader refuses a value below 1 (`default_workers must be >= 1`)
      if (raw !== undefined && (typeof raw !== 'bigint' || raw < DEFAULTED_FLOOR)) return `${name} must be an integer of at least ${DEFAULTED_FLOOR}`;
      out.set(name, { rule, value: raw });
      return undefined;
    }
    case 'ceiling': {
      const c = ceiling(raw, nonPositiveIsNone);
      if (!c.ok) return `${name} must be an integer`;
      // a negative number the loader accepts bounds as 0 (the task and runtime sections refuse one)
      out.set(name, { rule, value: c.value !== undefined && c.value < 0n ? 0n : c.value });
      return undefined;
    }
    case 'flag':
      out.set(name, { rule, value: raw === true });
      return undefined;
    case 'set':
      out.set(name, { rule, value: Array.isArray(raw) ? raw.filter((x) => typeof x === 'string') : [] });
      return undefined;
    case 'exact':
      // the loader takes strings only (anything else is unset)
      out.set(name, { rule, value: typeof raw === 'string' ? raw : undefined });
      return undefined;
    default:
      out.set(name, { rule, value: raw });
      return undefined;
  }
}

/**
 * The grants the reference loader produces from a policy's text (`undefined`: no policy, nothing
 * allowed).
 * @returns the grants, or the reason the loader (or TOML) refuses the text.
 */
export function policyGrants(text: string | undefined): { grants: PolicyGrants } | { error: string } {
  const grants: PolicyGrants = new Map();
  let table: TomlTable;
  try {
    // no policy allows what an empty one allows: nothing (the budgets then bound nothing either)
    table = parseToml(text ?? 'allow = []\n', { integersAsBigInt: true }) as unknown as TomlTable;
  } catch (error) {
    return { error: error instanceof Error ? error.message.split('\n')[0]! : String(error) };
  }
  for (const k of Object.keys(table)) {
    if (k !== 'version' && k !== 'allow' && k !== 'op' && !(k in SECTIONS))
      return { error: `the loader refuses the top-level ${isTomlTable(table[k]) ? 'table' : 'key'} ${JSON.stringify(k)}` };
  }
  if (table.version !== undefined) grants.set('version', { rule: 'neutral', value: table.version });
  for (const [section, fields] of Object.entries(SECTIONS)) {
    const t = table[section];
    if (t === undefined) {
      // the loader's defaults: every ceiling unset (unbounded), every flag off
      for (const [f, spec] of Object.entries(fields)) setGrant(grants, `${section}.${f}`, spec.rule, undefined, spec.nonPositiveIsNone);
      continue;
    }
    if (!isTomlTable(t)) return { error: `${section} must be a table` };
    for (const [f, spec] of Object.entries(fields)) {
      const e = setGrant(grants, `${section}.${f}`, spec.rule, t[f], spec.nonPositiveIsNone);
      if (e !== undefined) return { error: e };
    }
    for (const f of Object.keys(t)) if (!(f in fields)) grants.set(`${section}.${f}`, { rule: 'unknown', value: t[f] });
  }
  const ops = new Map<string, { from: string; cfg: TomlTable | undefined }>();
  const allow = table.allow;
  if (allow !== undefined) {
    if (!Array.isArray(allow)) return { error: 'allow must be an array' };
    for (const op of allow) {
      if (typeof op !== 'string') return { error: 'allow entries must be strings' };
      ops.set(op, { from: 'allow', cfg: undefined });
    }
  }
  const opTable = table.op;
  if (opTable !== undefined && isTomlTable(opTable)) {
    for (const [op, cfg] of Object.entries(opTable)) {
      if (!isTomlTable(cfg)) return { error: `op ${op} config must be a table` };
      // `allow` defaults to true; only the boolean false removes the op
      if (cfg.allow === false) ops.delete(op);
      else ops.set(op, { from: `[op.${JSON.stringify(op)}]`, cfg });
    }
  }
  for (const [op, { from, cfg }] of ops) {
    grants.set(`op ${JSON.stringify(op)}`, { rule: 'neutral', value: from });
    for (const [f, spec] of Object.entries(OP_FIELDS)) {
      const e = setGrant(grants, `[op.${JSON.stringify(op)}] ${f}`, spec.rule, cfg?.[f], spec.nonPositiveIsNone);
      if (e !== undefined) return { error: `op ${op} ${e}` };
    }
    for (const [f, v] of Object.entries(cfg ?? {})) {
      if (f === 'allow' || f in OP_FIELDS) continue;
      grants.set(`[op.${JSON.stringify(op)}] ${f}`, { rule: 'unknown', value: v });
    }
  }
  return { grants };
}

function show(v: TomlValue | undefined): string {
  if (v === undefined) return '(absent)';
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'string') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(show).join(', ')}]`;
  if (v instanceof Date) return v.toISOString();
  if (isTomlTable(v))
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${k} = ${show(v[k])}`)
      .join(', ')}}`;
  return String(v);
}

/** The name a grant is described by: `runtime.max_effect_ops`, `[op."io/fs::read"] timeout_ms`. */
function opOf(name: string): string | undefined {
  const m = /^(?:op |\[op\.)("(?:[^"\\]|\\.)*")/.exec(name);
  return m === null ? undefined : m[1];
}

/**
 * Compares two sets of grants: every grant the new one has and the old one has not (an op), or that
 * its rule says allows more, is a widening; the rest are changes.
 */
export function compareGrants(before: PolicyGrants, after: PolicyGrants, out: PolicyComparison): void {
  const names = [...new Set([...before.keys(), ...after.keys()])].sort();
  const opPresent = (g: PolicyGrants, op: string | undefined): boolean => op === undefined || g.has(`op ${op}`);
  for (const name of names) {
    const a = before.get(name);
    const b = after.get(name);
    const op = opOf(name);
    if (name.startsWith('op ')) {
      if (a === undefined && b !== undefined) out.widened.push(b.value === 'allow' ? `allow + ${op}` : `${show(b.value).slice(1, -1)} grants ${op}`);
      else if (a !== undefined && b === undefined) out.changed.push(`${op} no longer granted`);
      continue;
    }
    // an op's settings are compared only while both sides grant the op
    if (op !== undefined && !(opPresent(before, op) && opPresent(after, op))) continue;
    if (a !== undefined && b !== undefined && tomlEqual(a.value, b.value)) continue;
    if (a === undefined && b === undefined) continue;
    const what = `${name}: ${show(a?.value)} → ${show(b?.value)}`;
    const rule = b?.rule ?? a!.rule;
    switch (rule) {
      case 'ceiling': {
        const x = a?.value as bigint | undefined;
        const y = b?.value as bigint | undefined;
        if (y === undefined || (x !== undefined && y > x)) out.widened.push(what);
        else out.changed.push(what);
        break;
      }
      case 'defaulted': {
        // absent after: the machine's default, which may exceed any number; absent before: at least the floor
        const x = (a?.value as bigint | undefined) ?? DEFAULTED_FLOOR;
        const y = b?.value as bigint | undefined;
        if (y === undefined || y > x) out.widened.push(`${what}${a?.value === undefined ? ' (absent, the machine chooses: at least 1)' : ''}`);
        else out.changed.push(what);
        break;
      }
      case 'flag':
        if (b?.value === true) out.widened.push(what);
        else out.changed.push(what);
        break;
      case 'set': {
        const x = (a?.value ?? []) as TomlValue[];
        const y = (b?.value ?? []) as TomlValue[];
        const added = y.filter((e) => !x.some((f) => tomlEqual(e, f)));
        if (added.length > 0) out.widened.push(`${name} + ${added.map(show).join(', ')}`);
        else out.changed.push(what);
        break;
      }
      case 'neutral':
        out.changed.push(what);
        break;
      case 'unknown':
        out.widened.push(`${what} (a field gcpatch does not know: any change counts as widening)`);
        break;
      default:
        out.widened.push(what);
    }
  }
}

/**
 * Compares two versions of a capability policy's text (`undefined` = no policy, which allows
 * nothing) by their effective grants ({@link policyGrants}). A new version the loader refuses (or
 * that is not TOML) is read as allowing anything (fail closed); an old one as allowing nothing.
 * @returns the widenings and the proven narrowings; both empty when the grants are equal.
 */
export function comparePolicies(before: string | undefined, after: string | undefined): PolicyComparison {
  const out: PolicyComparison = { widened: [], changed: [] };
  if (before === after) return out;
  const a = policyGrants(before);
  const b = policyGrants(after);
  if ('error' in b) {
    out.widened.push(`the policy does not load (${b.error}): it is read as allowing anything`);
    return out;
  }
  compareGrants('error' in a ? (policyGrants(undefined) as { grants: PolicyGrants }).grants : a.grants, b.grants, out);
  return out;
}
