/** Test helpers: workspaces from `.gc` source text. */
import { canonicalizeSource } from '../../src/coreform/canon.js';
import { makeWorkspace, type Workspace } from '../../src/workspace/workspace.js';

/** A workspace from `{path: source}`; sources are canonicalized first. */
export function ws(modules: Record<string, string>): Workspace {
  return makeWorkspace(Object.entries(modules).map(([modulePath, src]) => ({ modulePath, forms: canonicalizeSource(src) })));
}
