/** Portable package-relative module paths (GenesisCode `docs/spec/PATCH_SCHEMA.md` "Op maps"; docs/reference/patch-protocols.md §3.1, §4). */
import { join } from 'node:path';
import { GcError } from '../util/errors.js';
import { firstPathProblem, MODULE_PATH_PROFILE } from '../util/path-rules.js';

/**
 * The file a `/`-separated package-relative module path names under `packageDir` (joined with the
 * platform's separator). The path must already be checked ({@link portablePathProblem} or a
 * stricter check): this only joins.
 */
export function modulePathOnDisk(packageDir: string, modulePath: string): string {
  return join(packageDir, ...modulePath.split('/'));
}

/**
 * Returns why `path` is not a portable module path, or `undefined` when it is. Rules
 * ({@link MODULE_PATH_PROFILE}, in order): non-empty; Unicode NFC; no leading `/`; no `\`; no lone
 * surrogate; split on `/`, every component non-empty and not `.`/`..`; the first component must not
 * end with `:` (a drive prefix such as `C:`). The message follows the path (`is empty`).
 */
export function portablePathProblem(path: string): string | undefined {
  return firstPathProblem(MODULE_PATH_PROFILE, path)?.message;
}

/**
 * Checks a portable module path.
 * @param path the path; @param field the field or file it came from, for the message.
 * @throws GcError `patch/non-portable-path` (exit 10) naming the rule that failed.
 */
export function assertPortablePath(path: string, field = 'module path'): void {
  const problem = portablePathProblem(path);
  if (problem !== undefined) {
    throw new GcError('patch/non-portable-path', `${field} ${JSON.stringify(path)} ${problem}; use a relative path with / separators`, {
      location: { at: field },
    });
  }
}
