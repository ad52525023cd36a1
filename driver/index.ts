/**
 * The git merge driver's entry point, bundled by ncc into the CommonJS `driver/dist/index.js` and
 * started by `driver/dist/launch.cjs` (V8 code cache, lazy `child_process`).
 *
 * Git runs it through `sh -c` with the work tree's top as cwd, inside the guarded line that
 * `gcpatch driver install` writes (src/driver-setup/line.ts, `driverCommand`):
 *   `node <launch.cjs> --wrapped [--manifest] %O %A %B %L %P %S %X %Y`
 * `--wrapped` (always first) makes a conflict exit 3 instead of 1, so the line can tell "merged with
 * conflicts" from "Node could not start the driver" (which it turns into `git merge-file`'s line
 * merge, exit 1). The unguarded form `node index.js [--manifest] %O %A %B ...` of gcpatch 0.1 still works.
 * Also: `--version` prints the version, `--self-check` merges a built-in example and prints `ok`,
 * `--serve <folder> <version>` runs the warm merge service of one repository (src/driver-service/loop.ts;
 * the line starts it in the background and hands later merges to it, docs/driver.md).
 * Environment: `GCPATCH_DRIVER=0` (line merge only), `GCPATCH_DRIVER_TIMEOUT_MS` (structural budget,
 * default 5000). The tests reach the crash path through a preload (src/util/test-fault.ts), never the environment.
 * Inputs above `MAX_STRUCTURAL_BYTES` go to the line merge before any of them is read (a stat).
 * Exit codes (src/driver-setup/exit-status.ts): 0 clean, 1 conflicts or nothing merged; under
 * `--wrapped` 0 clean, 3 conflicts, 2 nothing merged; never above that, whatever happens
 * (docs/reference/git-merge-driver.md "Exit status").
 */
import { dirname, join } from 'node:path';
import { runService } from '../src/driver-service/loop.js';
import { mergeInvocation } from '../src/driver-service/run.js';
import { driverExitStatus } from '../src/driver-setup/exit-status.js';
import { emergencyFallback, parseDriverArgs, selfCheck, type DriverInvocation } from '../src/textmerge/driver.js';
import { faultPoint } from '../src/util/test-fault.js';
import { VERSION } from '../src/util/version.js';

let invocation: DriverInvocation | undefined;
let handled = false;
/** Whether the guarded line started the driver (`--wrapped`): exit statuses 0/3/2 instead of 0/1/1. */
let wrapped = false;

function crash(error: unknown): void {
  if (handled) return;
  handled = true;
  // The stack only on request: git shows this text to the user in the middle of a merge.
  const detail = error instanceof Error ? (process.env.GCPATCH_DEBUG === '1' ? (error.stack ?? error.message) : error.message) : String(error);
  process.stderr.write(`gcpatch: driver crashed (${detail}); falling back to a line merge. Set GCPATCH_DEBUG=1 for details.\n`);
  if (invocation) emergencyFallback(invocation);
  process.exit(driverExitStatus(invocation ? 'conflicts' : 'not-started', wrapped));
}
process.on('uncaughtException', crash);
process.on('unhandledRejection', crash);

function main(argv: string[]): number | undefined {
  if (argv[0] === '--serve' && argv.length === 3) {
    // launch.cjs runs this bundle: it sits next to it.
    runService({ folder: argv[1]!, version: argv[2]!, ownVersion: VERSION, bundle: join(dirname(process.argv[1] ?? '.'), 'index.js') });
    return undefined;
  }
  if (argv[0] === '--wrapped') {
    wrapped = true;
    argv = argv.slice(1);
  }
  if (argv[0] === '--version') {
    process.stdout.write(`gcpatch-driver ${VERSION}\n`);
    return 0;
  }
  if (argv[0] === '--self-check') {
    const problem = selfCheck();
    process.stdout.write(problem === undefined ? `ok gcpatch-driver ${VERSION}\n` : `failed: ${problem}\n`);
    return problem === undefined ? 0 : 1;
  }
  try {
    invocation = parseDriverArgs(argv);
  } catch (error) {
    process.stderr.write(`gcpatch: ${(error as Error).message}\n`);
    return driverExitStatus('not-started', wrapped);
  }
  // A test preload may throw here (src/util/test-fault.ts): the crash path below then runs.
  faultPoint('driver-after-arguments');
  const status = mergeInvocation(invocation);
  return driverExitStatus(status === 0 ? 'clean' : 'conflicts', wrapped);
}

const status = main(process.argv.slice(2));
if (status !== undefined) process.exitCode = status;
