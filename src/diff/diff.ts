/**
 * The semantic diff producer `core/cli::patch-diff` (docs/reference/patch-protocols.md §3.4,
 * SEMANTIC_PATCH_DIFF_v0.1): top-form-granular ops from a base workspace to a target workspace,
 * normalized into a GenesisCode `docs/spec/PATCH_SCHEMA.md` patch. Its verifier is `verify.ts` (separate code).
 */
import { hashTerm } from '../coreform/hash.js';
import { int, kw, kwMap, mapGetKw, str, termsEqual, vec, type MapTerm, type SymTerm, type Term, type VecTerm } from '../coreform/term.js';
import { normalizePatch, opIdentitiesTerm, PATCH_PROFILE } from '../patch/protocol/normalize.js';
import { compareUtf8 } from '../util/bytes.js';
import { workspaceHash, type Workspace } from '../workspace/workspace.js';
import { decodeDiffRequest, diffRequestTerm, type DiffRequest, DIFF_REPORT_KIND } from './protocol.js';

/** `{:op :replace-node :module-path p :path [[:form i]] :new form}`. */
function replaceFormOp(modulePath: string, index: number, form: Term): MapTerm {
  return kwMap({
    op: kw('replace-node'),
    'module-path': str(modulePath),
    path: vec([vec([kw('form'), int(index)])]),
    new: form,
  });
}

function addModuleOp(modulePath: string, forms: VecTerm): MapTerm {
  return kwMap({ op: kw('add-module'), 'module-path': str(modulePath), content: forms });
}

function removeModuleOp(modulePath: string): MapTerm {
  return kwMap({ op: kw('remove-module'), 'module-path': str(modulePath) });
}

/**
 * The source ops of a diff, walking the sorted union of module paths once and applying the five
 * rules of docs/reference/patch-protocols.md §3.4:
 * 1. equal forms → nothing; 2. target only → `:add-module`; 3. base only → `:remove-module`;
 * 4. changed with the same top-form count → one `:replace-node` per differing form, ascending;
 * 5. changed with a different count → `:remove-module` then `:add-module` of the same path.
 * @returns the op maps in execution order (not yet normalized).
 */
export function diffOps(base: Workspace, target: Workspace): MapTerm[] {
  const paths = [...new Set([...base.byPath.keys(), ...target.byPath.keys()])].sort(compareUtf8);
  const ops: MapTerm[] = [];
  for (const path of paths) {
    const before = base.byPath.get(path);
    const after = target.byPath.get(path);
    if (before === undefined) {
      ops.push(addModuleOp(path, after!));
    } else if (after === undefined) {
      ops.push(removeModuleOp(path));
    } else if (termsEqual(before, after)) {
      continue;
    } else if (before.items.length === after.items.length) {
      before.items.forEach((form, i) => {
        if (!termsEqual(form, after.items[i]!)) ops.push(replaceFormOp(path, i, after.items[i]!));
      });
    } else {
      ops.push(removeModuleOp(path), addModuleOp(path, after));
    }
  }
  return ops;
}

/** Counts of a diff's ops, the report's `:stats`. */
function opStats(ops: readonly MapTerm[]): MapTerm {
  let additions = 0;
  let removals = 0;
  let replacements = 0;
  for (const op of ops) {
    const name = (mapGetKw(op, 'op') as SymTerm).name;
    if (name === ':add-module') additions++;
    else if (name === ':remove-module') removals++;
    else replacements++;
  }
  return kwMap({ additions: int(additions), removals: int(removals), replacements: int(replacements) });
}

/**
 * Runs `core/cli::patch-diff` on a request term and returns the closed report
 * `{:base-h :kind "genesis/patch-diff-v0.1" :ok true :op-count :op-identities :patch :patch-h
 * :profile :request-h :stats {:additions :removals :replacements} :target-h :v 1}`.
 * `:patch` is the normalized patch `{:intent :ops :provenance :version 1}` (GenesisCode `docs/spec/PATCH_SCHEMA.md`
 * "Canonical normalization and identity"); `:request-h` is the canonical request's hash-term.
 * @throws GcError `core/closed/*`, `workspace/*` for an inadmissible request (exit 10).
 */
export function diffReport(request: Term): MapTerm {
  return diffAdmitted(decodeDiffRequest(request));
}

/**
 * {@link diffReport} for a request that is already admitted (the merge producer uses it for the
 * embedded base→merged diff without re-admitting workspaces it built itself).
 */
export function diffAdmitted(req: DiffRequest): MapTerm {
  const ops = diffOps(req.base, req.target);
  const source = kwMap({ intent: str(req.intent), ops: vec(ops), provenance: req.provenance, version: int(1) });
  const normalized = normalizePatch(source);
  return kwMap({
    kind: str(DIFF_REPORT_KIND),
    profile: str(PATCH_PROFILE),
    v: int(1),
    ok: { kind: 'bool', value: true },
    'request-h': str(req.requestH),
    'base-h': str(workspaceHash(req.base)),
    'target-h': str(workspaceHash(req.target)),
    patch: normalized.normalized,
    'patch-h': str(normalized.patchH),
    'op-count': int(ops.length),
    'op-identities': opIdentitiesTerm(normalized.opIdentities),
    stats: opStats(ops),
  });
}

/**
 * Options of {@link diffWorkspaces} and `mergeWorkspaces` (src/merge/rules.ts): the request's
 * `intent` (default `""`) and `provenance` (default `{}`).
 */
export interface DiffOptions {
  intent?: string;
  provenance?: MapTerm;
}

/** `options` with its defaults filled in: what a diff or merge request carries as intent and provenance. */
export function requestIntent(options: DiffOptions): { intent: string; provenance: MapTerm } {
  return { intent: options.intent ?? '', provenance: options.provenance ?? kwMap({}) };
}

/**
 * Diffs two admitted workspaces: builds the canonical request and runs {@link diffReport}.
 * @returns the request term, the same request already admitted (`admitted`, whose `requestH` is
 *   hash-term of `request`; pass it to `verifyDiffReport` to skip re-admitting the workspaces) and
 *   the report term.
 */
export function diffWorkspaces(base: Workspace, target: Workspace, options: DiffOptions = {}): { request: MapTerm; admitted: DiffRequest; report: MapTerm } {
  const { intent, provenance } = requestIntent(options);
  const request = diffRequestTerm(base, target, intent, provenance);
  const admitted: DiffRequest = { intent, provenance, base, target, requestH: hashTerm(request) };
  return { request, admitted, report: diffAdmitted(admitted) };
}
