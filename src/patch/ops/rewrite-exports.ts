/** `:rewrite-exports` (GenesisCode `docs/spec/PATCH_SCHEMA.md`): set-wise edit of the `::meta` `:exports` vector. */
import type { MapTerm } from '../../coreform/term.js';
import type { PackageState } from '../protocol/state.js';
import type { OpOutcome } from './common.js';
import { applyMetaListRewrite } from './meta-list.js';

/** Applies a normalized `:rewrite-exports` op (see `meta-list.ts` for semantics and errors). */
export function applyRewriteExports(state: PackageState, op: MapTerm): OpOutcome {
  return applyMetaListRewrite(state, op, 'exports');
}
