// Helpers for end-to-end tests: run the built CLI as a separate process, make temp directories.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, cpSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const BIN = join(ROOT, 'bin/gcpatch.js');

export interface RunResult {
  status: number;
  stdout: string;
  stderr: string;
}

/** Git isolated from the user's and the system's config, with a fixed author and committer. */
export const GIT_ENV = {
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_AUTHOR_NAME: 'T',
  GIT_AUTHOR_EMAIL: 't@example.com',
  GIT_COMMITTER_NAME: 'T',
  GIT_COMMITTER_EMAIL: 't@example.com',
};

/** Runs `node bin/gcpatch.js ...args` (the built CLI; `npm test` builds first). */
export function gcpatch(args: string[], options: { cwd?: string; env?: Record<string, string> } = {}): RunResult {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd: options.cwd ?? ROOT,
    env: { ...process.env, ...options.env },
    encoding: 'utf8',
  });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** A new empty temporary directory. */
export function tempDir(prefix = 'gcpatch-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Copies a fixture folder (relative to fixtures/) into a new temp directory and returns its path. */
export function copyFixture(name: string): string {
  const dir = join(tempDir(), name.split('/').pop()!);
  cpSync(join(ROOT, 'fixtures', name), dir, { recursive: true });
  return dir;
}

/** The test-only fault preload (src/util/test-fault.ts). */
export const FAULT_PRELOAD = join(ROOT, 'test/helpers/fault-preload.cjs');

/**
 * The environment that makes a Node process (and the processes it starts) take `fault` at its
 * named point: the preload through `NODE_OPTIONS`, the fault in `GCPATCH_TEST_FAULT`.
 */
export function faultEnv(fault: string): Record<string, string> {
  return { NODE_OPTIONS: `--require "${FAULT_PRELOAD}"`, GCPATCH_TEST_FAULT: fault };
}
