/**
 * Verifying a refactor-plan report found in a pull request's evidence store
 * (GenesisCode `docs/spec/SEMANTIC_REFACTOR_PLAN_v0.1.md`): its request must be in the store, the report must pass the
 * independent host verifier, and re-planning the request from the package state it claims to start
 * from (the base commit, or the state after earlier evidence) must give the identical report.
 */
import { mapGetKw, termsEqual, vec, type MapTerm, type Term } from '../../coreform/term.js';
import { manifestModulePaths, type PackageState } from '../../patch/protocol/state.js';
import { planRefactor } from '../../refactor/plan.js';
import { buildRefactorRequest, decodeRefactorRequest, termIdentity, type RefactorRequest } from '../../refactor/request.js';
import { verifyRefactorReport, type VerifiedRefactorReport } from '../../refactor/verify.js';
import { isGcError } from '../../util/errors.js';
import { AuditCode, type PackageFindings } from '../report/findings.js';
import type { CommitStore, StoreEntryCheck } from './store-evidence.js';

const KIND = 'refactor-plan';

/** A refactor-plan report that passed the static checks. */
export interface RefactorEvidence {
  /** Store address of the report. */
  address: string;
  file: string;
  report: MapTerm;
  request: RefactorRequest;
  /** Store address of the request. */
  requestAddress: string;
  verified: VerifiedRefactorReport;
}

function str(t: Term | undefined): string | undefined {
  return t?.kind === 'str' ? t.value : undefined;
}

/** A one-line description of the refactor, e.g. `rename app::a → app::b`. */
export function describeRefactor(request: RefactorRequest): string {
  const target = request.targetModulePath === '' ? '' : ` (into ${request.targetModulePath})`;
  return `${request.refactorKind} ${request.fromSymbol} → ${request.toSymbol}${target}`;
}

/**
 * Finds the report's request in the store (the entry whose hash-term is `:request-h`) and runs the
 * host verifier.
 * @param entry a well-formed store entry of kind `refactor-plan`.
 * @param store the head's store; @param prefer addresses to search first (the new entries).
 * @param out collects rows and findings (`audit/refactor-request-missing`,
 *   `audit/refactor-report-invalid`).
 * @returns the verified evidence, or `undefined` when a check failed.
 */
export async function checkRefactorReport(
  entry: StoreEntryCheck,
  store: CommitStore,
  prefer: readonly string[],
  out: PackageFindings,
): Promise<RefactorEvidence | undefined> {
  const report = entry.term as MapTerm;
  const requestH = str(mapGetKw(report, 'request-h'));
  // The request is found by its identity alone: the reference's patch names no request
  // (docs/reference/patch-protocols.md §3.10), and reports from earlier gcpatch carry the same :request-h.
  const requestEntry = requestH === undefined ? undefined : await store.findByHashTerm('refactor-plan-request', requestH, prefer);
  if (requestEntry === undefined) {
    out.fail(KIND, entry.address, 'request present', {
      code: AuditCode.refactorRequestMissing,
      message: `refactor-plan report ${entry.address.slice(0, 12)} names request ${requestH ?? '(no :request-h)'}, which is not in the evidence store; commit the whole .genesis/store`,
      file: entry.file,
      title: 'refactor request missing',
    });
    return undefined;
  }
  out.pass(KIND, entry.address, 'request present', `request ${requestEntry.address.slice(0, 12)}`);
  let request: RefactorRequest;
  let verified: VerifiedRefactorReport;
  try {
    request = decodeRefactorRequest(requestEntry.term!);
    verified = verifyRefactorReport(report, request);
  } catch (error) {
    const check = isGcError(error) && typeof error.details?.check === 'string' ? ` (check ${error.details.check})` : '';
    out.fail(KIND, entry.address, 'host verifier', {
      code: AuditCode.refactorReportInvalid,
      message: `refactor-plan report ${entry.address.slice(0, 12)} fails host verification${check}: ${error instanceof Error ? error.message : String(error)}`,
      file: entry.file,
      title: 'refactor report invalid',
    });
    return undefined;
  }
  out.pass(
    KIND,
    entry.address,
    'host verifier',
    `${describeRefactor(request)}: ${verified.safe ? `safe, ${verified.replacementCount} replacements` : `conflicted (${verified.conflicts.length})`}`,
  );
  return { address: entry.address, file: entry.file, report, request, requestAddress: requestEntry.address, verified };
}

/**
 * The request the planner would receive for `state`: the evidence's refactor parameters with every
 * manifest module of `state`, in manifest order.
 */
export function requestForState(evidence: RefactorEvidence, state: PackageState): RefactorRequest {
  const modules = manifestModulePaths(state.manifest).map((modulePath) => ({
    modulePath,
    forms: vec(state.modules.get(modulePath) ?? []),
  }));
  return buildRefactorRequest(
    {
      refactorKind: evidence.request.refactorKind,
      fromSymbol: evidence.request.fromSymbol,
      toSymbol: evidence.request.toSymbol,
      targetModulePath: evidence.request.targetModulePath,
    },
    modules,
    { assumeCanonical: true },
  );
}

/** The first module where two requests' module lists differ, for messages. */
function firstDifference(a: RefactorRequest, b: RefactorRequest): string {
  const n = Math.max(a.modules.length, b.modules.length);
  for (let i = 0; i < n; i++) {
    const x = a.modules[i];
    const y = b.modules[i];
    if (x === undefined || y === undefined) return `module count ${a.modules.length} vs ${b.modules.length}`;
    if (x.modulePath !== y.modulePath) return `module ${i} is ${x.modulePath} in the stored request, ${y.modulePath} at ${'the base'}`;
    if (!termsEqual(x.forms, y.forms)) return `module ${x.modulePath} differs`;
  }
  return 'parameters differ';
}

/**
 * Re-plans the evidence's request from `state` and compares the result with the stored report,
 * byte for byte (store address).
 * @param stateLabel names the state in messages, e.g. `the base commit`.
 * @returns true when identical; otherwise records `audit/refactor-replan-differs`.
 */
export function checkReplan(evidence: RefactorEvidence, state: PackageState, stateLabel: string, out: PackageFindings): boolean {
  const request = requestForState(evidence, state);
  const replanned = planRefactor(request).report;
  const address = termIdentity(replanned).address;
  if (address === evidence.address) {
    out.pass(KIND, evidence.address, 're-plan', `re-planned from ${stateLabel}: identical report`);
    return true;
  }
  const why =
    request.requestH !== evidence.request.requestH
      ? `the stored request was not made from ${stateLabel} (${firstDifference(evidence.request, request)})`
      : 'the planner gives a different report for the same request';
  out.fail(KIND, evidence.address, 're-plan', {
    code: AuditCode.refactorReplanDiffers,
    message: `re-planning ${describeRefactor(evidence.request)} from ${stateLabel} gives report ${address.slice(0, 12)}, not the stored ${evidence.address.slice(0, 12)}: ${why}`,
    file: evidence.file,
    title: 're-plan differs',
  });
  return false;
}
