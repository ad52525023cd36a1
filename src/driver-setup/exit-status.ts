/** The merge driver's exit protocol: the statuses it answers with, plain and under `--wrapped`, and what git is told. */

/**
 * What git reads from a merge driver: 0 merged cleanly (git takes %A), 1 %A holds conflicts (or
 * ours when nothing could be merged). A driver line never exits above 1: from git 2.42 a status
 * above 128 aborts the whole merge (docs/reference/git-merge-driver.md "Exit status").
 */
export const GitDriverStatus = { clean: 0, conflicts: 1 } as const;

/**
 * What `launch.cjs --wrapped` answers the configured line with ({@link driverCommand} in
 * `line.ts`), so that the line can tell "merged with conflicts" from "Node could not start the
 * driver": 0 clean, 3 conflicts left in %A, 2 nothing merged (bad arguments, the bundle cannot be
 * read or compiled); the line turns 0 into 0, 3 into 1, and anything else (2, a crash of Node
 * itself, a missing `node`) into `git merge-file`'s line merge, exit 0 or 1.
 *
 * `driver/launch.cjs` is plain CommonJS copied next to the bundle and cannot import this module:
 * it mirrors `notStarted` as its `NOT_STARTED` constant (test/driver-setup/exit-status.test.ts checks
 * that they agree).
 */
export const WrappedStatus = { clean: 0, notStarted: 2, conflicts: 3 } as const;

/** The outcomes the driver distinguishes when it exits. */
export type DriverExit = 'clean' | 'conflicts' | 'not-started';

/**
 * The driver's exit status for an outcome: under `--wrapped` a {@link WrappedStatus}; without it
 * (gcpatch 0.1's unguarded line, run directly by git) a {@link GitDriverStatus}, where "not
 * started" is a conflict (%A still holds ours: git must not take it as merged).
 */
export function driverExitStatus(outcome: DriverExit, wrapped: boolean): number {
  if (outcome === 'clean') return wrapped ? WrappedStatus.clean : GitDriverStatus.clean;
  if (outcome === 'conflicts') return wrapped ? WrappedStatus.conflicts : GitDriverStatus.conflicts;
  return wrapped ? WrappedStatus.notStarted : GitDriverStatus.conflicts;
}

/**
 * What the configured line tells git for the wrapped driver's status `s`: `clean` → 0,
 * `conflicts` → 1, and undefined for anything else (the line then runs the line merge itself).
 */
export function gitStatusOfWrapped(s: number): 0 | 1 | undefined {
  if (s === WrappedStatus.clean) return GitDriverStatus.clean;
  if (s === WrappedStatus.conflicts) return GitDriverStatus.conflicts;
  return undefined;
}

/**
 * The `sh` of the configured line that maps the wrapped status in `$s` ({@link gitStatusOfWrapped}):
 * exits 0 or 1 for the driver's own answers and falls through otherwise. No `%` (it goes into a
 * `merge.<name>.driver` value as it is).
 */
export function wrappedStatusShell(): string {
  return `[ $s -eq ${WrappedStatus.clean} ] && exit ${GitDriverStatus.clean}; [ $s -eq ${WrappedStatus.conflicts} ] && exit ${GitDriverStatus.conflicts}; `;
}
