/** Temporary git repositories driven by the real `git` binary, for tests. */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export interface TempRepo {
  dir: string;
  git: (...args: string[]) => string;
  write: (files: Record<string, string | null>) => void;
  commit: (message: string, files?: Record<string, string | null>) => string;
  cleanup: () => void;
}

/** `git init -b main` in a fresh temporary directory with a test identity. */
export function tempRepo(): TempRepo {
  const dir = mkdtempSync(join(tmpdir(), 'gcpatch-git-'));
  const git = (...args: string[]) =>
    execFileSync('git', args, {
      cwd: dir,
      encoding: 'utf8',
      env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' },
    }).trim();
  git('init', '-q', '-b', 'main');
  git('config', 'user.name', 'Test');
  git('config', 'user.email', 'test@example.com');
  git('config', 'commit.gpgsign', 'false');
  const write = (files: Record<string, string | null>) => {
    for (const [path, content] of Object.entries(files)) {
      const file = join(dir, path);
      if (content === null) rmSync(file, { force: true });
      else {
        mkdirSync(dirname(file), { recursive: true });
        writeFileSync(file, content);
      }
    }
  };
  const commit = (message: string, files: Record<string, string | null> = {}) => {
    write(files);
    git('add', '-A');
    git('commit', '-q', '--allow-empty', '-m', message);
    return git('rev-parse', 'HEAD');
  };
  return { dir, git, write, commit, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A package.toml listing `modules` (no pins). */
export function manifest(name: string, modules: string[]): string {
  return `name = "${name}"\nversion = "0.1.0"\nobligations = []\n${modules.length === 0 ? 'modules = []\n' : ''}${modules.map((m) => `\n[[modules]]\npath = "${m}"\n`).join('')}`;
}
