/** Public API of `weavatrix.edit-plan.v1`: decode, serialize, validate, apply, filesystem transaction. */
export * from './model.js';
export * from './errors.js';
export * from './limits.js';
export { parseJson, JsonObjectNode, MAX_JSON_DEPTH, type JsonNode } from './json.js';
export { decodeEditPlan, decodeEditPlanBytes, decodePlan } from './decode.js';
export { serializeEditPlan, type SerializeOptions } from './serialize.js';
export { pathProblem, portablePathKey, isWindowsDeviceName } from './path.js';
export { validateEditPlan, checkEdit, type PlanTotals } from './validate.js';
export { LineIndex, resolvePosition, utf8Offset, positionError, OUT_OF_RANGE, SPLITS_SURROGATE_PAIR } from './positions.js';
export { applyEdits, type ApplyOptions, type ApplyResult, type AppliedChange, type BeforeMismatch, type TextPreview } from './apply.js';
export {
  applyPlanToRoot,
  sha256Hex,
  journalPath,
  SimulatedCrash,
  CONTROL_DIRECTORY,
  JOURNAL_FILE,
  JOURNAL_FORMAT,
  type FaultHooks,
  type TransactionOptions,
  type TransactionResult,
  type FileOutcome,
} from './transaction.js';
export { recover, type RecoveryResult } from './recover.js';
export { unifiedDiff } from './diff.js';
