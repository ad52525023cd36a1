/**
 * The package state a commit starts from: its parent's (the last readable one), nothing for a root
 * commit, or for a merge what merging its parents gives — the merge driver's structural merge for two
 * parents with a merge base, a per-module and per-key three-way rule over the octopus merge base for
 * more than two parents. What a merge may resolve either way is listed as alternatives (two parents
 * with a merge base only: a conflict resolved to one parent's version is honest); an octopus merge or
 * a merge without a merge base accepts only what merging gives.
 */
import { canonicalizeSource } from '../../coreform/canon.js';
import type { Term } from '../../coreform/term.js';
import { formsEqual } from '../../coreform/forms.js';
import type { PackageState } from '../../patch/protocol/state.js';
import { mergeFileBytes } from '../../textmerge/driver.js';
import { tomlEqual } from '../../workspace/toml-equal.js';
import { parseManifestTable, type TomlTable, type TomlValue } from '../../workspace/manifest-write.js';
import { comparePolicies } from '../checks/caps-policy.js';
import { LIST_KEYS, listEntries, mergedListEntries, type ListKey } from '../checks/manifest-keys.js';
import { snapshotState, type CommitPackageSnapshot } from '../evidence/package-at-commit.js';

type Forms = readonly Term[];

/** The package a commit starts from. */
export interface StartState {
  /** Modules and manifest; `undefined` when there is no package to start from (a root commit, a new package). */
  state: PackageState | undefined;
  /** True for a merge commit. */
  merge: boolean;
  /** How many parents (0 for a root commit). */
  parents: number;
  /** Merge conflicts: module path → the versions any of which is an honest resolution. */
  alternatives: Map<string, (Forms | undefined)[]>;
  /**
   * Manifest keys whose three-way merge conflicted (two parents with a merge base): the parents'
   * tables, either of whose value for that key is an honest resolution. Every other key must be
   * what merging gives.
   */
  keyAlternatives: Map<string, TomlTable[]>;
  /** Manifest keys an octopus merge could not merge (no resolution is explained). */
  conflictedKeys: Set<string>;
  /** Capability policy texts by package-relative path (`caps-policy.ts`), merged like modules. */
  policies: Map<string, string>;
  /** Policy paths whose merge conflicted: the texts any of which is an honest resolution. */
  policyAlternatives: Map<string, (string | undefined)[]>;
  /** The entries of each list key that the start state declares (for a merge: what merging keeps). */
  lists: Map<ListKey, Set<string>>;
}

function policyTexts(s: CommitPackageSnapshot | undefined): Map<string, string> {
  return new Map([...(s?.policies ?? new Map()).values()].map((p) => [p.path, p.text]));
}

function listsOf(table: TomlTable | undefined): Map<ListKey, Set<string>> {
  return new Map(LIST_KEYS.map((k) => [k, new Set(table === undefined ? [] : listEntries(table, k))]));
}

/** Two policy texts that say the same (equal as TOML; texts that do not parse, by their bytes). */
function policyEqual(a: string | undefined, b: string | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined) return false;
  const c = comparePolicies(a, b);
  return c.widened.length === 0 && c.changed.length === 0;
}

/** The `[[modules]]` list without pins: `[{path}]` in manifest order. */
function modulePathList(t: TomlTable): TomlValue {
  const m = t.modules;
  if (!Array.isArray(m)) return m ?? [];
  return m.map((e) =>
    typeof e === 'object' && e !== null && !Array.isArray(e) && !(e instanceof Date) && typeof (e as TomlTable).path === 'string'
      ? { path: (e as TomlTable).path! }
      : e,
  );
}

/** The start state of a commit with one (readable) parent, or of a root commit / new package (`undefined`). */
export function parentStart(parent: CommitPackageSnapshot | undefined): StartState {
  return {
    state: parent === undefined ? undefined : snapshotState(parent),
    merge: false,
    parents: parent === undefined ? 0 : 1,
    alternatives: new Map(),
    keyAlternatives: new Map(),
    conflictedKeys: new Set(),
    policies: policyTexts(parent),
    policyAlternatives: new Map(),
    lists: listsOf(parent?.table),
  };
}

const ENCODER = new TextEncoder();
const DECODER = new TextDecoder();
const MARKERS = { markerSize: 7, style: 'merge' as const, oursLabel: 'ours', baseLabel: 'base', theirsLabel: 'theirs' };
const NO_LINE_MERGE = () => ({ ok: false, text: new Uint8Array(), conflicts: 1, message: 'verify-pr does not fall back to a line merge' });

/** The three-way rule for one value over n parents: the one value every changing parent agrees on, else conflict. */
function mergeValue<T>(
  base: T | undefined,
  versions: readonly (T | undefined)[],
  equal: (a: T | undefined, b: T | undefined) => boolean,
): { ok: true; value: T | undefined } | { ok: false } {
  const changed = versions.filter((v) => !equal(v, base));
  if (changed.length === 0) return { ok: true, value: base };
  if (changed.every((v) => equal(v, changed[0]))) return { ok: true, value: changed[0] };
  return { ok: false };
}

/**
 * What merging the parents' packages gives. Two parents with a merge base: the driver's structural
 * merge (`mergeFileBytes`) of `package.toml` and of each module; a conflict may be resolved to either
 * parent's version. More than two parents (`mergeBase` = their octopus merge base) or no merge base:
 * each module, key and policy file takes the one version the parents that changed it agree on; a
 * conflict has no honest resolution but the first parent's version when there is no merge base.
 * @param parents the parents' last readable packages (`undefined`: the parent has no package).
 */
export function mergedStart(parents: readonly (CommitPackageSnapshot | undefined)[], mergeBase: CommitPackageSnapshot | undefined): StartState {
  const present = parents.filter((p): p is CommitPackageSnapshot => p !== undefined);
  const first = parents[0] ?? present[0];
  const structural = parents.length === 2 && mergeBase !== undefined && present.length === 2;
  const out: StartState = {
    state: undefined,
    merge: true,
    parents: parents.length,
    alternatives: new Map(),
    keyAlternatives: new Map(),
    conflictedKeys: new Set(),
    policies: new Map(),
    policyAlternatives: new Map(),
    lists: new Map(),
  };
  if (first === undefined) {
    out.lists = listsOf(undefined);
    return out;
  }

  const m: MergeInputs = { parents, mergeBase, present, first, structural, out };
  const manifest = mergedManifest(m);
  // The list keys: three-way per entry, whatever the TOML merge did.
  out.lists = new Map(
    LIST_KEYS.map((k) => [
      k,
      mergedListEntries(
        mergeBase === undefined ? undefined : listEntries(mergeBase.table, k),
        parents.map((p) => (p === undefined ? [] : listEntries(p.table, k))),
      ),
    ]),
  );

  const modules = mergedModules(m);
  out.state = { manifest, modules };
  mergePolicies(m);
  return out;
}

/** What the parts of {@link mergedStart} share: the parents, the merge base, and the state being built. */
interface MergeInputs {
  parents: readonly (CommitPackageSnapshot | undefined)[];
  mergeBase: CommitPackageSnapshot | undefined;
  present: readonly CommitPackageSnapshot[];
  first: CommitPackageSnapshot;
  /** Two parents with a merge base: the driver's structural merge decides. */
  structural: boolean;
  out: StartState;
}

/** The merged `package.toml`: the driver's structural merge when it merges cleanly, else key by key (recording the keys a resolution may take from either side, or that conflict). */
function mergedManifest(m: MergeInputs): TomlTable {
  const { parents, mergeBase, present, first, structural, out } = m;
  // The manifest: the driver's structural merge when it merges cleanly, else key by key.
  let manifest: TomlTable = first.table;
  let byKey = !structural && present.length > 1;
  if (structural) {
    const [p1, p2] = present as [CommitPackageSnapshot, CommitPackageSnapshot];
    try {
      const outcome = mergeFileBytes(
        ENCODER.encode(mergeBase!.manifestText), // `structural` means there is a merge base
        ENCODER.encode(p1.manifestText),
        ENCODER.encode(p2.manifestText),
        { mode: 'manifest', markers: MARKERS, path: p1.manifestPath },
        NO_LINE_MERGE,
      );
      if (outcome.exitCode === 0) manifest = outcome.result === undefined ? p1.table : parseManifestTable(DECODER.decode(outcome.result), p1.manifestPath);
      else byKey = true;
    } catch {
      byKey = true;
    }
  }
  if (byKey) {
    manifest = {};
    const tables = parents.map((p) => p?.table);
    const keys = new Set(tables.flatMap((t) => Object.keys(t ?? {})));
    for (const k of [...keys].sort()) {
      // the module list merges by paths and order (pins are the head pin check's business)
      const value = (t: TomlTable | undefined): TomlValue | undefined => (k === 'modules' && t !== undefined ? modulePathList(t) : t?.[k]);
      const versions = tables.map(value);
      const r =
        mergeBase !== undefined
          ? mergeValue<TomlValue>(value(mergeBase.table), versions, tomlEqual)
          : versions.every((v) => tomlEqual(v, versions[0]))
            ? ({ ok: true, value: versions[0] } as const)
            : ({ ok: false } as const);
      if (r.ok) {
        if (r.value !== undefined) manifest[k] = r.value;
        continue;
      }
      const v = value(first.table);
      if (v !== undefined) manifest[k] = v;
      // a real conflict of two parents with a merge base may be resolved to either side's value;
      // an octopus merge, or one without a merge base, must give what merging gives
      if (structural)
        out.keyAlternatives.set(
          k,
          present.map((p) => p.table),
        );
      else out.conflictedKeys.add(k);
    }
  }
  return manifest;
}

/** The merged modules (recording the versions any of which honestly resolves a conflict). */
function mergedModules(m: MergeInputs): Map<string, Forms> {
  const { parents, mergeBase, present, structural, out } = m;
  // The modules.
  const modules = new Map<string, Forms>();
  const paths = new Set<string>(present.flatMap((p) => [...p.byPath.keys()]));
  for (const path of paths) {
    const versions = parents.map((p) => p?.byPath.get(path));
    const forms = versions.map((v) => v?.forms);
    let merged: Forms | undefined;
    let conflicted = false;
    if (forms.every((f) => formsEqual(f, forms[0]))) merged = forms[0];
    else if (!structural) {
      const r = mergeBase === undefined ? ({ ok: false } as const) : mergeValue(mergeBase.byPath.get(path)?.forms, forms, formsEqual);
      if (r.ok) merged = r.value;
      else {
        // no honest resolution but, without a merge base, the first parent's version
        merged = forms[0];
        if (mergeBase === undefined) out.alternatives.set(path, [forms[0]]);
        else out.alternatives.set(path, []);
      }
      if (merged !== undefined) modules.set(path, merged);
      continue;
    } else {
      const b = mergeBase!.byPath.get(path); // `structural` means there is a merge base
      if (formsEqual(b?.forms, forms[0])) merged = forms[1];
      else if (formsEqual(b?.forms, forms[1])) merged = forms[0];
      else if (b === undefined || versions[0] === undefined || versions[1] === undefined) conflicted = true;
      else {
        try {
          const outcome = mergeFileBytes(b.bytes, versions[0].bytes, versions[1].bytes, { mode: 'gc', markers: MARKERS, path }, NO_LINE_MERGE);
          if (outcome.exitCode === 0 && outcome.method !== 'line') merged = outcome.result === undefined ? forms[0] : canonicalizeSource(outcome.result);
          else conflicted = true;
        } catch {
          conflicted = true;
        }
      }
    }
    if (conflicted) {
      out.alternatives.set(path, forms);
      merged = forms.find((f) => f !== undefined);
    }
    if (merged !== undefined) modules.set(path, merged);
  }
  return modules;
}

/** The policy files, merged like modules (by text), into `out.policies` and `out.policyAlternatives`. */
function mergePolicies(m: MergeInputs): void {
  const { parents, mergeBase, structural, out } = m;
  // The policy files, merged like modules (by text).
  const texts = parents.map(policyTexts);
  const baseTexts = policyTexts(mergeBase);
  for (const path of new Set(texts.flatMap((t) => [...t.keys()]))) {
    const versions = texts.map((t) => t.get(path));
    const r =
      mergeBase === undefined && !versions.every((v) => policyEqual(v, versions[0]))
        ? ({ ok: false } as const)
        : mergeValue(baseTexts.get(path), versions, policyEqual);
    if (r.ok) {
      if (r.value !== undefined) out.policies.set(path, r.value);
    } else {
      if (versions[0] !== undefined) out.policies.set(path, versions[0]);
      out.policyAlternatives.set(path, structural ? versions : [versions[0]]);
    }
  }
}
