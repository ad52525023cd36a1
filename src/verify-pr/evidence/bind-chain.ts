/** Replaying a commit's apply reports on its start state in the order they bind (docs/security.md, "recorded-state" and "actual-parent"). */
import type { Term } from '../../coreform/term.js';
import type { PackageState } from '../../patch/protocol/state.js';
import type { Manifest } from '../../workspace/manifest.js';
import type { ApplyEvidence } from './apply-evidence.js';
import { applyEvidence, chainInAddressOrder, type AppliedEvidence } from './replay.js';

/** One apply report replayed on a commit's start state. */
export interface BoundStep {
  evidence: ApplyEvidence;
  before: PackageState;
  after: PackageState;
  manifest: Manifest;
  semanticEdits: Term[];
  packageArtifact: string;
  /** `recorded-state`: replaying reproduced the report's package record (the state it was made on). */
  route: 'recorded-state' | 'actual-parent';
}

function boundStep(evidence: ApplyEvidence, before: PackageState, r: AppliedEvidence, route: BoundStep['route']): BoundStep {
  return { evidence, before, after: r.after, manifest: r.manifest, semanticEdits: r.edits, packageArtifact: r.artifact, route };
}

function tryApply(state: PackageState, evidence: ApplyEvidence): AppliedEvidence | Error {
  try {
    return applyEvidence(state, evidence);
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
}

/** How many patch applications the order search may spend on one commit. */
const ORDER_SEARCH_BUDGET = 64;

/**
 * Replays `evidence` on `start` in the order the reports bind: at each step the report whose
 * replay reproduces its own package record is taken. Reports that bind to no state (evidence made
 * on another state) are then ordered by a bounded depth-first search for an order in which every
 * patch applies and the result satisfies `reproduces` (the commit's content); failing that, in
 * store-address order as far as they apply.
 */
export function bindChain(
  start: PackageState,
  evidence: readonly ApplyEvidence[],
  reproduces: (state: PackageState) => boolean,
): { steps: BoundStep[]; failures: { evidence: ApplyEvidence; error: Error }[]; final: PackageState } {
  const {
    steps,
    pending,
    final: state,
  } = chainInAddressOrder(start, evidence, (before, e) => {
    const r = tryApply(before, e);
    return r instanceof Error || r.artifact !== e.packageArtifact ? undefined : boundStep(e, before, r, 'recorded-state');
  });
  if (pending.length === 0) return { steps, failures: [], final: state };

  // Evidence made on another state: search an order that applies and reproduces the commit.
  let budget = ORDER_SEARCH_BUDGET;
  let firstComplete: BoundStep[] | undefined;
  const search = (at: PackageState, left: ApplyEvidence[], path: BoundStep[]): BoundStep[] | undefined => {
    if (left.length === 0) {
      firstComplete ??= path;
      return reproduces(at) ? path : undefined;
    }
    for (let i = 0; i < left.length; i++) {
      if (budget-- <= 0) return undefined;
      const r = tryApply(at, left[i]!);
      if (r instanceof Error) continue;
      const found = search(r.after, [...left.slice(0, i), ...left.slice(i + 1)], [...path, boundStep(left[i]!, at, r, 'actual-parent')]);
      if (found !== undefined) return found;
    }
    return undefined;
  };
  const found = search(state, pending, []) ?? firstComplete;
  if (found !== undefined) {
    for (const item of found) steps.push(item);
    return { steps, failures: [], final: found.length > 0 ? found[found.length - 1]!.after : state };
  }
  // Greedy, for the messages: take what applies, report the rest with the error on the final state.
  const greedy = chainInAddressOrder(state, pending, (before, e) => {
    const r = tryApply(before, e);
    return r instanceof Error ? undefined : boundStep(e, before, r, 'actual-parent');
  });
  steps.push(...greedy.steps);
  const failures = greedy.pending.map((e) => {
    const r = tryApply(greedy.final, e);
    return { evidence: e, error: r instanceof Error ? r : new Error('applies only out of order') };
  });
  return { steps, failures, final: greedy.final };
}
