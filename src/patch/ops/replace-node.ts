/** `:replace-node` (GenesisCode `docs/spec/PATCH_SCHEMA.md`): replace the node at `:path` with `:new`, re-canonicalize. */
import { hashTerm, semanticNodeId } from '../../coreform/hash.js';
import { kw, kwMap, str, type MapTerm, type Term } from '../../coreform/term.js';
import { decodePath, pathTerm, type PathStep } from '../protocol/path.js';
import { requireModule, withModule, type PackageState } from '../protocol/state.js';
import { replaceAt } from '../protocol/tree.js';
import { field, recanonicalize, strField, type OpOutcome } from './common.js';

/**
 * Replaces the node at `steps` of module `modulePath` with `replacement` and re-canonicalizes the
 * touched top-level form. Shared by `:replace-node` and `:replace-node-id`.
 * @returns the new state and the edit `{:op :module-path :node-id :path :new-term-h}`.
 * @throws GcError `patch/module-missing`, the path errors of `tree.ts`, `patch/canonicalize`.
 */
export function replaceNodeAt(state: PackageState, opName: string, modulePath: string, steps: readonly PathStep[], replacement: Term): OpOutcome {
  const forms = requireModule(state, modulePath, `:${opName}`);
  const { index, form } = replaceAt(forms, steps, replacement);
  const next = [...forms];
  next[index] = form;
  const canonical = recanonicalize(modulePath, next, [index]);
  const path = pathTerm(steps);
  return {
    state: withModule(state, modulePath, canonical),
    edit: kwMap({
      op: kw(opName),
      'module-path': str(modulePath),
      'node-id': str(semanticNodeId(modulePath, path)),
      path,
      'new-term-h': str(hashTerm(replacement)),
    }),
  };
}

/** Applies a normalized `:replace-node` op. */
export function applyReplaceNode(state: PackageState, op: MapTerm): OpOutcome {
  return replaceNodeAt(state, 'replace-node', strField(op, 'module-path'), decodePath(field(op, 'path')), field(op, 'new'));
}
