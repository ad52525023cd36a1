/**
 * The apply report `genesis/patch-apply-v0.3` (docs/reference/patch-protocols.md §3.8; SEMANTIC_PATCH_APPLY_REPORT
 * v0.1): binds the normalized patch and its op identities to the package and acceptance artifacts.
 * Producer only; the verifier is `apply-report-verify.ts`.
 */
import { decodeClosed, D, literal, vecOf } from '../../coreform/closed.js';
import { hashTerm, termAddress } from '../../coreform/hash.js';
import { bool, int, kw, kwMap, mapGet, str, vec, type MapTerm, type Term } from '../../coreform/term.js';
import { portablePathProblem } from '../../workspace/path.js';
import { PatchCode, patchError } from '../protocol/errors.js';
import { normalizePatch, opIdentitiesTerm, PATCH_PROFILE } from '../protocol/normalize.js';

/** `:kind` of an apply-report request. */
export const APPLY_REPORT_REQUEST_KIND = 'genesis/patch-apply-report-request-v0.1';
/** `:kind` of an apply report. */
export const APPLY_REPORT_KIND = 'genesis/patch-apply-v0.3';

/** Inputs of {@link applyReportRequest}. Artifacts are lowercase hex64 store addresses. */
export interface ApplyReportInputs {
  /** The normalized patch term. */
  patch: MapTerm;
  /** hash-term of the source patch. */
  sourcePatchH: string;
  packageArtifact: string;
  acceptanceArtifact: string;
  /** The stored acceptance term (`genesis/acceptance-v0.2`). */
  acceptance: MapTerm;
  /** The ordered semantic edits from `applyOpsInMemory`. */
  semanticEdits: readonly MapTerm[];
}

/** Builds the closed apply-report request. */
export function applyReportRequest(inputs: ApplyReportInputs): MapTerm {
  return kwMap({
    kind: str(APPLY_REPORT_REQUEST_KIND),
    profile: str(PATCH_PROFILE),
    v: int(1),
    patch: inputs.patch,
    'source-patch-h': str(inputs.sourcePatchH),
    'package-artifact': str(inputs.packageArtifact),
    'acceptance-artifact': str(inputs.acceptanceArtifact),
    acceptance: inputs.acceptance,
    'semantic-edits': vec(inputs.semanticEdits),
  });
}

const semanticEdit = (t: Term, at: string): MapTerm => {
  const m = D.map(t, at);
  const op = mapGet(m, kw('op'));
  const path = mapGet(m, kw('module-path'));
  if (op?.kind !== 'sym') throw patchError(PatchCode.wrongType, `${at} needs a symbol :op`, { at });
  if (path?.kind !== 'str' || portablePathProblem(path.value) !== undefined) {
    throw patchError(PatchCode.wrongType, `${at} needs a portable :module-path`, { at });
  }
  return m;
};

/**
 * The apply-report producer. Re-normalizes `:patch` (which must already be normalized), requires an
 * acceptance map of kind `genesis/acceptance-v0.2` with a Bool `:ok` whose store address is
 * `:acceptance-artifact`, and returns the closed report with every field present: `:kind :profile
 * :v :request-h :ok` (the acceptance's `:ok`) `:intent :provenance :ops-count :patch-h
 * :op-identities :source-patch-h :package-artifact :acceptance-artifact :semantic-edits`.
 * @throws GcError `core/closed/*` or `patch/*` (exit 10) for a malformed request.
 */
export function applyReport(request: Term): MapTerm {
  const req = decodeClosed(
    request,
    {
      kind: literal(str(APPLY_REPORT_REQUEST_KIND)),
      profile: literal(str(PATCH_PROFILE)),
      v: literal(int(1)),
      patch: D.map,
      'source-patch-h': D.hex64,
      'package-artifact': D.hex64,
      'acceptance-artifact': D.hex64,
      acceptance: D.map,
      'semantic-edits': vecOf(semanticEdit),
    },
    'patch-apply-report request',
  );
  const plan = normalizePatch(req.patch);
  if (plan.patchH !== plan.sourcePatchH) {
    throw patchError(PatchCode.wrongValue, 'apply-report :patch must be the normalized patch', { at: ':patch' });
  }
  const acceptance = req.acceptance;
  const kind = mapGet(acceptance, kw('kind'));
  const ok = mapGet(acceptance, kw('ok'));
  if (kind?.kind !== 'str' || kind.value !== 'genesis/acceptance-v0.2' || ok?.kind !== 'bool') {
    throw patchError(PatchCode.wrongValue, 'apply-report :acceptance must be a genesis/acceptance-v0.2 map with a boolean :ok', { at: ':acceptance' });
  }
  if (termAddress(acceptance) !== req['acceptance-artifact']) {
    throw patchError(PatchCode.wrongValue, 'apply-report :acceptance-artifact is not the store address of :acceptance', { at: ':acceptance-artifact' });
  }
  const get = (k: string) => mapGet(plan.normalized, kw(k))!;
  return kwMap({
    kind: str(APPLY_REPORT_KIND),
    profile: str(PATCH_PROFILE),
    v: int(1),
    'request-h': str(hashTerm(request)),
    ok: bool(ok.value),
    intent: get('intent'),
    provenance: get('provenance'),
    'ops-count': int(plan.ops.length),
    'patch-h': str(plan.patchH),
    'op-identities': opIdentitiesTerm(plan.opIdentities),
    'source-patch-h': str(req['source-patch-h']),
    'package-artifact': str(req['package-artifact']),
    'acceptance-artifact': str(req['acceptance-artifact']),
    'semantic-edits': vec(req['semantic-edits']),
  });
}
