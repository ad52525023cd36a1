// Helpers for driver tests: run the bundled driver and git in temporary directories.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../helpers/cli.js';

/** The bundled driver entry (`npm run build:driver`). */
export const DRIVER = join(ROOT, 'driver/dist/index.js');

export interface Run {
  status: number;
  stdout: string;
  stderr: string;
}

/** A new temporary directory. */
export function tmp(prefix = 'gcpatch-driver-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Runs `node driver/dist/index.js ...args` in `cwd`. */
export function runDriver(args: string[], cwd: string, env: Record<string, string> = {}): Run {
  const r = spawnSync(process.execPath, [DRIVER, ...args], { cwd, encoding: 'utf8', env: { ...process.env, ...env } });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** Runs git in `cwd` with a fixed identity and no user/system config. */
export function git(cwd: string, args: string[], env: Record<string, string> = {}): Run {
  const r = spawnSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_AUTHOR_DATE: '2026-01-01T00:00:00Z',
      GIT_COMMITTER_DATE: '2026-01-01T00:00:00Z',
      ...env,
    },
  });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** `git init -b main` with user.name/email set; returns the directory. */
export function initRepo(dir = tmp('gcpatch-repo-')): string {
  git(dir, ['init', '-q', '-b', 'main']);
  git(dir, ['config', 'user.name', 'Test']);
  git(dir, ['config', 'user.email', 'test@example.com']);
  git(dir, ['config', 'core.autocrlf', 'false']);
  return dir;
}

/** Writes files (path → content) into `dir`. */
export function write(dir: string, files: Record<string, string | Uint8Array>): void {
  for (const [p, content] of Object.entries(files)) writeFileSync(join(dir, p), content);
}

/** Writes files and commits them with message `msg`. */
export function commit(dir: string, files: Record<string, string | Uint8Array>, msg: string): void {
  write(dir, files);
  git(dir, ['add', '-A']);
  const r = git(dir, ['commit', '-q', '-m', msg]);
  if (r.status !== 0) throw new Error(`commit failed: ${r.stderr}`);
}
