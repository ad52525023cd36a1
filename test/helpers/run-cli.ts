/**
 * The CLI in the test's own process: `runCli(args, { cwd, env })` runs `main()` of src/cli/main.ts
 * with the arguments `node bin/gcpatch.js …args` would get and returns what that process would
 * have given ({@link RunResult}: exit code, standard output and standard error as text), without
 * paying a Node start-up and a module load per call. For tests whose subject is a command's
 * behaviour; the exit code, the bytes on the real streams, kill -9, standard input (`-`) and the
 * bundles are the subject of tests that spawn (`gcpatch()` of test/helpers/cli.ts).
 *
 * The process state a command reads is the spawned CLI's for the length of the run: the working
 * directory (`process.chdir`; vitest runs test files in forks, `pool: 'forks'`), `process.env`
 * with `env` laid over it, and `process.stdout`/`process.stderr` (a command that writes to the
 * stream itself, like `merge-file --stdout`, is captured too). All of it is restored in `finally`,
 * and runs are queued: two `runCli` calls never overlap, even from concurrent tests.
 */
import { BIN, ROOT, type RunResult } from './cli.js';

type Main = (argv: string[], io: { stdout: (text: string) => void; stderr: (text: string) => void }) => Promise<number>;

let mainFn: Main | undefined;
let queue: Promise<unknown> = Promise.resolve();

/** Options of one in-process run: the working directory (default the checkout) and variables over `process.env`. */
export interface RunCliOptions {
  cwd?: string;
  env?: Record<string, string>;
}

/**
 * Runs `gcpatch ...args` in this process (see the file's doc) and resolves to its exit code and
 * output; never rejects for a failing command (its exit code says so), only when the working
 * directory does not exist.
 */
export function runCli(args: readonly string[], options: RunCliOptions = {}): Promise<RunResult> {
  const run = queue.then(() => runNow(args, options));
  queue = run.catch(() => undefined);
  return run;
}

/** Text of a `write` call's first argument (a string or bytes), as a chunk of the stream. */
function chunk(data: unknown): Buffer {
  return typeof data === 'string' ? Buffer.from(data, 'utf8') : Buffer.from(data as Uint8Array);
}

/** Replaces `stream.write` by one that appends to `into`; returns the function that puts it back. */
function capture(stream: NodeJS.WriteStream, into: Buffer[]): () => void {
  const original = stream.write;
  stream.write = ((data: unknown, ...rest: unknown[]): boolean => {
    into.push(chunk(data));
    const callback = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
    callback?.();
    return true;
  }) as typeof stream.write;
  return () => {
    stream.write = original;
  };
}

async function runNow(args: readonly string[], options: RunCliOptions): Promise<RunResult> {
  mainFn ??= (await import('../../src/cli/main.js')).main as Main;
  const savedCwd = process.cwd();
  const env = options.env ?? {};
  const savedEnv = Object.keys(env).map((name) => [name, process.env[name]] as const);
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  process.chdir(options.cwd ?? ROOT); // first: a folder that is missing throws before anything changed
  for (const [name, value] of Object.entries(env)) process.env[name] = value;
  const restoreOut = capture(process.stdout, out);
  const restoreErr = capture(process.stderr, err);
  try {
    // bin/gcpatch.js turns a rejection (main never rejects) into this line and exit 70.
    const status = await mainFn(['node', BIN, ...args], {
      stdout: (text) => out.push(chunk(text)),
      stderr: (text) => err.push(chunk(text)),
    }).catch((error: unknown) => {
      err.push(chunk(`gcpatch: internal error: ${error instanceof Error ? error.message : String(error)}\n`));
      return 70;
    });
    return { status, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') };
  } finally {
    restoreErr();
    restoreOut();
    for (const [name, value] of savedEnv) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    process.chdir(savedCwd);
  }
}
