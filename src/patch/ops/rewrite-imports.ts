/** `:rewrite-imports` (GenesisCode `docs/spec/PATCH_SCHEMA.md`): set-wise edit of the `::meta` `:imports` vector. */
import type { MapTerm } from '../../coreform/term.js';
import type { PackageState } from '../protocol/state.js';
import type { OpOutcome } from './common.js';
import { applyMetaListRewrite } from './meta-list.js';

/** Applies a normalized `:rewrite-imports` op (see `meta-list.ts` for semantics and errors). */
export function applyRewriteImports(state: PackageState, op: MapTerm): OpOutcome {
  return applyMetaListRewrite(state, op, 'imports');
}
