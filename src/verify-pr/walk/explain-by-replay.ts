/** The replay route: a commit's apply evidence replayed on its start state (`recorded-state` or `actual-parent`), its refactor plans re-planned. */
import { termsEqual, vec } from '../../coreform/term.js';
import { formsEqual } from '../../coreform/forms.js';
import { manifestModulePaths, type PackageState } from '../../patch/protocol/state.js';
import { checkAcceptanceBinding, completeApplyEvidence } from '../evidence/apply-evidence.js';
import { bindChain } from '../evidence/bind-chain.js';
import type { CommitEvidence, EvidenceOutcome } from './commit-context.js';
import { AuditCode, errorText, short } from '../report/findings.js';
import type { CommitPackageSnapshot } from '../evidence/package-at-commit.js';
import type { RefactorEvidence } from '../evidence/refactor-evidence.js';
import { checkPlanOn, checkUnappliedPlans } from './replan.js';
import { manifestDifferences } from '../evidence/replay.js';

/** Replays a commit's apply evidence on its start state (binding order), re-plans its refactor plans. */
export function replayEvidence(c: CommitEvidence, now: CommitPackageSnapshot, refactorByPatch: ReadonlyMap<string, RefactorEvidence>): EvidenceOutcome {
  const { start, applies, label, explanation, result, out } = c;
  const reproduces = (state: PackageState): boolean => {
    const paths = new Set([...manifestModulePaths(state.manifest), ...now.byPath.keys()]);
    for (const p of paths) if (!formsEqual(state.modules.get(p), now.byPath.get(p)?.forms)) return false;
    return manifestDifferences(state.manifest, now.table).length === 0;
  };
  const chain = bindChain(start.state, applies, reproduces);
  let anyOnNewParent = false;
  chain.steps.forEach((step, i) => {
    const ev = step.evidence;
    result.applied.push(ev.address);
    const linked = refactorByPatch.get(ev.patch.patchH);
    if (linked !== undefined) {
      checkPlanOn(linked, step.before, label(i), out);
      result.replanned.add(linked.address);
      explanation.evidence.push({ address: linked.address, kind: 'refactor-plan', route: step.route });
    }
    explanation.evidence.push({ address: ev.address, kind: 'apply-report', route: step.route });
    if (step.route === 'recorded-state') {
      if (termsEqual(vec(step.semanticEdits), ev.semanticEdits)) {
        out.pass('apply-report', ev.address, 'replay edits', `${step.semanticEdits.length} semantic edits reproduced on ${label(i)}`);
      } else {
        out.fail('apply-report', ev.address, 'replay edits', {
          code: AuditCode.replayEvidenceMismatch,
          message: `apply report ${short(ev.address)}: replaying its patch on ${label(i)} gives other :semantic-edits than the report records`,
          file: ev.file,
          title: 'semantic edits differ',
        });
      }
      out.pass('apply-report', ev.address, 'replay package', `package record ${short(ev.packageArtifact)} reproduced on ${label(i)}`);
    } else {
      anyOnNewParent = true;
      out.pass(
        'apply-report',
        ev.address,
        'replay',
        `made on another state (rebase, cherry-pick or squash): the patch applies to ${label(i)}; the commit is compared with its result`,
      );
    }
    if (!checkAcceptanceBinding(ev, step.manifest, `at ${label(i)}`, out, { checkVersion: step.route === 'recorded-state' })) {
      result.mismatches.add('package.toml');
      explanation.mismatched.push('package.toml');
    }
    completeApplyEvidence(
      ev,
      step.route === 'recorded-state' || ev.missingArtifacts.includes('acceptance')
        ? { manifest: step.manifest, packageArtifact: step.packageArtifact }
        : undefined,
      out,
    );
  });
  for (const f of chain.failures) {
    result.replayFailed = true;
    explanation.evidence.push({ address: f.evidence.address, kind: 'apply-report', route: 'failed' });
    out.fail('apply-report', f.evidence.address, 'replay', {
      code: AuditCode.replayFailed,
      message: `apply report ${short(f.evidence.address)}: its patch does not apply to ${label(0)}${chain.steps.length > 0 ? ' (nor after the other evidence of the commit)' : ''}: ${errorText(f.error)}`,
      file: f.evidence.file,
      title: 'replay failed',
    });
  }
  checkUnappliedPlans(c);
  return { final: chain.final, withEvidence: chain.steps.length > 0, anyOnNewParent, namedModules: new Set(), namedKeys: new Set(), removedEntries: new Map() };
}
