/**
 * The closed request, conflict record and report of `core/cli::patch-merge`
 * (GenesisCode `docs/spec/SEMANTIC_PATCH_MERGE_v0.1.md` "Request", "Conflict Contract", "Report"; docs/reference/patch-protocols.md §3.5):
 * fixed identities, building and admitting a request, and decoding a report's shape. Shared by
 * the producer (`rules.ts`), the verifier (`verify.ts`) and the CLI; it makes no merge decision.
 */
import { D, decodeClosed, fixedIdentity, nullable, oneOfStr, vecOf } from '../coreform/closed.js';
import type { MapTerm, Term, VecTerm } from '../coreform/term.js';
import { PATCH_PROFILE } from '../patch/protocol/normalize.js';
import type { Workspace } from '../workspace/workspace.js';
import { decodeWorkspacesRequest, workspacesRequestTerm } from '../diff/protocol.js';

/** `:kind` of a merge request. */
export const MERGE_REQUEST_KIND = 'genesis/patch-merge-request-v0.1';
/** `:kind` of a merge report. */
export const MERGE_REPORT_KIND = 'genesis/patch-merge-v0.1';

/** The four conflict codes of GenesisCode `docs/spec/SEMANTIC_PATCH_MERGE_v0.1.md` "Merge Rules" (rules 4–7). */
export const CONFLICT_CODES = ['form/divergent-edit', 'module/delete-modify', 'module/divergent-add', 'module/structural-divergence'] as const;
/** One of the four conflict codes. */
export type ConflictCode = (typeof CONFLICT_CODES)[number];

/**
 * The deterministic `:explanation` of each conflict code (docs/reference/patch-protocols.md §3.5). Informational:
 * codes, locations and identities are the machine contract.
 */
export const CONFLICT_EXPLANATIONS: Record<ConflictCode, string> = {
  'form/divergent-edit': 'both branches changed the same top-level form differently',
  'module/delete-modify': 'one branch deleted a module changed by the other branch',
  'module/divergent-add': 'both branches added the same module path differently',
  'module/structural-divergence': 'both branches changed module structure incompatibly',
};

/** An admitted merge request; `requestH` is hash-term of the canonical request. */
export interface MergeRequest {
  intent: string;
  provenance: MapTerm;
  base: Workspace;
  left: Workspace;
  right: Workspace;
  requestH: string;
}

/**
 * Builds the closed merge request `{:base :intent :kind :left :profile :provenance :right :v 1}`
 * with canonical (path-sorted) workspace vectors.
 */
export function mergeRequestTerm(base: Workspace, left: Workspace, right: Workspace, intent: string, provenance: MapTerm): MapTerm {
  return workspacesRequestTerm(MERGE_REQUEST_KIND, { base, left, right }, intent, provenance);
}

/**
 * Admits a merge request term: exact key set, fixed kind/profile/v, string intent, map provenance,
 * three admissible workspaces (the same admission as diff: {@link decodeWorkspacesRequest} with the
 * sides `:base`, `:left` and `:right`). `requestH` hashes the request rebuilt with canonical
 * workspace vectors, so it does not depend on input module order.
 * @throws GcError `core/closed/*`, `workspace/*` (exit 10).
 */
export function decodeMergeRequest(t: Term): MergeRequest {
  const r = decodeWorkspacesRequest(t, MERGE_REQUEST_KIND, ['base', 'left', 'right'], 'merge request');
  const { base, left, right } = r.workspaces;
  return { intent: r.intent, provenance: r.provenance, base, left, right, requestH: r.requestH };
}

/** A decoded conflict record. `formIndex` is 0-based, `null` for module conflicts. */
export interface MergeConflict {
  code: ConflictCode;
  explanation: string;
  modulePath: string;
  formIndex: number | null;
  baseH: string;
  leftH: string;
  rightH: string;
  conflictH: string;
}

/** Decodes one closed conflict record (shape only). @throws GcError `core/closed/*` (exit 10). */
export function decodeConflict(t: Term, what = 'conflict'): MergeConflict {
  const r = decodeClosed(
    t,
    {
      code: oneOfStr(CONFLICT_CODES),
      explanation: D.str,
      'module-path': D.str,
      'form-index': nullable(D.index),
      'base-h': D.hex64,
      'left-h': D.hex64,
      'right-h': D.hex64,
      'conflict-h': D.hex64,
    },
    what,
  );
  return {
    code: r.code,
    explanation: r.explanation,
    modulePath: r['module-path'],
    formIndex: r['form-index'],
    baseH: r['base-h'],
    leftH: r['left-h'],
    rightH: r['right-h'],
    conflictH: r['conflict-h'],
  };
}

/** A decoded merge report (shape only; `verifyMergeReport` checks the content). */
export interface MergeReport {
  requestH: string;
  baseH: string;
  leftH: string;
  rightH: string;
  ok: boolean;
  conflictCount: number;
  conflicts: MergeConflict[];
  /** The raw `:conflicts` records, in report order. */
  conflictTerms: readonly Term[];
  merged: VecTerm | null;
  mergedH: string | null;
  diff: Term | null;
}

/**
 * Decodes the closed merge report `{:base-h :conflict-count :conflicts :diff :kind :left-h :merged
 * :merged-h :ok :profile :request-h :right-h :v}` with fixed kind/profile/v.
 * @throws GcError `core/closed/*` (exit 10).
 */
export function decodeMergeReport(t: Term, what = 'merge report'): MergeReport {
  const r = decodeClosed(
    t,
    {
      ...fixedIdentity(MERGE_REPORT_KIND, PATCH_PROFILE),
      'request-h': D.hex64,
      'base-h': D.hex64,
      'left-h': D.hex64,
      'right-h': D.hex64,
      ok: D.bool,
      'conflict-count': D.index,
      conflicts: D.vec,
      merged: nullable(D.vec),
      'merged-h': nullable(D.hex64),
      diff: nullable(D.map),
    },
    what,
  );
  const conflicts = vecOf((e, at) => decodeConflict(e, at))(r.conflicts, `${what} :conflicts`);
  return {
    requestH: r['request-h'],
    baseH: r['base-h'],
    leftH: r['left-h'],
    rightH: r['right-h'],
    ok: r.ok,
    conflictCount: r['conflict-count'],
    conflicts,
    conflictTerms: r.conflicts.items,
    merged: r.merged,
    mergedH: r['merged-h'],
    diff: r.diff,
  };
}
