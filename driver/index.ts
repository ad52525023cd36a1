/**
 * The git merge driver's entry point, bundled by ncc into the CommonJS `driver/dist/index.js` and
 * started by `driver/dist/launch.cjs` (V8 code cache, lazy `child_process`; issue #15 item 2).
 *
 * Git runs it through `sh -c` with the work tree's top as cwd, inside the guarded line that
 * `gcpatch driver install` writes (src/merge/driver-install.ts, `driverCommand`):
 *   `node <launch.cjs> --wrapped [--manifest] %O %A %B %L %P %S %X %Y`
 * `--wrapped` (always first) makes a conflict exit 3 instead of 1, so the line can tell "merged with
 * conflicts" from "Node could not start the driver" (which it turns into `git merge-file`'s line
 * merge, exit 1). The unguarded form `node index.js [--manifest] %O %A %B ...` of gcpatch 0.1 still works.
 * Also: `--version` prints the version, `--self-check` merges a built-in example and prints `ok`,
 * `--serve <folder> <version>` runs the warm merge service of one repository (src/driver-service/loop.ts;
 * the line starts it in the background and hands later merges to it, docs/driver.md).
 * Environment: `GCPATCH_DRIVER=0` (line merge only), `GCPATCH_DRIVER_TIMEOUT_MS` (structural budget,
 * default 5000), `GCPATCH_DRIVER_FAULT=crash` (tests only: crash after reading the arguments).
 * Inputs above `MAX_STRUCTURAL_BYTES` go to the line merge before any of them is read (a stat).
 * Exit codes: 0 clean, 1 conflicts (3 with `--wrapped`); never above that, whatever happens
 * (GIT_AND_ACTIONS_FACTS.md §1.3).
 */
import { dirname, join } from 'node:path';
import pkg from '../package.json';
import { runService } from '../src/driver-service/loop.js';
import { mergeInvocation } from '../src/driver-service/run.js';
import { emergencyFallback, parseDriverArgs, selfCheck, type DriverInvocation } from '../src/textmerge/driver.js';

let invocation: DriverInvocation | undefined;
let handled = false;
/** The exit status for "merged, conflicts left in %A": 1, or 3 under `--wrapped`. */
let conflictExit = 1;

function crash(error: unknown): void {
  if (handled) return;
  handled = true;
  // The stack only on request: git shows this text to the user in the middle of a merge.
  const detail = error instanceof Error ? (process.env.GCPATCH_DEBUG === '1' ? (error.stack ?? error.message) : error.message) : String(error);
  process.stderr.write(`gcpatch: driver crashed (${detail}); falling back to a line merge. Set GCPATCH_DEBUG=1 for details.\n`);
  if (invocation) emergencyFallback(invocation);
  process.exit(invocation ? conflictExit : notStarted());
}
process.on('uncaughtException', crash);
process.on('unhandledRejection', crash);

/** Nothing was merged: 1, or 2 under `--wrapped` (the guarded line then runs the line merge itself). */
function notStarted(): number {
  return conflictExit === 3 ? 2 : 1;
}

function version(): string {
  return (pkg as { version?: string }).version ?? 'unknown';
}

function main(argv: string[]): number | undefined {
  if (argv[0] === '--serve' && argv.length === 3) {
    // launch.cjs runs this bundle: it sits next to it.
    runService({ folder: argv[1]!, version: argv[2]!, ownVersion: version(), bundle: join(dirname(process.argv[1] ?? '.'), 'index.js') });
    return undefined;
  }
  if (argv[0] === '--wrapped') {
    conflictExit = 3;
    argv = argv.slice(1);
  }
  if (argv[0] === '--version') {
    process.stdout.write(`gcpatch-driver ${version()}\n`);
    return 0;
  }
  if (argv[0] === '--self-check') {
    const problem = selfCheck();
    process.stdout.write(problem === undefined ? `ok gcpatch-driver ${version()}\n` : `failed: ${problem}\n`);
    return problem === undefined ? 0 : 1;
  }
  try {
    invocation = parseDriverArgs(argv);
  } catch (error) {
    process.stderr.write(`gcpatch: ${(error as Error).message}\n`);
    return notStarted();
  }
  if (process.env.GCPATCH_DRIVER_FAULT === 'crash') {
    // Test hook: an uncaught error after the arguments are known exercises the crash path.
    setImmediate(() => {
      throw new Error('injected fault (GCPATCH_DRIVER_FAULT=crash)');
    });
    return 0;
  }
  const status = mergeInvocation(invocation);
  return status === 1 ? conflictExit : status;
}

const status = main(process.argv.slice(2));
if (status !== undefined) process.exitCode = status;
