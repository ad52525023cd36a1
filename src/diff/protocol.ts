/**
 * The closed request and report of `core/cli::patch-diff` (docs/reference/patch-protocols.md §3.4,
 * SEMANTIC_PATCH_DIFF_v0.1): fixed identities, building and admitting a request, and decoding a
 * report's shape. Shared by the producer (`diff.ts`), the verifier (`verify.ts`), the merge
 * protocol and the CLI; it makes no diff decision itself.
 */
import { D, decodeClosed, fixedIdentity, literal, vecOf, type Spec } from '../coreform/closed.js';
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

/** An admitted patch-protocol request over named workspaces; `requestH` as {@link decodeWorkspacesRequest} says. */
export interface WorkspacesRequest<S extends string> {
  intent: string;
  provenance: MapTerm;
  workspaces: Record<S, Workspace>;
  requestH: string;
}

/**
 * Builds a closed patch-protocol request `{:intent :kind :profile :provenance :v 1}` plus one key
 * per named workspace (diff: `:base :target`; merge: `:base :left :right`), each workspace as its
 * canonical (path-sorted) vector, so the hash does not depend on the order in which modules were
 * given.
 */
export function workspacesRequestTerm(kind: string, workspaces: Readonly<Record<string, Workspace>>, intent: string, provenance: MapTerm): MapTerm {
  const fields: Record<string, Term> = { kind: str(kind), profile: str(PATCH_PROFILE), v: int(1), intent: str(intent), provenance };
  for (const [side, ws] of Object.entries(workspaces)) fields[side] = workspaceTerm(ws);
  return kwMap(fields);
}

/**
 * Admits a patch-protocol request term: exact key set (`sides` plus the identity, `:intent` and
 * `:provenance`), fixed kind/profile/v, string intent, map provenance and one admissible workspace
 * per side, admitted in the order of `sides`. `requestH` is the hash-term of the request rebuilt
 * by {@link workspacesRequestTerm}: equal to hash-term of the request as given whenever it lists
 * modules in path order, and independent of module order otherwise (SEMANTIC_PATCH_MERGE_v0.1
 * "Determinism").
 * @param what the request's name in messages (`diff request`, `merge request`).
 * @throws GcError `core/closed/*`, `workspace/*` (exit 10).
 */
export function decodeWorkspacesRequest<S extends string>(t: Term, kind: string, sides: readonly S[], what: string): WorkspacesRequest<S> {
  const spec: Spec = { ...fixedIdentity(kind, PATCH_PROFILE), intent: D.str, provenance: D.map };
  for (const side of sides) spec[side] = D.any;
  const r = decodeClosed(t, spec, what) as Record<string, unknown>;
  const workspaces = {} as Record<S, Workspace>;
  for (const side of sides) workspaces[side] = admitWorkspace(r[side] as Term, `${what} :${side}`);
  const intent = r.intent as string;
  const provenance = r.provenance as MapTerm;
  const requestH = hashTerm(workspacesRequestTerm(kind, workspaces, intent, provenance));
  return { intent, provenance, workspaces, requestH };
}

/**
 * Builds the closed diff request `{:base :intent :kind :profile :provenance :target :v 1}` (see
 * {@link workspacesRequestTerm}).
 */
export function diffRequestTerm(base: Workspace, target: Workspace, intent: string, provenance: MapTerm): MapTerm {
  return workspacesRequestTerm(DIFF_REQUEST_KIND, { base, target }, intent, provenance);
}

/**
 * Admits a diff request term: {@link decodeWorkspacesRequest} with the sides `:base` and `:target`.
 * @throws GcError `core/closed/*`, `workspace/*` (exit 10).
 */
export function decodeDiffRequest(t: Term): DiffRequest {
  const r = decodeWorkspacesRequest(t, DIFF_REQUEST_KIND, ['base', 'target'], 'diff request');
  return { intent: r.intent, provenance: r.provenance, base: r.workspaces.base, target: r.workspaces.target, requestH: r.requestH };
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
