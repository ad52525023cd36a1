/** The git versions the drivers care about: labels (`%S %X %Y`) from 2.44, aborting exit statuses from 2.42. */
import { runSetupGit, type DriverSetupOptions } from './options.js';

/** Minimum git version that expands `%S %X %Y` (labels). */
export const LABELS_GIT_VERSION = [2, 44] as const;
/** Git version from which an exit status above 128 aborts the merge (the driver never uses one). */
export const ABORT_EXIT_GIT_VERSION = [2, 42] as const;

/** Parses `git version 2.39.5` (and vendor suffixes) into numbers. */
export function parseGitVersion(text: string): number[] | undefined {
  const m = /git version (\d+)\.(\d+)(?:\.(\d+))?/.exec(text);
  return m ? [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)] : undefined;
}

/** True when version `v` is at least `min` (missing parts count as 0). */
export function versionAtLeast(v: readonly number[], min: readonly number[]): boolean {
  for (let i = 0; i < min.length; i++) {
    if ((v[i] ?? 0) !== min[i]) return (v[i] ?? 0) > min[i]!;
  }
  return true;
}

/** Whether the git in `opts` expands `%S %X %Y` (≥ 2.44). */
export function labelsExpanded(opts: DriverSetupOptions): boolean {
  const v = parseGitVersion(runSetupGit(opts, ['--version']).stdout);
  return v !== undefined && versionAtLeast(v, LABELS_GIT_VERSION);
}
