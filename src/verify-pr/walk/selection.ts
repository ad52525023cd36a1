/** The selection and the shards: which changed packages a run verifies (`packages` globs, `shard` i/n), and the findings for those it leaves out. */
import { GcError } from '../../util/errors.js';
import type { CandidatePackage } from './accounting.js';
import { AuditCode, type PackageFindings } from '../report/findings.js';
import { parseGlobList, pathMatcher } from './glob.js';

/** Parses a `shard` option `i/n` (1 ≤ i ≤ n). @throws GcError `usage/invalid-option` (exit 10). */
export function parseShard(shard: string | undefined): { index: number; count: number } | undefined {
  if (shard === undefined || shard.trim() === '') return undefined;
  const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(shard);
  const index = m ? Number(m[1]) : NaN;
  const count = m ? Number(m[2]) : NaN;
  if (!m || !(count >= 1) || !(index >= 1) || index > count) {
    throw new GcError('usage/invalid-option', `shard must be i/n with 1 ≤ i ≤ n (e.g. 2/4), got ${JSON.stringify(shard)}`, {
      details: { option: 'shard', value: shard },
    });
  }
  return { index, count };
}

/** The repository-relative manifest path of a package directory. */
function repoManifest(dir: string): string {
  return dir === '' ? 'package.toml' : `${dir}/package.toml`;
}

/** The changed packages a run verifies. */
export interface Selection {
  /** The selected packages of this run's shard, in manifest path order. */
  inShard: CandidatePackage[];
  /** Manifest paths of the changed packages this run does not verify. */
  notSelected: string[];
  /** True for the first shard (or no sharding): it reports the findings not tied to a package. */
  firstShard: boolean;
}

/**
 * Selects the changed packages (sorted by manifest path, UTF-8) the `packages` globs match — a
 * package moved out of a selected directory stays selected where it went — and of those the shard's
 * share (every `count`-th, from `index`). Records in `global` `audit/selection-empty` when the globs
 * select none of them and a notice `audit/package-not-selected` for each one they leave out.
 * @param moved package directory at the head → its directory at the base, for moved packages.
 */
export function selectPackages(
  changedPackages: readonly CandidatePackage[],
  moved: ReadonlyMap<string, string>,
  packages: string | readonly string[] | undefined,
  shard: { index: number; count: number } | undefined,
  global: PackageFindings,
): Selection {
  const selectedBy = pathMatcher(parseGlobList(packages));
  const selectedPackages = changedPackages.filter((c) => selectedBy(c.manifestPath) || (moved.has(c.dir) && selectedBy(repoManifest(moved.get(c.dir)!))));
  const inShard = selectedPackages.filter((_, i) => shard === undefined || i % shard.count === shard.index - 1);
  const notSelected = changedPackages.filter((c) => !inShard.includes(c)).map((c) => c.manifestPath);
  const firstShard = shard === undefined || shard.index === 1;
  if (changedPackages.length > 0 && selectedPackages.length === 0) {
    global.fail('selection', 'packages', 'selects', {
      code: AuditCode.selectionEmpty,
      message: `the selection ${JSON.stringify(parseGlobList(packages).join(','))} selects none of the ${changedPackages.length} changed package${changedPackages.length === 1 ? '' : 's'} (${changedPackages.map((c) => c.manifestPath).join(', ')}); fix the packages input or drop it to verify every package`,
      title: 'selection selects nothing',
    });
  }
  for (const c of changedPackages) {
    if (selectedPackages.includes(c)) continue;
    global.fail('selection', c.manifestPath, 'selected', {
      code: AuditCode.packageNotSelected,
      severity: 'notice',
      message: `${c.manifestPath} changed but the selection leaves it out: it is not verified`,
      file: c.manifestPath,
      title: 'package not selected',
    });
  }
  return { inShard, notSelected, firstShard };
}
