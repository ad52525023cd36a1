/** One merge exactly as the driver entry runs it: the size limit first, then the cascade; shared by the direct driver and the service. */
import { statSync } from 'node:fs';
import { gitMergeFile } from '../textmerge/line-based.js';
import { MAX_STRUCTURAL_BYTES, lazyMarkers, lineFallback, runDriver, writeResult, type DriverInvocation } from '../textmerge/driver.js';

/**
 * The size limit, checked first: a side above {@link MAX_STRUCTURAL_BYTES} goes to `git merge-file`
 * without reading, UTF-8 or marker scans. Returns undefined when every side is within the limit
 * (or a side cannot be stat'ed: {@link runDriver} reports that).
 */
function largeInputs(inv: DriverInvocation, stderr: (text: string) => void): 0 | 1 | undefined {
  let largest = 0;
  for (const file of [inv.base, inv.ours, inv.theirs]) {
    try {
      largest = Math.max(largest, statSync(file).size);
    } catch {
      return undefined;
    }
  }
  if (largest <= MAX_STRUCTURAL_BYTES) return undefined;
  const where = inv.path ?? inv.ours;
  const markers = lazyMarkers(inv.markerSize, inv.labels);
  const outcome = lineFallback(where, `a side is larger than ${MAX_STRUCTURAL_BYTES} bytes`, () =>
    gitMergeFile({ ours: inv.ours, base: inv.base, theirs: inv.theirs }, markers),
  );
  for (const m of outcome.messages) stderr(`${m}\n`);
  if (outcome.result !== undefined && !writeResult(inv, outcome.result, stderr)) return 1;
  return outcome.exitCode;
}

/**
 * Merges one invocation into `inv.ours` and returns 0 (clean) or 1 (conflicts, or a fallback that
 * kept ours with a message). Never throws. Relative paths resolve against the process's working
 * directory, and `merge.conflictStyle` is read there (git config) when a marker is written.
 * @param env `GCPATCH_DRIVER`, `GCPATCH_DRIVER_TIMEOUT_MS` (docs/driver.md "The command line git runs").
 */
export function mergeInvocation(
  inv: DriverInvocation,
  env: NodeJS.ProcessEnv = process.env,
  stderr: (text: string) => void = (t) => process.stderr.write(t),
): 0 | 1 {
  return largeInputs(inv, stderr) ?? runDriver(inv, env, stderr);
}
