/**
 * patch-semantic-node-index: the complete preorder inventory of a module's nodes with stable
 * semantic node ids, and node-id resolution for `:replace-node-id`. Implements GenesisCode `docs/spec/PATCH_SCHEMA.md`
 * "Stable Node IDs" and "Node-index authority protocol" (docs/reference/patch-protocols.md §3.3).
 *
 * Preorder: forms by index; a pair is visited, then its car subtree (`[:pair-car]`), then its cdr
 * subtree (`[:pair-cdr]`) — so list tails and the closing `nil` are nodes; vectors by index
 * (`[:vec i]`); maps by canonical key order, values only (`[:map key]`). Iterative throughout.
 */
import { decodeClosed, D, literal } from '../../coreform/closed.js';
import { hashModule, hashTerm, semanticNodeIdState, type Blake3State } from '../../coreform/hash.js';
import { printTerm } from '../../coreform/print.js';
import { int, kwMap, str, TERM_TAG, vec, TRUE, type MapTerm, type Term } from '../../coreform/term.js';
import { toHex, utf8 } from '../../util/bytes.js';
import { PatchCode, patchError } from './errors.js';
import { PATCH_PROFILE } from './normalize.js';
import { pathRepr, pathTerm, stepTerm, type PathStep } from './path.js';
import { assertPortablePath } from '../../workspace/path.js';

/** `:kind` of a node-index request. */
export const NODE_INDEX_REQUEST_KIND = 'genesis/patch-node-index-request-v0.1';
/** `:kind` of a node-index report. */
export const NODE_INDEX_REPORT_KIND = 'genesis/patch-node-index-v0.1';

/** One node of the inventory. Hashes are lowercase hex64. */
export interface NodeRecord {
  nodeId: string;
  path: PathStep[];
  /** print_term of the path term (multi-line). */
  pathRepr: string;
  /** hash-term of the node. */
  termH: string;
  /** `nil bool int str bytes sym pair vec map`. */
  termTag: string;
  term: Term;
}

interface Visit {
  term: Term;
  parent: number;
  step: PathStep;
}

/** The printed lines of one step at indent 2, as it appears inside a printed path vector. */
function stepLines(step: PathStep): string {
  const printed = printTerm(vec([stepTerm(step)]));
  return printed.slice(2, -1); // strip the leading "[\n" and the closing "]"
}

/**
 * Walks every node in preorder, calling `visit(term, index, parentIndex, step, nodeId)`.
 * Node ids are computed incrementally (a BLAKE3 state per ancestor), so the walk is linear in the
 * number of nodes even for very deep terms.
 */
function walk(modulePath: string, forms: readonly Term[], visit: (v: Visit, index: number, nodeId: string) => void): void {
  const base = semanticNodeIdState(modulePath);
  const close = utf8(']');
  const newline = utf8('\n');
  // Per visited node: the hasher state after its path's steps (without the closing bracket).
  const states: Blake3State[] = [];
  const stack: Visit[] = [];
  for (let i = forms.length - 1; i >= 0; i--) stack.push({ term: forms[i]!, parent: -1, step: { tag: 'form', index: i } });
  let index = 0;
  while (stack.length > 0) {
    const v = stack.pop()!;
    const state = (v.parent < 0 ? base.clone().update(utf8('[\n')) : states[v.parent]!.clone().update(newline)).update(utf8(stepLines(v.step)));
    states.push(state);
    const nodeId = toHex(state.clone().update(close).digest());
    visit(v, index, nodeId);
    const t = v.term;
    const me = index++;
    if (t.kind === 'pair') {
      stack.push({ term: t.cdr, parent: me, step: { tag: 'pair-cdr' } });
      stack.push({ term: t.car, parent: me, step: { tag: 'pair-car' } });
    } else if (t.kind === 'vec') {
      for (let i = t.items.length - 1; i >= 0; i--) stack.push({ term: t.items[i]!, parent: me, step: { tag: 'vec', index: i } });
    } else if (t.kind === 'map') {
      for (let i = t.entries.length - 1; i >= 0; i--) {
        const [k, val] = t.entries[i]!;
        stack.push({ term: val, parent: me, step: { tag: 'map', key: k } });
      }
    }
  }
}

/**
 * The complete preorder node inventory of a module.
 * @param modulePath portable package-relative path (part of every node id).
 * @param forms the canonical module forms.
 * @returns one record per node, in preorder.
 */
export function nodeIndexRecords(modulePath: string, forms: readonly Term[]): NodeRecord[] {
  const parents: { parent: number; step: PathStep }[] = [];
  const out: NodeRecord[] = [];
  walk(modulePath, forms, (v, _index, nodeId) => {
    parents.push({ parent: v.parent, step: v.step });
    const path: PathStep[] = [];
    for (let p = parents.length - 1; p >= 0; p = parents[p]!.parent) path.push(parents[p]!.step);
    path.reverse();
    out.push({ nodeId, path, pathRepr: pathRepr(path), termH: hashTerm(v.term), termTag: TERM_TAG[v.term.kind], term: v.term });
  });
  return out;
}

/**
 * Resolves `nodeId` to its path in the module (for `:replace-node-id`).
 * @throws GcError `patch/unknown-node-id` when no node has that id, `patch/ambiguous-node-id`
 *   when more than one does.
 */
export function resolveNodeId(modulePath: string, forms: readonly Term[], nodeId: string): PathStep[] {
  const parents: { parent: number; step: PathStep }[] = [];
  const matches: number[] = [];
  walk(modulePath, forms, (v, index, id) => {
    parents.push({ parent: v.parent, step: v.step });
    if (id === nodeId) matches.push(index);
  });
  if (matches.length === 0) {
    throw patchError(PatchCode.unknownNodeId, `node id ${nodeId} names no node of ${modulePath}; run \`gcpatch patch node-index\` to list them`, {
      at: ':node-id',
    });
  }
  if (matches.length > 1) throw patchError(PatchCode.ambiguousNodeId, `node id ${nodeId} matches ${matches.length} nodes of ${modulePath}`, { at: ':node-id' });
  const path: PathStep[] = [];
  for (let p = matches[0]!; p >= 0; p = parents[p]!.parent) path.push(parents[p]!.step);
  return path.reverse();
}

/** Builds the closed node-index request `{:forms :kind :module-path :profile :v 1}`. */
export function nodeIndexRequest(modulePath: string, forms: readonly Term[]): MapTerm {
  return kwMap({ forms: vec(forms), kind: str(NODE_INDEX_REQUEST_KIND), 'module-path': str(modulePath), profile: str(PATCH_PROFILE), v: int(1) });
}

/** The closed node record term `{:module-path :node-id :path :path-repr :term-h :term-tag}`. */
export function nodeRecordTerm(modulePath: string, r: NodeRecord): MapTerm {
  return kwMap({
    'module-path': str(modulePath),
    'node-id': str(r.nodeId),
    path: pathTerm(r.path),
    'path-repr': str(r.pathRepr),
    'term-h': str(r.termH),
    'term-tag': str(r.termTag),
  });
}

/**
 * The node-index producer: decodes the closed request and returns the closed report
 * `{:kind "genesis/patch-node-index-v0.1" :module-h :module-path :nodes :ok true :profile :v 1}`.
 * @throws GcError `core/closed/*` for a malformed request, `patch/non-portable-path`.
 */
export function nodeIndexReport(request: Term): MapTerm {
  const req = decodeClosed(
    request,
    {
      forms: D.vec,
      kind: literal(str(NODE_INDEX_REQUEST_KIND)),
      'module-path': D.nonEmptyStr,
      profile: literal(str(PATCH_PROFILE)),
      v: literal(int(1)),
    },
    'patch-node-index request',
  );
  const modulePath = req['module-path'];
  assertPortablePath(modulePath, ':module-path');
  const forms = req.forms.items;
  return kwMap({
    kind: str(NODE_INDEX_REPORT_KIND),
    'module-h': str(hashModule(forms)),
    'module-path': str(modulePath),
    nodes: vec(nodeIndexRecords(modulePath, forms).map((r) => nodeRecordTerm(modulePath, r))),
    ok: TRUE,
    profile: str(PATCH_PROFILE),
    v: int(1),
  });
}
