/**
 * The net change of one package and what explains it (docs/security.md "The construction"). The
 * object judged is the difference between the merge base and the head — what a reviewer sees —
 * item by item: each module's canonical forms, each top-level manifest key, each capability policy
 * file. The history walk (`explain.ts`) only *explains*: it carries, commit by commit, the set of
 * items whose content no positively verified step produced ("dirty": changed by hand, taken from a
 * root or orphan commit, from a parent with no readable package, or from a dirty parent), and
 * {@link judgeNetChange} judges every item that differs at the head and is dirty there by the
 * change-class table (default deny), whatever the history's shape. An item whose content equals
 * the merge base's is never dirty (nothing changed).
 */
import { formsEqual } from '../../coreform/forms.js';
import { tomlEqual } from '../../workspace/toml-equal.js';
import { comparePolicies } from './caps-policy.js';
import { AuditCode, type AuditCodeValue, type PackageFindings, type Severity } from '../report/findings.js';
import { judgeKeyChange, LIST_KEYS, listEntries } from './manifest-keys.js';
import { capsPolicyPath, repoPath, type CommitPackageSnapshot } from '../evidence/package-at-commit.js';

/** An item of a package: `m:<module path>`, `k:<top-level manifest key>`, `p:<policy file path>` (package-relative). */
export type Item = string;

/** The item of module `path`. */
export const moduleItem = (path: string): Item => `m:${path}`;
/** The item of top-level manifest key `key`. */
export const keyItem = (key: string): Item => `k:${key}`;
/** The item of policy file `path`. */
export const policyItem = (path: string): Item => `p:${path}`;

/** Every item `s` holds (none for a missing package). */
export function itemsOf(s: CommitPackageSnapshot | undefined): Set<Item> {
  const out = new Set<Item>();
  if (s === undefined) return out;
  for (const p of s.byPath.keys()) out.add(moduleItem(p));
  for (const k of Object.keys(s.table)) out.add(keyItem(k));
  for (const p of s.policies.keys()) out.add(policyItem(p));
  return out;
}

/** True when `item` has the same content in `a` and `b` (canonical forms, TOML value, policy text). */
export function sameItem(a: CommitPackageSnapshot | undefined, b: CommitPackageSnapshot | undefined, item: Item): boolean {
  const name = item.slice(2);
  switch (item[0]) {
    case 'm': {
      // the module hash is the hash of the canonical forms (docs/reference/hashing.md §2): equal hashes, equal forms
      const x = a?.byPath.get(name);
      const y = b?.byPath.get(name);
      return x === undefined || y === undefined ? x === y : x.hash === y.hash || ((x.hash === '' || y.hash === '') && formsEqual(x.forms, y.forms));
    }
    case 'k':
      return tomlEqual(a?.table[name], b?.table[name]);
    default:
      return a?.policies.get(name)?.text === b?.policies.get(name)?.text;
  }
}

/** The items of `s` (or of `base`) whose content differs from `base`'s. */
export function differingFrom(base: CommitPackageSnapshot, s: CommitPackageSnapshot | undefined): Set<Item> {
  const out = new Set<Item>();
  if (s === base) return out;
  for (const item of new Set([...itemsOf(base), ...itemsOf(s)])) if (!sameItem(base, s, item)) out.add(item);
  return out;
}

/**
 * The dirty items a commit inherits from its parents: a single parent's dirty items; for a merge,
 * an item dirty in some parent stays dirty unless the commit holds exactly the content of a parent
 * in which it is clean.
 */
export function inheritedDirty(
  now: CommitPackageSnapshot,
  parents: readonly (CommitPackageSnapshot | undefined)[],
  parentDirty: readonly ReadonlySet<Item>[],
): Set<Item> {
  const out = new Set<Item>();
  if (parentDirty.length <= 1) {
    for (const i of parentDirty[0] ?? []) out.add(i);
    return out;
  }
  for (const item of new Set(parentDirty.flatMap((d) => [...d]))) {
    const fromClean = parents.some((p, i) => !parentDirty[i]!.has(item) && sameItem(p, now, item));
    if (!fromClean) out.add(item);
  }
  return out;
}

/** What {@link judgeNetChange} needs. */
export interface NetInput {
  /** The package at the merge base (or its nearest readable ancestor). */
  base: CommitPackageSnapshot;
  head: CommitPackageSnapshot;
  /** The items no verified step produced, at the head. */
  dirty: ReadonlySet<Item>;
  /** Modules verified evidence changed somewhere in the pull request (on any branch). */
  evidenceCovered: ReadonlySet<string>;
  dir: string;
}

const RANK: Record<Severity, number> = { notice: 0, warning: 1, error: 2 };

/**
 * Judges the net change (see the module comment), recording a finding for each dirty difference
 * that the walk did not already report at that severity or above: a module evidence changed →
 * error (`audit/replay-module-mismatch`); another module → warning (`audit/unexplained-change`);
 * a manifest key → the key table (`manifest-keys.ts`); an obligation, test or property test removed
 * → error (`audit/obligations-weakened`); a policy → by its effective grants (`audit/caps-widened`
 * error, a proven narrowing `audit/caps-changed` warning).
 * @returns the number of findings recorded.
 */
export function judgeNetChange(input: NetInput, out: PackageFindings): number {
  const { base, head, dirty, evidenceCovered, dir } = input;
  let recorded = 0;
  const reported = (file: string, severity: Severity, code: string | undefined, mentions?: string): boolean =>
    out.findings.some(
      (f) =>
        f.file === file &&
        RANK[f.severity] >= RANK[severity] &&
        (code === undefined || f.code === code) &&
        (mentions === undefined || f.message.includes(mentions)),
    );
  const record = (kind: string, evidence: string, severity: Severity, code: AuditCodeValue, file: string, message: string, title: string): void => {
    out.fail(kind, evidence, 'net change', { code, severity, message, file, title });
    recorded++;
  };
  const NET = 'at the head (the net change since the merge base, what a reviewer sees)';

  // Modules.
  const paths = new Set([...base.byPath.keys(), ...head.byPath.keys()]);
  for (const path of [...paths].sort()) {
    if (!dirty.has(moduleItem(path)) || sameItem(base, head, moduleItem(path))) continue;
    const file = head.byPath.get(path)?.file ?? repoPath(dir, path);
    if (evidenceCovered.has(path)) {
      if (reported(file, 'error', undefined)) continue;
      record(
        'module',
        path,
        'error',
        AuditCode.replayModuleMismatch,
        file,
        `${file}: ${NET} holds content no verified step produced: evidence in this pull request changed this module, and a change beside it (on another branch, before it, in a merge, or in a commit with nothing to be checked against) is not what the evidence produced; redo it as a patch or refactor, or drop it`,
        'replay differs',
      );
    } else if (!reported(file, 'warning', undefined)) {
      record(
        'module',
        path,
        'warning',
        AuditCode.unexplainedChange,
        file,
        `${file}: ${NET} differs from the merge base and no evidence in this pull request explains the change`,
        'unexplained change',
      );
    }
  }

  // Manifest keys.
  const manifest = head.manifestPath;
  const keys = new Set([...Object.keys(base.table), ...Object.keys(head.table)]);
  for (const k of [...keys].sort()) {
    if (k === 'modules' || !dirty.has(keyItem(k)) || sameItem(base, head, keyItem(k))) continue;
    if ((LIST_KEYS as readonly string[]).includes(k)) {
      const kept = new Set(listEntries(head.table, k));
      for (const name of listEntries(base.table, k)
        .filter((e) => !kept.has(e))
        .sort()) {
        if (reported(manifest, 'error', AuditCode.obligationsWeakened, name)) continue;
        record(
          'manifest',
          'package.toml',
          'error',
          AuditCode.obligationsWeakened,
          manifest,
          `${manifest}: ${NET} lacks ${k} entry ${name}, and no evidence removed it; only evidence may remove it (an update-manifest patch), or restore it`,
          `${k} entry removed`,
        );
      }
      continue;
    }
    const verdict = judgeKeyChange(k, base.table[k], head.table[k]);
    if (verdict === undefined || reported(manifest, verdict.severity, verdict.code, k)) continue;
    record(
      'manifest',
      'package.toml',
      verdict.severity,
      verdict.code,
      manifest,
      `${manifest}: ${NET} changes ${verdict.detail} and no evidence explains it${verdict.severity === 'error' ? '; make the change with an update-manifest patch (gcpatch apply) on the base branch, or revert it' : ''}`,
      verdict.title,
    );
  }

  // Capability policies: the one the package runs under, and every policy file.
  const refBase = capsPolicyPath(base.table);
  const refHead = capsPolicyPath(head.table);
  const judgePolicy = (label: string, file: string, before: string | undefined, after: string | undefined): void => {
    const cmp = comparePolicies(before, after);
    if (cmp.widened.length > 0) {
      if (reported(file, 'error', AuditCode.capsWidened)) return;
      record(
        'policy',
        file,
        'error',
        AuditCode.capsWidened,
        file,
        `${file}: ${NET} widens ${label}: ${cmp.widened.slice(0, 6).join('; ')}${cmp.widened.length > 6 ? ` (${cmp.widened.length} in all)` : ''}; a capability policy may only be widened on the base branch, reviewed`,
        'capabilities widened',
      );
    } else if (cmp.changed.length > 0 && !reported(file, 'warning', undefined)) {
      record(
        'policy',
        file,
        'warning',
        AuditCode.capsChanged,
        file,
        `${file}: ${NET} changes ${label} (${cmp.changed.slice(0, 6).join('; ')}), a narrowing`,
        'capabilities changed',
      );
    }
  };
  if (refBase !== refHead && (dirty.has(keyItem('caps_policy')) || (refHead !== undefined && dirty.has(policyItem(refHead))))) {
    judgePolicy(
      `the package's capability policy (caps_policy ${JSON.stringify(refBase ?? null)} → ${JSON.stringify(refHead ?? null)})`,
      refHead !== undefined ? repoPath(dir, refHead) : manifest,
      refBase === undefined ? undefined : base.policies.get(refBase)?.text,
      refHead === undefined ? undefined : head.policies.get(refHead)?.text,
    );
  }
  const policyPaths = new Set([...base.policies.keys(), ...head.policies.keys()]);
  for (const path of [...policyPaths].sort()) {
    if (path === refHead && refHead !== refBase) continue;
    if (!dirty.has(policyItem(path)) || sameItem(base, head, policyItem(path))) continue;
    judgePolicy(
      path === refHead ? "the package's capability policy" : `the policy file ${path}`,
      repoPath(dir, path),
      base.policies.get(path)?.text,
      head.policies.get(path)?.text,
    );
  }
  return recorded;
}
