/**
 * The three-way merge producer `core/cli::patch-merge` (GenesisCode `docs/spec/SEMANTIC_PATCH_MERGE_v0.1.md` "Merge Rules",
 * docs/reference/patch-protocols.md §3.5): module- and top-form-granular merge of canonical workspaces. A success
 * embeds the diff report base → merged; any conflict makes the whole merge non-applicable. Its
 * verifier is `verify.ts` (separate code).
 */
import { hashTerm } from '../coreform/hash.js';
import { formsEqual } from '../coreform/forms.js';
import { int, kw, kwMap, mapSet, NIL, str, termsEqual, vec, type MapTerm, type Term, type VecTerm } from '../coreform/term.js';
import { diffAdmitted, requestIntent, type DiffOptions } from '../diff/diff.js';
import { diffRequestTerm } from '../diff/protocol.js';
import { PATCH_PROFILE } from '../patch/protocol/normalize.js';
import { compareUtf8 } from '../util/bytes.js';
import { makeWorkspace, workspaceHash, workspaceTerm, type Workspace } from '../workspace/workspace.js';
import { CONFLICT_EXPLANATIONS, decodeMergeRequest, mergeRequestTerm, MERGE_REPORT_KIND, type ConflictCode, type MergeRequest } from './report.js';

/**
 * Builds a closed conflict record: `:code`, its `:explanation`, `:module-path`, `:form-index`
 * (int or nil), `:base-h`/`:left-h`/`:right-h` (hash-term of the form or module form vector,
 * hash-term(nil) for an absent side) and `:conflict-h` = hash-term of the record without it.
 */
export function conflictTerm(
  code: ConflictCode,
  modulePath: string,
  formIndex: number | null,
  base: Term | undefined,
  left: Term | undefined,
  right: Term | undefined,
): MapTerm {
  const core = kwMap({
    code: str(code),
    explanation: str(CONFLICT_EXPLANATIONS[code]),
    'module-path': str(modulePath),
    'form-index': formIndex === null ? NIL : int(formIndex),
    'base-h': str(hashTerm(base ?? NIL)),
    'left-h': str(hashTerm(left ?? NIL)),
    'right-h': str(hashTerm(right ?? NIL)),
  });
  return mapSet(core, kw('conflict-h'), str(hashTerm(core)));
}

/** Absent (`undefined`) is a value distinct from every form vector. */
function sameOptional(a: VecTerm | undefined, b: VecTerm | undefined): boolean {
  return formsEqual(a?.items, b?.items);
}

/**
 * The outcome for one module path: the selected forms (`undefined` = absent) and its conflicts.
 * With form conflicts, `forms` keeps the base form at each conflicted index (never used as a result).
 */
export interface PathOutcome {
  forms: VecTerm | undefined;
  conflicts: MapTerm[];
}

/** Rule 6: merges equal-length modules form by form with rules 1–3. */
function mergeForms(path: string, base: VecTerm, left: VecTerm, right: VecTerm): PathOutcome {
  const forms: Term[] = [];
  const conflicts: MapTerm[] = [];
  base.items.forEach((b, i) => {
    const l = left.items[i]!;
    const r = right.items[i]!;
    if (termsEqual(l, r) || termsEqual(r, b)) forms.push(l);
    else if (termsEqual(l, b)) forms.push(r);
    else {
      conflicts.push(conflictTerm('form/divergent-edit', path, i, b, l, r));
      forms.push(b);
    }
  });
  return { forms: vec(forms), conflicts };
}

/**
 * Applies merge rules 1–7 of GenesisCode `docs/spec/SEMANTIC_PATCH_MERGE_v0.1.md`, in order, to one module path.
 * @param base/left/right the module's form vector on each side, `undefined` when absent.
 */
export function mergePath(path: string, base: VecTerm | undefined, left: VecTerm | undefined, right: VecTerm | undefined): PathOutcome {
  if (sameOptional(left, right)) return { forms: left, conflicts: [] }; // 1 (incl. mutual deletion)
  if (sameOptional(left, base)) return { forms: right, conflicts: [] }; // 2
  if (sameOptional(right, base)) return { forms: left, conflicts: [] }; // 3
  const conflict = (code: ConflictCode): PathOutcome => ({
    forms: undefined,
    conflicts: [conflictTerm(code, path, null, base, left, right)],
  });
  if (base === undefined) return conflict('module/divergent-add'); // 4
  if (left === undefined || right === undefined) return conflict('module/delete-modify'); // 5
  if (base.items.length === left.items.length && base.items.length === right.items.length) {
    return mergeForms(path, base, left, right); // 6
  }
  return conflict('module/structural-divergence'); // 7
}

/**
 * Merges three admitted workspaces over the sorted union of their module paths.
 * @returns the merged workspace when there is no conflict (else `undefined`) and every conflict
 *   ordered by module path, then ascending form index.
 */
export function mergeAdmitted(base: Workspace, left: Workspace, right: Workspace): { merged: Workspace | undefined; conflicts: MapTerm[] } {
  const paths = [...new Set([...base.byPath.keys(), ...left.byPath.keys(), ...right.byPath.keys()])].sort(compareUtf8);
  const modules: { modulePath: string; forms: VecTerm }[] = [];
  const conflicts: MapTerm[] = [];
  for (const path of paths) {
    const outcome = mergePath(path, base.byPath.get(path), left.byPath.get(path), right.byPath.get(path));
    for (const item of outcome.conflicts) conflicts.push(item);
    if (outcome.forms !== undefined) modules.push({ modulePath: path, forms: outcome.forms });
  }
  if (conflicts.length > 0) return { merged: undefined, conflicts };
  return { merged: makeWorkspace(modules, 'merged', { assumeCanonical: true }), conflicts };
}

function mergeReportFor(req: MergeRequest): MapTerm {
  const { merged, conflicts } = mergeAdmitted(req.base, req.left, req.right);
  let diff: Term = NIL;
  if (merged !== undefined) {
    const diffRequest = diffRequestTerm(req.base, merged, req.intent, req.provenance);
    diff = diffAdmitted({
      intent: req.intent,
      provenance: req.provenance,
      base: req.base,
      target: merged,
      requestH: hashTerm(diffRequest),
    });
  }
  return kwMap({
    kind: str(MERGE_REPORT_KIND),
    profile: str(PATCH_PROFILE),
    v: int(1),
    'request-h': str(req.requestH),
    'base-h': str(workspaceHash(req.base)),
    'left-h': str(workspaceHash(req.left)),
    'right-h': str(workspaceHash(req.right)),
    ok: { kind: 'bool', value: merged !== undefined },
    'conflict-count': int(conflicts.length),
    conflicts: vec(conflicts),
    merged: merged === undefined ? NIL : workspaceTerm(merged),
    'merged-h': merged === undefined ? NIL : str(workspaceHash(merged)),
    diff,
  });
}

/**
 * Runs `core/cli::patch-merge` on a request term and returns the closed report (GenesisCode `docs/spec/SEMANTIC_PATCH_MERGE_v0.1.md`
 * "Report"): `{:base-h :conflict-count :conflicts :diff :kind "genesis/patch-merge-v0.1" :left-h
 * :merged :merged-h :ok :profile :request-h :right-h :v 1}`. On success `:ok true`, `:conflicts []`,
 * `:merged` the canonical merged workspace vector and `:diff` the full diff report base → merged
 * (same intent and provenance); on conflict `:ok false` and nil `:merged`, `:merged-h`, `:diff`.
 * @throws GcError `core/closed/*`, `workspace/*` for an inadmissible request (exit 10).
 */
export function mergeReport(request: Term): MapTerm {
  return mergeReportFor(decodeMergeRequest(request));
}

/** Options of {@link mergeWorkspaces}: those of a diff, `intent` (default `""`) and `provenance` (default `{}`). */
export type MergeOptions = DiffOptions;

/**
 * Merges three admitted workspaces: builds the canonical request and runs the merge.
 * @returns the request term, the same request already admitted (`admitted`, whose `requestH` is
 *   hash-term of `request`; pass it to `verifyMergeReport` to skip re-admitting the workspaces)
 *   and the report term.
 */
export function mergeWorkspaces(
  base: Workspace,
  left: Workspace,
  right: Workspace,
  options: MergeOptions = {},
): { request: MapTerm; admitted: MergeRequest; report: MapTerm } {
  const { intent, provenance } = requestIntent(options);
  const request = mergeRequestTerm(base, left, right, intent, provenance);
  const admitted: MergeRequest = { intent, provenance, base, left, right, requestH: hashTerm(request) };
  return { request, admitted, report: mergeReportFor(admitted) };
}
