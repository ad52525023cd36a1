/**
 * An isolated home for the tests of one file: `useTempHome()` registers a `beforeAll` that points
 * HOME and XDG_CONFIG_HOME (and, when asked, GIT_CONFIG_GLOBAL and GIT_CONFIG_NOSYSTEM) at a new
 * empty folder, so that the machine's global git config and attributes do not leak into git or the
 * drivers it starts, and an `afterAll` that puts the previous values back.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';

/** What {@link useTempHome} isolates besides HOME and XDG_CONFIG_HOME. */
export interface TempHomeOptions {
  /** Also GIT_CONFIG_GLOBAL=/dev/null (no global git config at all). */
  noGlobalGitConfig?: boolean;
}

/** Registers the file's `beforeAll`/`afterAll` that give it an empty home (see the file's doc). */
export function useTempHome(options: TempHomeOptions = {}): void {
  const names = ['HOME', 'XDG_CONFIG_HOME', ...(options.noGlobalGitConfig ? ['GIT_CONFIG_GLOBAL'] : [])];
  const saved = new Map<string, string | undefined>();
  beforeAll(() => {
    const home = mkdtempSync(join(tmpdir(), 'gcpatch-home-'));
    for (const name of names) saved.set(name, process.env[name]);
    process.env.HOME = home;
    process.env.XDG_CONFIG_HOME = join(home, '.config');
    if (options.noGlobalGitConfig) process.env.GIT_CONFIG_GLOBAL = '/dev/null';
  });
  afterAll(() => {
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });
}
