/**
 * Runs every shell recipe of README.md and docs/*.md, so that none of them can rot.
 *
 * A recipe is a fenced block opened with "```sh runnable". Each runs with `bash -e` in its own
 * fresh temporary directory that looks like the root of a gcpatch checkout: a copy of fixtures/ and
 * links to the built bin/, dist/, driver/, action/, action.yml and node_modules/. The real checkout must stay
 * as it was: `git status --porcelain` is the same after the suite as before it (empty in a clean
 * checkout), so no recipe writes through those links or into the checkout. `gcpatch` is on the PATH
 * (the built CLI), HOME and the global git config point into the temporary directory (so
 * `driver install --global` touches nothing of the user's), and git has an author.
 *
 * Every other ```sh block must be listed in NOT_RUNNABLE with the reason it is not run; a block
 * that is neither runnable nor listed fails the test. Only the top level of docs/ is read (not
 * docs/reference/). The recipes are independent (each its own directory, HOME and git config), so they run
 * concurrently: each waits mostly on its child processes.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT, tempDir } from '../helpers/cli.js';

interface Block {
  page: string;
  line: number;
  runnable: boolean;
  text: string;
}

/** Blocks deliberately not run, by page and first line, with the reason. */
const NOT_RUNNABLE: Record<string, string> = {
  'README.md: npm ci && npm run demo     # the main job: the merge driver resolves what plain git cannot':
    'installs from the registry and runs the whole demo and test suite; the demo is run by test/e2e/driver-demo.test.ts',
  'docs/driver.md: npm run demo          # plain git vs the drivers on fixtures/demo (3 conflicted files → 0)':
    'the demo is run by test/e2e/driver-demo.test.ts',
  'docs/diff-merge.md: gcpatch diff  --base A --target B [--intent TEXT] [--provenance FILE] [--json] [--report OUT] [--store]':
    'a synopsis with placeholders, not a command; the runnable recipe follows it on the same page',
  'docs/coreform.md: gcpatch fmt [--check] [--write] FILES...      # canonical text (comments dropped, CRLF → LF)':
    'a synopsis with placeholders, not a command; the runnable recipe follows it on the same page',
  'docs/driver.md: git -c merge.conflictStyle=diff3 checkout --conflict=diff3 -- src/app.gc   # the driver reads the -c setting':
    'needs a repository in the middle of a conflicted merge; `gcpatch solve` is run by the recipe above it',
  'docs/patches.md: gcpatch recover --pkg pkgs/shop            # "nothing to recover", or one line per file + a summary':
    'a synopsis of the two output forms; the runnable recipe under "File modes and symbolic links" runs gcpatch recover',
  'docs/patches.md: cp --remove-destination "$(readlink -f package.toml)" package.toml':
    'a fix to run in your own package whose package.toml is a symbolic link; GNU cp only',
};

function pages(): string[] {
  const docs = readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`);
  return ['README.md', ...docs];
}

/** The fenced ```sh blocks of a Markdown page (an unclosed fence is an error). */
function shBlocks(page: string): Block[] {
  const lines = readFileSync(join(ROOT, page), 'utf8').split('\n');
  const out: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)\s*(.*)$/.exec(lines[i]!);
    if (open === null) continue;
    const end = lines.findIndex((l, j) => j > i && /^```\s*$/.test(l));
    if (end < 0) throw new Error(`${page}:${i + 1}: unclosed code fence`);
    if (open[1] === 'sh')
      out.push({ page, line: i + 1, runnable: open[2]!.split(/\s+/).includes('runnable'), text: lines.slice(i + 1, end).join('\n') + '\n' });
    i = end;
  }
  return out;
}

/** `git status --porcelain` of the checkout, untracked files listed one by one. */
function checkoutStatus(): string {
  const r = spawnSync('git', ['status', '--porcelain', '--untracked-files=all'], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' },
  });
  if (r.status !== 0) throw new Error(`git status failed in ${ROOT}: ${r.stderr}`);
  return r.stdout;
}

/** A temporary directory that looks like a checkout's root, and the environment recipes run with. */
function sandbox(): { cwd: string; env: NodeJS.ProcessEnv } {
  const base = tempDir('gcpatch-recipe-');
  const cwd = join(base, 'gcpatch');
  mkdirSync(cwd);
  cpSync(join(ROOT, 'fixtures'), join(cwd, 'fixtures'), { recursive: true });
  for (const name of ['bin', 'dist', 'driver', 'action', 'action.yml', 'node_modules', 'package.json']) {
    if (existsSync(join(ROOT, name))) symlinkSync(join(ROOT, name), join(cwd, name));
  }
  const binDir = join(base, 'path');
  mkdirSync(binDir);
  writeFileSync(join(binDir, 'gcpatch'), `#!/bin/sh\nexec "${process.execPath}" "${join(ROOT, 'bin/gcpatch.js')}" "$@"\n`);
  chmodSync(join(binDir, 'gcpatch'), 0o755);
  const home = join(base, 'home');
  mkdirSync(home);
  writeFileSync(join(home, '.gitconfig'), '');
  return {
    cwd,
    env: {
      ...process.env,
      PATH: `${binDir}:${process.env.PATH ?? ''}`,
      HOME: home,
      XDG_CONFIG_HOME: join(home, '.config'),
      GIT_CONFIG_GLOBAL: join(home, '.gitconfig'),
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_AUTHOR_NAME: 'Recipe Test',
      GIT_AUTHOR_EMAIL: 'recipe@example.com',
      GIT_COMMITTER_NAME: 'Recipe Test',
      GIT_COMMITTER_EMAIL: 'recipe@example.com',
      GCPATCH_OBLIGATION_RUNNER: '',
    },
  };
}

/** Runs `bash -e -o pipefail -c text` without blocking the worker; resolves with its status and output. */
function runBash(text: string, cwd: string, env: NodeJS.ProcessEnv): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn('bash', ['-e', '-o', 'pipefail', '-c', text], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], timeout: 290_000 });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', fail);
    child.on('close', (status) => done({ status, stdout, stderr }));
  });
}

const blocks = pages().flatMap(shBlocks);
const key = (b: Block): string => `${b.page}: ${b.text.split('\n')[0]}`;

describe('documentation recipes', () => {
  let statusBefore = '';
  beforeAll(() => {
    statusBefore = checkoutStatus();
  });

  it('finds the pages and their recipes', () => {
    expect(blocks.filter((b) => b.runnable).length).toBeGreaterThanOrEqual(10);
    for (const page of [
      'README.md',
      'docs/driver.md',
      'docs/action.md',
      'docs/patches.md',
      'docs/diff-merge.md',
      'docs/refactor.md',
      'docs/coreform.md',
      'docs/audit.md',
    ]) {
      expect(
        blocks.some((b) => b.page === page && b.runnable),
        `${page} has a runnable recipe`,
      ).toBe(true);
    }
  });

  it('no page shows a shell transcript (`$ command`) outside a runnable block', () => {
    const transcripts: string[] = [];
    for (const page of pages()) {
      let fence: string | undefined;
      readFileSync(join(ROOT, page), 'utf8')
        .split('\n')
        .forEach((l, i) => {
          const open = /^```(\S*)/.exec(l);
          if (open !== null) fence = fence === undefined ? open[1]! : undefined;
          else if (fence !== undefined && fence !== 'sh' && /^\$ /.test(l)) transcripts.push(`${page}:${i + 1}`);
        });
    }
    expect(transcripts).toEqual([]);
  });

  it('every relative link points at an existing page and heading', () => {
    // GitHub's heading anchors: lower case, punctuation other than - and _ dropped, spaces to -.
    const slug = (h: string): string =>
      h
        .trim()
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\s_-]/gu, '')
        .replace(/\s/g, '-');
    const anchors = (page: string): Set<string> => {
      let fence = false;
      const out = new Set<string>();
      for (const l of readFileSync(join(ROOT, page), 'utf8').split('\n')) {
        if (/^```/.test(l)) fence = !fence;
        else if (!fence && /^#+ /.test(l)) out.add(slug(l.replace(/^#+ /, '')));
      }
      return out;
    };
    const broken: string[] = [];
    for (const page of pages()) {
      const text = readFileSync(join(ROOT, page), 'utf8');
      for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1]!;
        if (/^[a-z]+:/.test(target)) continue;
        const [file, anchor] = target.split('#') as [string, string | undefined];
        const dest = file === '' ? page : join(page, '..', file);
        if (!existsSync(join(ROOT, dest))) broken.push(`${page}: ${target}`);
        else if (anchor !== undefined && dest.endsWith('.md') && !anchors(dest).has(anchor)) broken.push(`${page}: ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('every ```sh block is runnable or listed as deliberately not run', () => {
    const unlisted = blocks.filter((b) => !b.runnable && NOT_RUNNABLE[key(b)] === undefined).map((b) => `${b.page}:${b.line}`);
    expect(unlisted).toEqual([]);
    const stale = Object.keys(NOT_RUNNABLE).filter((k) => !blocks.some((b) => !b.runnable && key(b) === k));
    expect(stale).toEqual([]);
  });

  // Concurrent runs share the two cores: a recipe gets more time than the default test timeout.
  describe.concurrent('recipes', { timeout: 300_000 }, () => {
    for (const block of blocks.filter((b) => b.runnable)) {
      it(`${block.page}:${block.line} runs as written`, async ({ expect }) => {
        const { cwd, env } = sandbox();
        const r = await runBash(block.text, cwd, env);
        const where = `${block.page}:${block.line} (in ${relative(ROOT, cwd) || cwd})\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`;
        expect(r.status, where).toBe(0);
        // Errors are one line with a code, never a stack trace.
        expect(r.stderr, where).not.toMatch(/^\s+at .+\(.+:\d+:\d+\)$/m);
      });
    }
  });

  // Runs after the concurrent recipes above (vitest runs a suite's non-concurrent tests in order).
  it('every recipe ran in its own temporary directory: the checkout is as it was (clean stays clean)', () => {
    expect(checkoutStatus()).toBe(statusBefore);
  });
});
