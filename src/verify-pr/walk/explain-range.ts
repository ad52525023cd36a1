/**
 * The range-level replay (`history: false`, kept for `npm run bench`'s before/after figures only):
 * all accepted apply evidence replayed on the base as one chain, each linked refactor plan re-planned
 * from the state before its patch, and the result compared with the head (modules and manifest).
 */
import { termsEqual, vec } from '../../coreform/term.js';
import type { ApplyEvidence } from '../evidence/apply-evidence.js';
import { AuditCode, errorText, type PackageAudit, type PackageFindings, type ReplayOutcome } from '../report/findings.js';
import { snapshotState, type CommitPackageSnapshot } from '../evidence/package-at-commit.js';
import { checkReplan, type RefactorEvidence } from '../evidence/refactor-evidence.js';
import { compareModules, manifestDifferences, replayChain, type ModuleComparison } from '../evidence/replay.js';

/** A warning for a `[[modules]]` list (paths, order) that changed without evidence. */
function unexplainedModuleList(head: CommitPackageSnapshot, out: PackageFindings): void {
  out.fail('manifest', 'package.toml', 'explained', {
    code: AuditCode.unexplainedChange,
    severity: 'warning',
    message: `${head.manifestPath}: the [[modules]] list (paths or order) changed and no evidence explains the change`,
    file: head.manifestPath,
    title: 'unexplained change',
  });
}

/** Names the state a step of the range chain ran on, for messages. */
export function stateLabel(index: number): string {
  return index === 0 ? 'the base commit' : `the base commit plus ${index} earlier patch${index === 1 ? '' : 'es'}`;
}

/** Records the module comparisons: mismatches (errors), unexplained changes (warnings), a summary row. */
function reportComparisons(comparisons: readonly ModuleComparison[], out: PackageFindings, replayed: boolean): void {
  let explained = 0;
  for (const c of comparisons) {
    if (c.status === 'explained') explained++;
    else if (c.status === 'mismatch') {
      out.fail('module', c.path, 'replay', {
        code: AuditCode.replayModuleMismatch,
        message: `${c.file}: the head differs from replaying the evidence (${c.detail}); a change not produced by the recorded patch, e.g. a hand edit after the refactor`,
        file: c.file,
        ...(c.line !== undefined ? { line: c.line } : {}),
        title: 'replay differs',
      });
    } else if (c.status === 'unexplained') {
      out.fail('module', c.path, 'explained', {
        code: AuditCode.unexplainedChange,
        severity: 'warning',
        message: `${c.file} changed (${c.detail}) and no evidence in this pull request explains the change`,
        file: c.file,
        ...(c.line !== undefined ? { line: c.line } : {}),
        title: 'unexplained change',
      });
    }
  }
  if (explained > 0) {
    out.pass(
      'module',
      `${explained} module${explained === 1 ? '' : 's'}`,
      replayed ? 'replay' : 'explained',
      replayed ? 'reproduced exactly by replaying the evidence' : 'named by verified patches',
    );
  }
}

/**
 * Replays the accepted apply evidence on the base as a chain, re-plans each linked refactor report
 * from the state before its patch, checks each step's semantic edits and package record, and
 * compares the result with the head (modules and manifest).
 */
function checkReplay(
  base: CommitPackageSnapshot,
  head: CommitPackageSnapshot,
  accepted: readonly ApplyEvidence[],
  refactorByPatch: ReadonlyMap<string, RefactorEvidence>,
  replanned: Set<RefactorEvidence>,
  out: PackageFindings,
): { comparisons: ModuleComparison[]; outcome: ReplayOutcome } {
  const baseState = snapshotState(base);
  const start = performance.now();
  const chain = replayChain(baseState, accepted);
  chain.steps.forEach((step, i) => {
    const ev = step.evidence;
    const linked = refactorByPatch.get(ev.patch.patchH);
    if (linked !== undefined) {
      checkReplan(linked, step.before, stateLabel(i), out);
      replanned.add(linked);
    }
    if (termsEqual(vec(step.semanticEdits), ev.semanticEdits)) {
      out.pass('apply-report', ev.address, 'replay edits', `${step.semanticEdits.length} semantic edits reproduced`);
    } else {
      out.fail('apply-report', ev.address, 'replay edits', {
        code: AuditCode.replayEvidenceMismatch,
        message: `apply report ${ev.address.slice(0, 12)}: replaying its patch on ${stateLabel(i)} gives other :semantic-edits than the report records`,
        file: ev.file,
        title: 'semantic edits differ',
      });
    }
    if (step.packageArtifact === ev.packageArtifact) {
      out.pass('apply-report', ev.address, 'replay package', `package record ${ev.packageArtifact.slice(0, 12)} reproduced`);
    } else {
      out.fail('apply-report', ev.address, 'replay package', {
        code: AuditCode.replayEvidenceMismatch,
        message: `apply report ${ev.address.slice(0, 12)}: replaying gives package record ${step.packageArtifact.slice(0, 12)}, the report names ${ev.packageArtifact.slice(0, 12)}`,
        file: ev.file,
        title: 'package record differs',
      });
    }
  });
  for (const f of chain.failures) {
    out.fail('apply-report', f.evidence.address, 'replay', {
      code: AuditCode.replayFailed,
      message: `apply report ${f.evidence.address.slice(0, 12)}: its patch does not apply to the base commit's package${chain.steps.length > 0 ? ' (nor after the other evidence)' : ''}: ${errorText(f.error)}`,
      file: f.evidence.file,
      title: 'replay failed',
    });
  }
  const comparisons = compareModules(base, chain.final, head);
  const mismatches = comparisons.filter((c) => c.status === 'mismatch').map((c) => c.path);
  const evidenceKeys = new Set(manifestDifferences(baseState.manifest, chain.final.manifest));
  const headKeys = manifestDifferences(chain.final.manifest, head.table);
  const contradicted = headKeys.filter((k) => evidenceKeys.has(k));
  if (contradicted.length > 0) {
    out.fail('manifest', 'package.toml', 'replay', {
      code: AuditCode.replayManifestMismatch,
      message: `${head.manifestPath}: ${contradicted.join(', ')} differ${contradicted.length === 1 ? 's' : ''} from the manifest the replay produces`,
      file: head.manifestPath,
      title: 'manifest differs',
    });
    mismatches.push('package.toml');
  } else if (headKeys.includes('modules')) {
    unexplainedModuleList(head, out);
  }
  const outcome: ReplayOutcome = {
    status: chain.failures.length > 0 ? 'failed' : mismatches.length > 0 ? 'differs' : 'reproduced',
    applied: chain.steps.map((s) => s.evidence.address),
    modulesChanged: comparisons.filter((c) => c.status === 'explained' || c.status === 'mismatch').length,
    mismatches,
    millis: Math.round(performance.now() - start),
  };
  return { comparisons, outcome };
}

/**
 * Explains the package by the range-level replay: runs {@link checkReplay}, records the module
 * comparisons, re-plans the refactor plans no patch linked on the base, and fills `audit`'s replay
 * outcome, changed and unexplained modules.
 */
export function explainRange(
  base: CommitPackageSnapshot,
  head: CommitPackageSnapshot,
  accepted: readonly ApplyEvidence[],
  refactors: readonly RefactorEvidence[],
  refactorByPatch: ReadonlyMap<string, RefactorEvidence>,
  audit: PackageAudit,
  out: PackageFindings,
): void {
  const replanned = new Set<RefactorEvidence>();
  const r = checkReplay(base, head, accepted, refactorByPatch, replanned, out);
  audit.replay = r.outcome;
  reportComparisons(r.comparisons, out, true);
  const baseState = snapshotState(base);
  for (const p of refactors) if (!replanned.has(p)) checkReplan(p, baseState, stateLabel(0), out);
  audit.changedModules = r.comparisons.filter((c) => c.status !== 'same').map((c) => c.path);
  audit.unexplainedModules = r.comparisons.filter((c) => c.status === 'unexplained').map((c) => c.path);
}
