/** The moved-package route: a package the pull request moved to another directory, judged against the package as it stood there at the base. */
import type { PackageState } from '../../patch/protocol/state.js';
import { checkManifest } from '../checks/check-manifest.js';
import { checkModules } from '../checks/check-modules.js';
import { checkPolicies } from '../checks/check-policies.js';
import { emptyHistoryResult, type CommitCheck, type EvidenceOutcome, type HistoryResult } from './commit-context.js';
import type { CommitExplanation, PackageFindings } from '../report/findings.js';
import { parentStart, type StartState } from './merge-start.js';
import type { CommitPackageSnapshot } from '../evidence/package-at-commit.js';

/**
 * Checks a package the pull request moved to another directory (`movedFrom`, same manifest name)
 * against the package as it stood at the base there: every module change is unexplained (evidence
 * made in the old directory does not follow a move), and the manifest keys, list entries and
 * capability policies are judged by the key table as hand changes — so a weakening that rides along
 * with the move is still an error.
 * @returns the modules found unexplained or contradicting (as {@link HistoryResult} sets).
 */
export function checkMovedPackage(
  oldBase: CommitPackageSnapshot,
  head: CommitPackageSnapshot,
  movedFrom: string,
  out: PackageFindings,
): Pick<HistoryResult, 'unexplained' | 'mismatches'> {
  const result = emptyHistoryResult();
  const start = parentStart(oldBase) as StartState & { state: PackageState };
  const explanation: CommitExplanation = { commit: head.commit, subject: '', parents: [], route: 'unexplained', evidence: [], unexplained: [], mismatched: [] };
  const ev: EvidenceOutcome = {
    final: undefined,
    withEvidence: false,
    anyOnNewParent: false,
    namedModules: new Set(),
    namedKeys: new Set(),
    removedEntries: new Map(),
  };
  const at = `the move from ${movedFrom || '.'} to ${head.dir || '.'}`;
  const check: CommitCheck = { at, now: head, start, ev, explanation, touchedBefore: new Set(), base: oldBase, dir: head.dir, out, result, dirty: new Set() };
  checkModules(check);
  checkManifest(check);
  checkPolicies(check);
  return result;
}
