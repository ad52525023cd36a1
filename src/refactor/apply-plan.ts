/**
 * apply-plan: apply a verified refactor plan's normalized patch through the ordinary patch apply
 * (preflight, transaction, pack, obligations, evidence, rollback). Implements
 * GenesisCode `docs/spec/SEMANTIC_REFACTOR_PLAN_v0.1.md` "apply-plan applies only the verified normalized patch through
 * the ordinary patch preflight, transactional apply, obligation, evidence, and rollback pipeline.
 * The planner cannot grant capabilities or bypass those controls."
 *
 * Order: find the request (given, or in the store) → verify the report independently → refuse a
 * conflicted report → check the package on disk is the one the plan was made for (same modules,
 * manifest order, canonical forms: the rebuilt request has the same `:request-h`) → store the
 * request and plan report → `applyPatch` with the report's `:patch`, unchanged.
 */
import type { Term } from '../coreform/term.js';
import { applyPatch, type ApplyResult } from '../patch/apply/apply.js';
import { recoverPendingTransaction } from '../patch/guard.js';
import { EvidenceStore } from '../store/store.js';
import { ExitCode, GcError } from '../util/errors.js';
import { loadPackage } from '../workspace/package.js';
import { RefactorErrorCode } from './codes.js';
import { findRefactorRequest, storeRefactorEvidence } from './evidence.js';
import { decodeRefactorRequest, refactorRequestFromPackage, type RefactorRequest } from './request.js';
import { verifyRefactorReport, type VerifiedRefactorReport } from './verify.js';

/** Options of {@link applyRefactorPlan}. */
export interface ApplyPlanOptions {
  /** The package: its directory or `package.toml`. */
  pkg: string;
  /** The plan report term (`genesis/refactor-plan-v0.1`). */
  report: Term;
  /** The request (term or admitted); default: the one the report names in the package's store. */
  request?: Term | RefactorRequest;
  /** Obligation runner command for acceptance (see `patch/acceptance/acceptance.ts`); default `GCPATCH_OBLIGATION_RUNNER`. */
  obligationRunner?: string;
  /** Runner timeout in milliseconds. */
  runnerTimeoutMs?: number;
  /** Fault-injection hook passed to `applyPatch` (tests). */
  faults?: (step: string) => void;
  /** Write touched modules in canonical print instead of keeping their formatting (see `applyPatch`). */
  canonical?: boolean;
}

/** A committed apply-plan. Addresses are evidence-store addresses (hex64). */
export interface ApplyPlanResult {
  verified: VerifiedRefactorReport;
  /** The ordinary apply's result (apply report, artifacts, changed paths). */
  applied: ApplyResult;
  evidence: {
    /** The refactor request. */
    request: string;
    /** The plan report. */
    report: string;
    /** The normalized patch (= the report's `:patch`). */
    patch: string;
    /** The `genesis/patch-apply-v0.3` apply report; its `:patch-h` is the plan report's (evidence.ts linkage). */
    applyReport: string;
    packageArtifact: string;
    acceptanceArtifact: string;
  };
}

/**
 * Verifies a plan report and applies its patch to the package on disk.
 * @returns the verification, the apply result and the evidence addresses.
 * @throws GcError
 *   - `refactor/request-not-found` (exit 10) when no request is given and none is in the store;
 *   - `refactor/verification-failed` (exit 50) when the report does not verify;
 *   - `refactor/plan-conflicted` (exit 10) for a conflicted report (it carries no patch authority);
 *   - `refactor/stale-plan` (exit 50) when the package's modules differ from the request's;
 *   - every error of `applyPatch`: `patch/*` (10), `patch/obligations-failed` (30, rolled back),
 *     `patch/rollback-failed` / `io/*` (70), `core/store/*`.
 * @example const r = applyRefactorPlan({ pkg: 'app', report: readTerm(readFileSync('plan.gc')) });
 */
export function applyRefactorPlan(options: ApplyPlanOptions): ApplyPlanResult {
  recoverPendingTransaction(options.pkg); // an interrupted apply is rolled back before the staleness check
  const pkg = loadPackage(options.pkg);
  const store = EvidenceStore.forPackage(pkg.dir);
  const given = options.request;
  const request: RefactorRequest =
    given === undefined ? findRefactorRequest(options.report, store) : 'requestH' in given && 'term' in given ? given : decodeRefactorRequest(given as Term);
  const verified = verifyRefactorReport(options.report, request);
  if (!verified.safe || verified.patch === null) {
    throw new GcError(
      RefactorErrorCode.planConflicted,
      `the plan is conflicted (${verified.conflicts.map((c) => c.code).join(', ')}); it carries no patch to apply`,
    );
  }
  const current = refactorRequestFromPackage(pkg, {
    refactorKind: request.refactorKind,
    fromSymbol: request.fromSymbol,
    toSymbol: request.toSymbol,
    targetModulePath: request.targetModulePath,
  });
  if (current.requestH !== request.requestH) {
    throw new GcError(
      RefactorErrorCode.stalePlan,
      `the package at ${pkg.dir} is not the package this plan was made for (its modules or their order changed); plan again`,
      { exitCode: ExitCode.verificationFailed, location: { file: pkg.manifestFile } },
    );
  }
  const stored = storeRefactorEvidence(store, request, options.report);
  const applied = applyPatch({
    pkg: pkg.manifestFile,
    patch: verified.patch,
    ...(options.obligationRunner !== undefined ? { obligationRunner: options.obligationRunner } : {}),
    ...(options.runnerTimeoutMs !== undefined ? { runnerTimeoutMs: options.runnerTimeoutMs } : {}),
    ...(options.faults !== undefined ? { faults: options.faults } : {}),
    ...(options.canonical === true ? { canonical: true } : {}),
  });
  return {
    verified,
    applied,
    evidence: {
      request: stored.request,
      report: stored.report,
      patch: applied.patchArtifact,
      applyReport: applied.reportArtifact,
      packageArtifact: applied.packageArtifact,
      acceptanceArtifact: applied.acceptanceArtifact,
    },
  };
}
