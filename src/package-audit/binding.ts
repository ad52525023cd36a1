/** Which package an acceptance is for: the store's links from the last acceptance to package records, compared with the package as it is. */
import { kw, mapGet, type Term } from '../coreform/term.js';
import { APPLY_REPORT_KIND } from '../patch/apply/apply-report.js';
import type { EvidenceStore } from '../store/store.js';
import { isHex64, toHex } from '../util/bytes.js';
import type { LoadedPackage } from '../workspace/package.js';

/**
 * How the last acceptance is tied to the package as it is. An acceptance names only the package's
 * name and version; the store links it to the package record (`genesis/package-v0.2`) it was
 * produced for through an apply report (`genesis/patch-apply-v0.3`: `:package-artifact`,
 * `:acceptance-artifact`) or a transparency entry of `genesis sign` (`genesis/transparency-entry-v0.2`,
 * the same two fields). `bound`: one link names the current package record; `stale`: links exist,
 * none to the current record (`changedModules` says what changed since the linked record);
 * `unbound`: no link; `not-checked`: no acceptance, or the current record could not be computed.
 * docs/reference/genesis-cli.md "Which package an acceptance is for".
 */
export interface AcceptanceBinding {
  status: 'bound' | 'stale' | 'unbound' | 'not-checked';
  /** Address of the package record of the package as it is now. */
  currentPackageArtifact: string | undefined;
  /** The linked package records and the store entry linking each (sorted by `via`). */
  links: { packageArtifact: string; via: string; kind: string }[];
  /** For `stale`: module paths changed, added or removed since the (first) linked package record, sorted. */
  changedModules: { path: string; change: 'changed' | 'added' | 'removed' }[];
}

const TRANSPARENCY_ENTRY_KIND = 'genesis/transparency-entry-v0.2';

/** A hex64 string, or 32 raw bytes as hex; undefined otherwise. */
function addressOf(t: Term | undefined): string | undefined {
  if (t?.kind === 'str' && isHex64(t.value)) return t.value;
  if (t?.kind === 'bytes' && t.value.length === 32) return toHex(t.value);
  return undefined;
}

/**
 * Finds the package records the store links `acceptance` to (see {@link AcceptanceBinding}) and
 * compares them with `current`. Entries that do not read are skipped (the store verify reports them).
 */
export function acceptanceBinding(store: EvidenceStore, acceptance: string, current: string, pkg: LoadedPackage): AcceptanceBinding {
  const links: AcceptanceBinding['links'] = [];
  for (const entry of store.list()) {
    let t: Term;
    try {
      t = store.getTerm(entry.hex);
    } catch {
      continue;
    }
    if (t.kind !== 'map') continue;
    const kind = mapGet(t, kw('kind'));
    if (kind?.kind !== 'str' || (kind.value !== APPLY_REPORT_KIND && kind.value !== TRANSPARENCY_ENTRY_KIND)) continue;
    if (addressOf(mapGet(t, kw('acceptance-artifact'))) !== acceptance) continue;
    const packageArtifact = addressOf(mapGet(t, kw('package-artifact')));
    if (packageArtifact !== undefined) links.push({ packageArtifact, via: entry.hex, kind: kind.value });
  }
  links.sort((a, b) => (a.via < b.via ? -1 : a.via > b.via ? 1 : 0));
  if (links.some((l) => l.packageArtifact === current)) return { status: 'bound', currentPackageArtifact: current, links, changedModules: [] };
  if (links.length === 0) return { status: 'unbound', currentPackageArtifact: current, links, changedModules: [] };
  return { status: 'stale', currentPackageArtifact: current, links, changedModules: changedSince(store, links[0]!.packageArtifact, pkg) };
}

/** Modules of `pkg` (by computed hash) that differ from the package record `record`'s `:modules`. */
function changedSince(store: EvidenceStore, record: string, pkg: LoadedPackage): AcceptanceBinding['changedModules'] {
  let t: Term;
  try {
    t = store.getTerm(record);
  } catch {
    return [];
  }
  const then = new Map<string, string>();
  const modules = t.kind === 'map' ? mapGet(t, kw('modules')) : undefined;
  for (const m of modules?.kind === 'vec' ? modules.items : []) {
    const path = m.kind === 'map' ? mapGet(m, kw('path')) : undefined;
    const hash = m.kind === 'map' ? addressOf(mapGet(m, kw('hash'))) : undefined;
    if (path?.kind === 'str') then.set(path.value, hash ?? '');
  }
  const out: AcceptanceBinding['changedModules'] = [];
  for (const m of pkg.modules) {
    const old = then.get(m.path);
    if (old === undefined) out.push({ path: m.path, change: 'added' });
    else if (old !== m.hash) out.push({ path: m.path, change: 'changed' });
  }
  const now = new Set(pkg.modules.map((m) => m.path));
  for (const path of then.keys()) if (!now.has(path)) out.push({ path, change: 'removed' });
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** How to produce an acceptance for the package as it is, linked to its package record. */
export function rerun(pkg: LoadedPackage | undefined): string {
  const declared = (pkg?.manifest.obligations.length ?? 0) > 0;
  return (
    `run the obligations on the package as it is: \`gcpatch accept${declared ? ' --obligation-runner genesis' : ''}\` ` +
    `(${declared ? 'the GenesisCode CLI on PATH, or your own runner command; ' : ''}its apply report links the new acceptance to the package record), ` +
    'or `genesis test --pkg package.toml` then `genesis sign` (its transparency entry links them)'
  );
}
