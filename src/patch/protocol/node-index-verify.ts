/**
 * The host's check of a patch-semantic-node-index report (GenesisCode `docs/spec/PATCH_SCHEMA.md` "Node-index authority
 * protocol"): unknown fields, missing or reordered inventory, request/report path or module-h
 * disagreement, duplicate or non-lowercase-hex64 node ids, and term hash/tag disagreement are
 * rejected. As the spec says, it validates binding and does not recompute node ids. Independent of
 * `node-index.ts`.
 */
import { D, literal } from '../../coreform/closed.js';
import { hashModule, hashTerm } from '../../coreform/hash.js';
import { printTerm } from '../../coreform/print.js';
import { int, kw, mapGet, str, TERM_TAG, termsEqual, vec, type MapTerm, type Term } from '../../coreform/term.js';
import { isHex64 } from '../../util/bytes.js';
import type { GcError } from '../../util/errors.js';
import { decodeReport, reportMismatch } from './report-check.js';

const reject = (message: string): GcError => reportMismatch('patch-node-index', message);

/** The expected preorder of (path term, node) pairs, computed with an explicit stack. */
function preorder(forms: readonly Term[]): [Term, Term][] {
  const out: [Term, Term][] = [];
  const stack: [Term, Term[]][] = [];
  for (let i = forms.length - 1; i >= 0; i--) stack.push([forms[i]!, [vec([kw('form'), int(i)])]]);
  while (stack.length > 0) {
    const [t, steps] = stack.pop()!;
    out.push([vec(steps), t]);
    if (t.kind === 'pair') {
      stack.push([t.cdr, [...steps, vec([kw('pair-cdr')])]], [t.car, [...steps, vec([kw('pair-car')])]]);
    } else if (t.kind === 'vec') {
      for (let i = t.items.length - 1; i >= 0; i--) stack.push([t.items[i]!, [...steps, vec([kw('vec'), int(i)])]]);
    } else if (t.kind === 'map') {
      for (let i = t.entries.length - 1; i >= 0; i--) stack.push([t.entries[i]![1], [...steps, vec([kw('map'), t.entries[i]![0]])]]);
    }
  }
  return out;
}

/**
 * Verifies a node-index report against its request.
 * @returns the node records as `{nodeId, pathRepr}` in preorder.
 * @throws GcError `patch/report-mismatch` (exit 50).
 */
export function verifyNodeIndexReport(request: MapTerm, report: Term): { nodeId: string; pathRepr: string }[] {
  const forms = mapGet(request, kw('forms'));
  const modulePath = mapGet(request, kw('module-path'));
  if (forms?.kind !== 'vec' || modulePath?.kind !== 'str') throw reject('the request has no :forms vector or :module-path');
  const rep = decodeReport(
    report,
    {
      kind: literal(str('genesis/patch-node-index-v0.1')),
      'module-h': D.hex64,
      'module-path': literal(modulePath),
      nodes: D.vec,
      ok: literal({ kind: 'bool', value: true }),
      profile: literal(str('genesis/patch-authority-v0.1')),
      v: literal(int(1)),
    },
    'patch-node-index report',
    reject,
  );
  if (rep['module-h'] !== hashModule(forms.items)) throw reject(':module-h is not the module hash of the request forms');
  const expected = preorder(forms.items);
  if (rep.nodes.items.length !== expected.length) throw reject(`${rep.nodes.items.length} nodes, the module has ${expected.length}`);
  const seen = new Set<string>();
  return rep.nodes.items.map((node, i) => {
    const at = `:nodes[${i}]`;
    const r = decodeReport(
      node,
      { 'module-path': literal(modulePath), 'node-id': D.hex64, path: D.vec, 'path-repr': D.str, 'term-h': D.hex64, 'term-tag': D.str },
      at,
      reject,
    );
    const [path, term] = expected[i]!;
    if (!termsEqual(r.path, path)) throw reject(`${at} is out of preorder (expected path ${printTerm(path).replace(/\s+/g, ' ')})`);
    if (r['path-repr'] !== printTerm(path)) throw reject(`${at} :path-repr is not the print of :path`);
    if (r['term-h'] !== hashTerm(term) || r['term-tag'] !== TERM_TAG[term.kind]) throw reject(`${at} :term-h/:term-tag disagree with the node`);
    if (!isHex64(r['node-id']) || seen.has(r['node-id'])) throw reject(`${at} :node-id is duplicated`);
    seen.add(r['node-id']);
    return { nodeId: r['node-id'], pathRepr: r['path-repr'] };
  });
}
