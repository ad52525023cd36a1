/** Re-planning a commit's refactor plans on the state the commit starts from, and the notice for a plan no patch applied. */
import { mapGetKw, termsEqual, vec, type Term } from '../../coreform/term.js';
import type { PackageState } from '../../patch/protocol/state.js';
import { planRefactor } from '../../refactor/plan.js';
import type { CommitEvidence } from './commit-context.js';
import { AuditCode, short, type PackageFindings } from '../report/findings.js';
import { checkReplan, describeRefactor, requestForState, type RefactorEvidence } from '../evidence/refactor-evidence.js';

/** Re-plans the commit's refactor plans no replayed patch already checked; a safe plan with no apply is a notice. */
export function checkUnappliedPlans(c: CommitEvidence): void {
  const { applies, plans, label, at, explanation, result, out } = c;
  const state = c.start.state;
  for (const plan of plans) {
    if (result.replanned.has(plan.address)) continue;
    result.replanned.add(plan.address);
    checkPlanOn(plan, state, label(0), out);
    // a conflicted plan carries no patch: it is checked, but it is not evidence of anything
    if (plan.verified.safe) explanation.evidence.push({ address: plan.address, kind: 'refactor-plan', route: 'not-applied' });
    if (plan.verified.safe && !applies.some((a) => a.patch.patchH === plan.verified.patchH)) {
      out.fail('refactor-plan', plan.address, 'applied', {
        code: AuditCode.refactorPlanNotApplied,
        severity: 'notice',
        message: `refactor plan ${short(plan.address)} has no accepted apply report in ${at}; it explains no module change`,
        file: plan.file,
        title: 'plan not applied',
      });
    }
  }
}

/**
 * Checks a refactor plan against `state`: when the request rebuilt from `state` is the stored one
 * (the plan was made there), re-planning must give the identical report; otherwise (made on another
 * state: rebase, cherry-pick, squash) re-planning the same kind/from/to/target there must be safe and
 * give the same operations.
 */
export function checkPlanOn(plan: RefactorEvidence, state: PackageState, stateLabel: string, out: PackageFindings): boolean {
  const request = requestForState(plan, state);
  if (request.requestH === plan.request.requestH) return checkReplan(plan, state, stateLabel, out);
  const replanned = planRefactor(request);
  const ours = plan.verified.opIdentities.map((o) => o.opH);
  const sameOps = replanned.safe === plan.verified.safe && replanned.safe && termsEqual(vec(patchOps(replanned.report)), vec(patchOps(plan.report)));
  if (sameOps) {
    out.pass('refactor-plan', plan.address, 're-plan', `made on another state; re-planned on ${stateLabel}: the same ${ours.length} operations`);
    return true;
  }
  out.fail('refactor-plan', plan.address, 're-plan', {
    code: AuditCode.refactorReplanDiffers,
    message: `refactor plan ${short(plan.address)} was made on another package state, and re-planning ${describeRefactor(plan.request)} on ${stateLabel} ${replanned.safe ? 'gives other operations' : 'is not safe there'}: re-run the refactor on the updated branch`,
    file: plan.file,
    title: 're-plan differs',
  });
  return false;
}

function patchOps(report: Term): Term[] {
  if (report.kind !== 'map') return [];
  const patch = mapGetKw(report, 'patch');
  if (patch?.kind !== 'map') return [];
  const ops = mapGetKw(patch, 'ops');
  return ops?.kind === 'vec' ? [...ops.items] : [];
}
