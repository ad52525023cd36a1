/**
 * `.gc` files outside every package (docs/action.md "Files outside every package"): gcpatch verifies
 * packages only, and on a real layout most `.gc` files may live outside one (GenesisCode's own
 * repository). By default they are one notice with their count — the list is `paths[]` with
 * `role: "outside"` in the JSON report; `outsidePackage: 'warning'` (`--outside-package warning`,
 * the Action's `outside-package` input) makes each one a warning, as before, so that
 * `fail-on: warning` fails on them. To have such a file verified, make it a module of a package.
 */
import type { PathAccount } from './path-account.js';
import { AuditCode, type PackageFindings } from './findings.js';

/** How `.gc` files outside every package are reported. */
export type OutsidePackageMode = 'notice' | 'warning';

/** The `.gc` files outside every package that were added or changed. */
function outsideModules(accounts: readonly PathAccount[]): PathAccount[] {
  return accounts.filter((a) => a.role === 'outside' && a.change !== 'deleted' && a.path.endsWith('.gc'));
}

/**
 * Records the outside-package findings on `global`: one notice with the count (`notice`, the
 * default), or one warning per file (`warning`). Nothing when there is none.
 */
export function reportOutsidePackages(accounts: readonly PathAccount[], mode: OutsidePackageMode, global: PackageFindings): void {
  const outside = outsideModules(accounts);
  if (outside.length === 0) return;
  if (mode === 'warning') {
    for (const a of outside) {
      global.fail('path', a.path, 'kind', {
        code: AuditCode.outsidePackage,
        severity: 'warning',
        message: `${a.path}: a .gc file outside every package was ${a.change}; gcpatch verifies packages only`,
        file: a.path,
        title: 'outside every package',
      });
    }
    return;
  }
  const n = outside.length;
  const shown =
    outside
      .slice(0, 3)
      .map((a) => a.path)
      .join(', ') + (n > 3 ? ', …' : '');
  global.fail('path', `${n} .gc file${n === 1 ? '' : 's'}`, 'outside every package', {
    code: AuditCode.outsidePackage,
    severity: 'notice',
    message:
      `${n} .gc file${n === 1 ? '' : 's'} outside every package ${n === 1 ? 'was' : 'were'} added or changed (${shown}); gcpatch verifies packages only. ` +
      'The list: paths[] with role "outside" in --json. To verify them, make them modules of a package; to make each one a warning, use --outside-package warning (the Action\'s outside-package input)',
    title: 'outside every package',
  });
}
