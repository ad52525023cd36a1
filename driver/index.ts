/**
 * The git merge driver's entry point, bundled by ncc into `driver/dist/index.js`.
 *
 * Git runs it through `sh -c` with the work tree's top as cwd:
 *   `node '<checkout>/driver/dist/index.js' %O %A %B %L %P %S %X %Y` (`.gc` modules, `merge=gcpatch`)
 *   `node '<checkout>/driver/dist/index.js' --manifest %O %A %B %L %P %S %X %Y` (`package.toml`)
 * Also: `--version` prints the version, `--self-check` merges a built-in example and prints `ok`.
 * Environment: `GCPATCH_DRIVER=0` (line merge only), `GCPATCH_DRIVER_TIMEOUT_MS` (structural budget,
 * default 5000), `GCPATCH_DRIVER_FAULT=crash` (tests only: crash after reading the arguments).
 * Exit codes: 0 clean, 1 conflicts; never above 1, whatever happens (GIT_AND_ACTIONS_FACTS.md §1.3).
 */
import pkg from '../package.json' with { type: 'json' };
import {
  emergencyFallback,
  parseDriverArgs,
  runDriver,
  selfCheck,
  type DriverInvocation,
} from '../src/textmerge/driver.js';

let invocation: DriverInvocation | undefined;
let handled = false;

function crash(error: unknown): void {
  if (handled) return;
  handled = true;
  // The stack only on request: git shows this text to the user in the middle of a merge.
  const detail = error instanceof Error ? (process.env.GCPATCH_DEBUG === '1' ? (error.stack ?? error.message) : error.message) : String(error);
  process.stderr.write(`gcpatch: driver crashed (${detail}); falling back to a line merge. Set GCPATCH_DEBUG=1 for details.\n`);
  if (invocation) emergencyFallback(invocation);
  process.exit(1);
}
process.on('uncaughtException', crash);
process.on('unhandledRejection', crash);

function version(): string {
  return (pkg as { version?: string }).version ?? 'unknown';
}

function main(argv: string[]): number {
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
    return 1;
  }
  if (process.env.GCPATCH_DRIVER_FAULT === 'crash') {
    // Test hook: an uncaught error after the arguments are known exercises the crash path.
    setImmediate(() => {
      throw new Error('injected fault (GCPATCH_DRIVER_FAULT=crash)');
    });
    return 0;
  }
  return runDriver(invocation);
}

process.exitCode = main(process.argv.slice(2));
