/** `:replace-node-id` (GenesisCode `docs/spec/PATCH_SCHEMA.md`): resolve `:node-id` through the node index, then replace. */
import type { MapTerm } from '../../coreform/term.js';
import { resolveNodeId } from '../protocol/node-index.js';
import { requireModule, type PackageState } from '../protocol/state.js';
import { field, strField, type OpOutcome } from './common.js';
import { replaceNodeAt } from './replace-node.js';

/**
 * Applies a normalized `:replace-node-id` op: the node id is resolved against the module's
 * canonical forms (unknown or ambiguous id: error), then replaced as `:replace-node` does.
 * @throws GcError `patch/unknown-node-id`, `patch/ambiguous-node-id`, and the replace-node errors.
 */
export function applyReplaceNodeId(state: PackageState, op: MapTerm): OpOutcome {
  const modulePath = strField(op, 'module-path');
  const forms = requireModule(state, modulePath, ':replace-node-id');
  const steps = resolveNodeId(modulePath, forms, strField(op, 'node-id'));
  return replaceNodeAt(state, 'replace-node-id', modulePath, steps, field(op, 'new'));
}
