// `gcpatch driver install --hooks`: the post-merge / post-rewrite hooks are installed, idempotent,
// keep a hook's own lines, are uninstalled; after a real merge and a real rebase that leave
// hash = "" pins they re-pin, say what changed and never commit.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gcpatch, GIT_ENV, ROOT, tempDir } from '../helpers/cli.js';

const ENV = GIT_ENV;

function repo(): { dir: string; git: (...args: string[]) => string } {
  const dir = join(tempDir(), 'repo');
  cpSync(join(ROOT, 'fixtures/packages/greeter'), join(dir, 'pkg'), { recursive: true });
  const git = (...args: string[]): string =>
    execFileSync('git', args, { cwd: dir, encoding: 'utf8', env: { ...process.env, ...ENV }, stdio: ['ignore', 'pipe', 'pipe'] });
  git('init', '-q', '-b', 'main');
  return { dir, git };
}

function run(dir: string, args: string[]) {
  return gcpatch(args, { cwd: dir, env: ENV });
}

describe('driver install --hooks', () => {
  it('installs both hooks, is idempotent, keeps existing hook lines, and uninstalls', () => {
    const { dir } = repo();
    const hooks = join(dir, '.git/hooks');
    writeFileSync(join(hooks, 'post-rewrite'), '#!/bin/sh\necho mine\n', { mode: 0o755 });

    const first = run(dir, ['driver', 'install', '--hooks', '--json']);
    expect(first.status).toBe(0);
    expect(JSON.parse(first.stdout).hooks.map((h: { hook: string; action: string }) => `${h.hook}:${h.action}`)).toEqual([
      'post-merge:created',
      'post-rewrite:added',
    ]);
    const merge = readFileSync(join(hooks, 'post-merge'), 'utf8');
    const rewrite = readFileSync(join(hooks, 'post-rewrite'), 'utf8');
    expect(merge).toMatch(/^#!\/bin\/sh\n# >>> gcpatch: .*\nnode '.*bin\/gcpatch\.js' driver repin --hook post-merge \|\| true\n# <<< gcpatch <<<\n$/);
    expect(rewrite.startsWith('#!/bin/sh\necho mine\n# >>> gcpatch')).toBe(true);
    expect(statSync(join(hooks, 'post-merge')).mode & 0o111).toBe(0o111);

    const second = run(dir, ['driver', 'install', '--hooks', '--json']);
    expect(JSON.parse(second.stdout).hooks.map((h: { action: string }) => h.action)).toEqual(['unchanged', 'unchanged']);
    expect(readFileSync(join(hooks, 'post-merge'), 'utf8')).toBe(merge);
    expect(readFileSync(join(hooks, 'post-rewrite'), 'utf8')).toBe(rewrite);

    const doctor = JSON.parse(run(dir, ['driver', 'doctor', '--json']).stdout);
    expect(doctor.checks.find((c: { name: string }) => c.name === 'hooks').level).toBe('ok');

    const un = run(dir, ['driver', 'uninstall']);
    expect(un.status).toBe(0);
    expect(un.stdout).toContain(`hook deleted: ${join(hooks, 'post-merge')}`);
    expect(existsSync(join(hooks, 'post-merge'))).toBe(false);
    expect(readFileSync(join(hooks, 'post-rewrite'), 'utf8')).toBe('#!/bin/sh\necho mine\n');
    const after = JSON.parse(run(dir, ['driver', 'doctor', '--json']).stdout);
    expect(after.checks.find((c: { name: string }) => c.name === 'hooks')).toMatchObject({ level: 'warn', fix: 'gcpatch driver install --hooks' });
  });

  it('after a merge and after a rebase that leave hash = "", the hooks re-pin and commit nothing', () => {
    const { dir, git } = repo();
    expect(run(dir, ['driver', 'install', '--hooks']).status).toBe(0);
    git('add', '-A');
    git('commit', '-qm', 'base');
    // Both sides change app.gc (different definitions) and re-pin it: the .gc merge is clean, the
    // manifest driver cannot know the merged hash and writes hash = "".
    git('switch', '-qc', 'side');
    writeFileSync(join(dir, 'pkg/app.gc'), readFileSync(join(dir, 'pkg/app.gc'), 'utf8') + '\n(def greeter/app::side 1)\n');
    expect(run(join(dir, 'pkg'), ['pack']).status).toBe(0);
    git('add', 'pkg/app.gc', 'pkg/package.toml');
    git('commit', '-qm', 'side');
    git('switch', '-q', 'main');
    writeFileSync(join(dir, 'pkg/app.gc'), '(def greeter/app::main 2)\n\n' + readFileSync(join(dir, 'pkg/app.gc'), 'utf8'));
    expect(run(join(dir, 'pkg'), ['pack']).status).toBe(0);
    git('add', 'pkg/app.gc', 'pkg/package.toml');
    git('commit', '-qm', 'main');
    const mainHead = git('rev-parse', 'HEAD').trim();

    const merged = execFileSync('sh', ['-c', 'git merge --no-edit side 2>&1'], { cwd: dir, encoding: 'utf8', env: { ...process.env, ...ENV } });
    expect(merged).toMatch(
      /gcpatch \(post-merge hook\): re-pinned 1 module in pkg\/package\.toml \(stale pins: empty, or not the merged module's hash\):\n {2}app\.gc {2}"" -> [0-9a-f]{64}\n {2}not committed: review with `git diff pkg\/package\.toml`, then commit it/,
    );
    // The merge commit has the empty pin; the work tree has the fix, not committed.
    expect(git('show', 'HEAD:pkg/package.toml')).toContain('hash = ""');
    expect(git('rev-parse', 'HEAD^1').trim()).toBe(mainHead);
    expect(git('status', '--porcelain', '--untracked-files=no')).toBe(' M pkg/package.toml\n');
    expect(run(dir, ['verify-pins']).status).toBe(0);

    // The same through a rebase (post-rewrite).
    git('reset', '-q', '--hard', mainHead);
    git('switch', '-q', 'side');
    const rebased = execFileSync('sh', ['-c', 'git rebase main 2>&1'], { cwd: dir, encoding: 'utf8', env: { ...process.env, ...ENV } });
    expect(rebased).toContain('gcpatch (post-rewrite hook): re-pinned 1 module in pkg/package.toml');
    expect(git('status', '--porcelain', '--untracked-files=no')).toBe(' M pkg/package.toml\n');
    expect(run(dir, ['verify-pins']).status).toBe(0);
  });

  it('repin outside a repository is a typed error; with nothing to do a hook is silent and a person is told', () => {
    const { dir } = repo();
    const quiet = run(dir, ['driver', 'repin', '--hook', 'post-merge']);
    expect(quiet).toMatchObject({ status: 0, stdout: '', stderr: '' });
    const asked = run(dir, ['driver', 'repin']);
    expect(asked).toMatchObject({
      status: 0,
      stdout: '',
      stderr: 'gcpatch: no stale pin in the packages the last merge or commit changed; nothing to re-pin\n',
    });
    const outside = run(tempDir(), ['driver', 'repin', '--json']);
    expect(outside.status).toBe(10);
    expect(JSON.parse(outside.stdout).error.code).toBe('git/not-a-repository');
  });
});

describe('driver repin after a real merge', () => {
  /** A merge of `side` into `main` where both change pkg/app.gc; `repinSide` says whether side re-pinned. */
  function mergeBoth(repinSide: boolean): { dir: string; git: (...args: string[]) => string; base: string; mainPin: string } {
    const { dir, git } = repo();
    // A package whose wrong pin is deliberate (a test fixture, as GenesisCode has): no merge touches it.
    cpSync(join(ROOT, 'fixtures/packages/greeter'), join(dir, 'fixture'), { recursive: true });
    writeFileSync(
      join(dir, 'fixture/package.toml'),
      readFileSync(join(dir, 'fixture/package.toml'), 'utf8').replace(/hash = "[0-9a-f]{64}"/, `hash = "${'0'.repeat(64)}"`),
    );
    git('add', '-A');
    git('commit', '-qm', 'base');
    const base = readFileSync(join(dir, 'pkg/package.toml'), 'utf8');
    git('switch', '-qc', 'side');
    writeFileSync(join(dir, 'pkg/app.gc'), readFileSync(join(dir, 'pkg/app.gc'), 'utf8') + '\n(def greeter/app::side 1)\n');
    if (repinSide) expect(run(join(dir, 'pkg'), ['pack']).status).toBe(0);
    git('commit', '-qam', 'side');
    git('switch', '-q', 'main');
    writeFileSync(join(dir, 'pkg/app.gc'), '(def greeter/app::main 2)\n\n' + readFileSync(join(dir, 'pkg/app.gc'), 'utf8'));
    expect(run(join(dir, 'pkg'), ['pack']).status).toBe(0);
    git('commit', '-qam', 'main');
    const mainPin = /path = "app.gc"\nhash = "([0-9a-f]{64})"/.exec(readFileSync(join(dir, 'pkg/package.toml'), 'utf8'))![1]!;
    // The drivers are configured without hooks: repin is run by hand below.
    expect(run(dir, ['driver', 'install']).status).toBe(0);
    git('merge', '-q', '--no-edit', 'side');
    return { dir, git, base, mainPin };
  }

  function moduleHash(dir: string, file: string): string {
    const r = run(dir, ['hash', file]);
    expect(r.status).toBe(0);
    return r.stdout.split(' ')[0]!;
  }

  it("only one side re-pinned: the merged pin is that side's, wrong for the merged module; repin fixes it and says so, exact bytes", () => {
    const { dir, git, base, mainPin } = mergeBoth(false);
    const committed = git('show', 'HEAD:pkg/package.toml');
    // The manifest merge kept main's pin (side did not change it), but the module is the merge of both.
    expect(committed).toContain(`hash = "${mainPin}"`);
    const merged = moduleHash(dir, 'pkg/app.gc');
    expect(merged).not.toBe(mainPin);
    expect(run(join(dir, 'pkg'), ['verify-pins']).status).toBe(50);

    const r = run(dir, ['driver', 'repin']);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      "gcpatch: re-pinned 1 module in pkg/package.toml (stale pins: empty, or not the merged module's hash):\n" +
        `  app.gc  ${mainPin.slice(0, 12)} -> ${merged}\n` +
        '  not committed: review with `git diff pkg/package.toml`, then commit it\n',
    );
    expect(readFileSync(join(dir, 'pkg/package.toml'), 'utf8')).toBe(base.replace(/(path = "app.gc"\nhash = ")[0-9a-f]{64}/, `$1${merged}`));
    // Only the merged package: the deliberate wrong pin of the untouched fixture package stays.
    expect(git('status', '--porcelain', '--untracked-files=no')).toBe(' M pkg/package.toml\n');
    expect(run(join(dir, 'pkg'), ['verify-pins']).status).toBe(0);
    const fixturePins = run(join(dir, 'fixture'), ['verify-pins']);
    expect(fixturePins.status).toBe(50);

    // A second run has nothing to do and says so.
    expect(run(dir, ['driver', 'repin'])).toMatchObject({
      status: 0,
      stderr: 'gcpatch: no stale pin in the packages the last merge or commit changed; nothing to re-pin\n',
    });
  });

  it('both sides re-pinned: the empty pin is re-pinned, --json names the old and new pin', () => {
    const { dir, git, base } = mergeBoth(true);
    expect(git('show', 'HEAD:pkg/package.toml')).toContain('hash = ""');
    const merged = moduleHash(dir, 'pkg/app.gc');
    const r = run(dir, ['driver', 'repin', '--json']);
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      ok: true,
      packages: [{ package: 'pkg', manifest: join(dir, 'pkg/package.toml'), repinned: [{ path: 'app.gc', was: '', hash: merged }] }],
    });
    expect(readFileSync(join(dir, 'pkg/package.toml'), 'utf8')).toBe(base.replace(/(path = "app.gc"\nhash = ")[0-9a-f]{64}/, `$1${merged}`));
  });
});
