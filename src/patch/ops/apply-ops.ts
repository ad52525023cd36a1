/**
 * The op engine: runs a normalized patch's ops in vector order on an in-memory package state
 * (docs/reference/patch-protocols.md §3.7 step 5). Pure: no filesystem access, so the GitHub Action, the refactor
 * planner and tests replay patches in memory with exactly the code the on-disk apply uses.
 */
import type { MapTerm } from '../../coreform/term.js';
import { opNameOf, type NormalizedPatch, type OpName } from '../protocol/normalize.js';
import { editModulesInPlace, type PackageState } from '../protocol/state.js';
import type { OpImplementation } from './common.js';
import { applyReplaceNode } from './replace-node.js';
import { applyReplaceNodeId } from './replace-node-id.js';
import { applyAddModule } from './add-module.js';
import { applyRemoveModule } from './remove-module.js';
import { applyUpdateManifest } from './update-manifest.js';
import { applyRenameSymbol } from './rename-symbol.js';
import { applyMoveModule } from './move-module.js';
import { applySplitModule } from './split-module.js';
import { applyRewriteImports } from './rewrite-imports.js';
import { applyRewriteExports } from './rewrite-exports.js';
import { applyMigrateContractSignature } from './migrate-contract-signature.js';
import { GcError, isGcError } from '../../util/errors.js';

/** Op name → implementation. */
export const OP_IMPLEMENTATIONS: Record<OpName, OpImplementation> = {
  'replace-node': applyReplaceNode,
  'replace-node-id': applyReplaceNodeId,
  'add-module': applyAddModule,
  'remove-module': applyRemoveModule,
  'update-manifest': applyUpdateManifest,
  'rename-symbol': applyRenameSymbol,
  'move-module': applyMoveModule,
  'split-module': applySplitModule,
  'rewrite-imports': applyRewriteImports,
  'rewrite-exports': applyRewriteExports,
  'migrate-contract-signature': applyMigrateContractSignature,
};

/** Options of {@link applyOpsInMemory}. */
export interface ApplyOpsOptions {
  /** Fault-injection hook, called with `op:<ordinal>:<op-name>` before each op; throw to fail there. */
  faults?: (step: string) => void;
}

/** The result of {@link applyOpsInMemory}. */
export interface InMemoryApplyResult {
  /** The package after every op. */
  state: PackageState;
  /** The ordered per-op evidence entries (module-editing ops only), for the apply report. */
  semanticEdits: MapTerm[];
}

/**
 * Applies every op of a normalized patch, in order, to `state` (which is not modified).
 * @param state the package before the patch (see `state.ts`; `packageStateFromSources` builds one
 *   from text).
 * @param patch a normalized patch (`normalizePatch` or `verifyNormalizeReport` output), or just its
 *   normalized `ops`.
 * @returns the new state and the semantic edits.
 * @throws GcError the first failing op's `patch/*` error, with `location.at` = `op <ordinal>` and
 *   `details.ordinal`.
 * @example
 *   const plan = normalizePatch(readTerm(text));
 *   const { state: after, semanticEdits } = applyOpsInMemory(packageStateFromSources(toml, sources), plan);
 */
export function applyOpsInMemory(state: PackageState, patch: Pick<NormalizedPatch, 'ops'>, options: ApplyOpsOptions = {}): InMemoryApplyResult {
  // each op derives its state from the previous op's only; the intermediate states are dropped
  return editModulesInPlace(state, (start) => applyEach(start, patch.ops, options));
}

function applyEach(state: PackageState, ops: readonly MapTerm[], options: ApplyOpsOptions): InMemoryApplyResult {
  const semanticEdits: MapTerm[] = [];
  let current = state;
  ops.forEach((op, ordinal) => {
    const name = opNameOf(op);
    options.faults?.(`op:${ordinal}:${name}`);
    let outcome;
    try {
      outcome = OP_IMPLEMENTATIONS[name](current, op, ordinal);
    } catch (error) {
      if (isGcError(error) && error.details?.ordinal === undefined) {
        throw new GcError(error.code, `op ${ordinal} (:${name}): ${error.message}`, {
          exitCode: error.exitCode,
          location: { ...error.location, at: error.location.at ?? `op ${ordinal}` },
          details: { ...(error.details ?? {}), ordinal, op: name },
          cause: error,
        });
      }
      throw error;
    }
    current = outcome.state;
    if (outcome.edit !== undefined) semanticEdits.push(outcome.edit);
  });
  return { state: current, semanticEdits };
}
