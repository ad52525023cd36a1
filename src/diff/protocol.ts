/**
 * The closed request and report of `core/cli::patch-diff` (docs/reference/patch-protocols.md §3.4,
 * SEMANTIC_PATCH_DIFF_v0.1): fixed identities, building and admitting a request, and decoding a
 * report's shape. Shared by the producer (`diff.ts`), the verifier (`verify.ts`), the merge
 * protocol and the CLI; it makes no diff decision itself.
 */
import { D, decodeClosed, fixedIdentity, literal, vecOf } from '../coreform/closed.js';
import { hashTerm } from '../coreform/hash.js';
import { int, kwMap, mapGetKw, str, vec, type MapTerm, type Term, type VecTerm } from '../coreform/term.js';
import { PATCH_PROFILE, type OpIdentity } from '../patch/protocol/normalize.js';
import { admitWorkspace, workspaceTerm, type Workspace } from '../workspace/workspace.js';

/** `:kind` of a diff request. */
export const DIFF_REQUEST_KIND = 'genesis/patch-diff-request-v0.1';
/** `:kind` of a diff report. */
export const DIFF_REPORT_KIND = 'genesis/patch-diff-v0.1';

/** An admitted diff request. `requestH` is hash-term of the canonical request (see {@link diffRequestTerm}). */
export interface DiffRequest {
  intent: string;
  provenance: MapTerm;
  base: Workspace;
  target: Workspace;
  requestH: string;
}

/**
 * Builds the closed diff request `{:base :intent :kind :profile :provenance :target :v 1}` with
 * both workspaces as canonical (path-sorted) vectors, so its hash does not depend on the order in
 * which modules were given.
 */
export function diffRequestTerm(base: Workspace, target: Workspace, intent: string, provenance: MapTerm): MapTerm {
  return kwMap({
    kind: str(DIFF_REQUEST_KIND),
    profile: str(PATCH_PROFILE),
    v: int(1),
    intent: str(intent),
    provenance,
    base: workspaceTerm(base),
    target: workspaceTerm(target),
  });
}

/**
 * Admits a diff request term: exact key set, fixed kind/profile/v, string intent, map provenance
 * and two admissible workspaces.
 * `requestH` is the hash-term of the request rebuilt with canonical workspace vectors: equal to
 * hash-term of the request as given whenever it lists modules in path order, and independent of
 * module order otherwise (SEMANTIC_PATCH_MERGE_v0.1 "Determinism").
 * @throws GcError `core/closed/*`, `workspace/*` (exit 10).
 */
export function decodeDiffRequest(t: Term): DiffRequest {
  const r = decodeClosed(
    t,
    {
      ...fixedIdentity(DIFF_REQUEST_KIND, PATCH_PROFILE),
      intent: D.str,
      provenance: D.map,
      base: D.any,
      target: D.any,
    },
    'diff request',
  );
  const base = admitWorkspace(r.base, 'diff request :base');
  const target = admitWorkspace(r.target, 'diff request :target');
  const requestH = hashTerm(diffRequestTerm(base, target, r.intent, r.provenance));
  return { intent: r.intent, provenance: r.provenance, base, target, requestH };
}

/** A decoded diff report (shape only; {@link verifyDiffReport} checks the content). */
export interface DiffReport {
  requestH: string;
  baseH: string;
  targetH: string;
  patch: MapTerm;
  patchH: string;
  opCount: number;
  opIdentities: OpIdentity[];
  stats: { additions: number; removals: number; replacements: number };
}

/**
 * Decodes the closed diff report `{:base-h :kind :ok :op-count :op-identities :patch :patch-h
 * :profile :request-h :stats :target-h :v}` with fixed kind/profile/v and `:ok true`.
 * @throws GcError `core/closed/*` (exit 10).
 */
export function decodeDiffReport(t: Term, what = 'diff report'): DiffReport {
  const r = decodeClosed(
    t,
    {
      ...fixedIdentity(DIFF_REPORT_KIND, PATCH_PROFILE),
      ok: literal({ kind: 'bool', value: true }),
      'request-h': D.hex64,
      'base-h': D.hex64,
      'target-h': D.hex64,
      patch: D.map,
      'patch-h': D.hex64,
      'op-count': D.index,
      'op-identities': vecOf((e, at) => {
        const id = decodeClosed(e, { ordinal: D.index, 'op-h': D.hex64 }, at);
        return { ordinal: id.ordinal, opH: id['op-h'] };
      }),
      stats: (e, at) => decodeClosed(e, { additions: D.index, removals: D.index, replacements: D.index }, at),
    },
    what,
  );
  return {
    requestH: r['request-h'],
    baseH: r['base-h'],
    targetH: r['target-h'],
    patch: r.patch,
    patchH: r['patch-h'],
    opCount: r['op-count'],
    opIdentities: r['op-identities'],
    stats: r.stats,
  };
}

/** The `:ops` vector of a diff report's patch (`[]` when the patch has no vector there). */
export function diffReportOps(report: DiffReport): VecTerm {
  const ops = mapGetKw(report.patch, 'ops');
  return ops !== undefined && ops.kind === 'vec' ? ops : vec([]);
}
