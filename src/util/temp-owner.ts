/**
 * Owners of temporary files. A temporary file that gcpatch writes and then links or renames into
 * place (the package lock's `.new-` file, the evidence store's `.tmp-` file, a broken lock set
 * aside) carries its writer in its name: `<pid>-<start>`, the process id and the kernel's start
 * time of that process (Linux `/proc/<pid>/stat` field 22; `0` where unknown). A process killed
 * between writing the file and putting it in place leaves it behind; whoever finds it later
 * (`gcpatch recover`, the next apply under the package lock, `gcpatch store verify`) can tell from
 * the name alone whether its writer still runs ({@link ownerAlive}) and remove it if not.
 */
import { readFileSync } from 'node:fs';

/** The start time of process `pid` (Linux: `/proc/<pid>/stat` field 22), or null when unknown. */
export function processStartTime(pid: number | 'self'): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19] ?? null; // field 22 overall; fields after "(comm)" start at field 3
  } catch {
    return null;
  }
}

let own: string | undefined;

/** This process's owner tag for temporary file names: `<pid>-<start>` (`<start>` is `0` where unknown). */
export function ownerTag(): string {
  own ??= `${process.pid}-${processStartTime('self') ?? '0'}`;
  return own;
}

/**
 * Whether the writer of a temporary file still runs on this host: process `pid` exists (`kill -0`;
 * a process of another user counts as existing) and, when the name recorded a start time (not
 * `0` or absent) and `/proc` shows one, it is the same (not a pid reused since). A file of a
 * writer that is gone is abandoned.
 * @param start the start time from the name, or undefined for an older name that has none.
 */
export function ownerAlive(pid: number, start: string | undefined): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
  }
  if (start === undefined || start === '0') return true;
  const now = processStartTime(pid);
  return now === null || now === start;
}
