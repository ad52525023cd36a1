/**
 * The optional obligation runner of the Action (`obligation-runner` input) and of
 * `gcpatch verify-pr --obligation-runner`: a shell command run once per touched package, in the
 * package's directory of the work tree, e.g. `genesis test --pkg package.toml`. A non-zero exit is
 * an `audit/obligations-failed` error. gcpatch does not evaluate GenesisCode itself; this hook lets
 * a workflow re-run the package's tests/obligations with the real toolchain.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

/** What one run produced. `output` is the last 2,000 characters of stdout+stderr. */
export interface ObligationRun {
  command: string;
  cwd: string;
  exitCode: number | null;
  signal: string | null;
  ok: boolean;
  millis: number;
  output: string;
}

/**
 * Runs `command` through the shell with cwd = `<workTree>/<packageDir>` and the environment
 * variables `GCPATCH_PACKAGE_DIR` (repository-relative), `GCPATCH_MANIFEST` (absolute),
 * `GCPATCH_BASE_SHA` and `GCPATCH_HEAD_SHA` added.
 * @param timeoutMs kill the command after this many milliseconds (default 30 minutes).
 */
export function runObligations(
  command: string,
  workTree: string,
  packageDir: string,
  commits: { base: string; head: string },
  timeoutMs = 30 * 60 * 1000,
): ObligationRun {
  const cwd = join(workTree, ...packageDir.split('/').filter((p) => p !== ''));
  const start = performance.now();
  const r = spawnSync(command, {
    cwd,
    shell: true,
    encoding: 'utf8',
    timeout: timeoutMs,
    maxBuffer: 64 * 1024 * 1024,
    env: {
      ...process.env,
      GCPATCH_PACKAGE_DIR: packageDir,
      GCPATCH_MANIFEST: join(cwd, 'package.toml'),
      GCPATCH_BASE_SHA: commits.base,
      GCPATCH_HEAD_SHA: commits.head,
    },
  });
  const output = `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? `\n${r.error.message}` : ''}`;
  return {
    command,
    cwd,
    exitCode: r.status,
    signal: r.signal,
    ok: r.status === 0 && r.error === undefined,
    millis: Math.round(performance.now() - start),
    output: output.length > 2000 ? `…${output.slice(-2000)}` : output,
  };
}
