// End-to-end (docs/driver.md "The driver line cannot drop a side"): the installed driver line cannot drop a side. Real git merges in
// temporary repositories after `driver install`, with the driver deleted, moved, broken, or
// installed from paths holding `%A`, spaces and quotes.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { doctorDriver, driverCommand, expandDriverLine, gitDriverEscape, installDriver, shQuote } from '../../src/driver-setup/index.js';
import { ROOT } from '../helpers/cli.js';
import { commit, git, initRepo, tmp } from '../driver/helpers.js';

const saved = { HOME: process.env.HOME, XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME, XDG_DATA_HOME: process.env.XDG_DATA_HOME };
const made: string[] = [];
beforeAll(() => {
  const home = tmp('gcpatch-home-');
  made.push(home);
  process.env.HOME = home;
  process.env.XDG_CONFIG_HOME = join(home, '.config');
  delete process.env.XDG_DATA_HOME;
});
afterAll(() => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

// Adjacent lines: git's line merge conflicts, the structural merge does not.
const BASE = ';; m\n(def app/m::a 1)\n(def app/m::b 2)\n';
const OURS = ';; m\n(def app/m::a 10)\n(def app/m::b 2)\n';
const THEIRS = ';; m\n(def app/m::a 1)\n(def app/m::b 20)\n';
const MERGED = ';; m\n(def app/m::a 10)\n(def app/m::b 20)\n';

/** A "checkout" holding only the built driver (what `npm link` / `npm install -g` would point at). */
function fakeCheckout(parent = tmp('gcpatch-checkout-')): string {
  const dist = join(parent, 'driver', 'dist');
  mkdirSync(dist, { recursive: true });
  for (const f of ['index.js', 'launch.cjs']) cpSync(join(ROOT, 'driver/dist', f), join(dist, f));
  made.push(parent);
  return join(dist, 'index.js');
}

/** A repository (at `dir` if given) with m.gc on main, `feature` editing the adjacent line. */
function conflictRepo(dir?: string): string {
  if (dir !== undefined) mkdirSync(dir, { recursive: true });
  const repo = initRepo(dir);
  made.push(repo);
  commit(repo, { 'm.gc': BASE }, 'base');
  git(repo, ['checkout', '-q', '-b', 'feature']);
  commit(repo, { 'm.gc': THEIRS }, 'theirs');
  git(repo, ['checkout', '-q', 'main']);
  commit(repo, { 'm.gc': OURS }, 'ours');
  return repo;
}

const read = (repo: string): string => readFileSync(join(repo, 'm.gc'), 'utf8');

/** The line merge git would write, for comparison. */
function lineMerged(): string {
  const d = tmp('gcpatch-lm-');
  made.push(d);
  writeFileSync(join(d, 'O'), BASE);
  writeFileSync(join(d, 'A'), OURS);
  writeFileSync(join(d, 'B'), THEIRS);
  git(d, ['merge-file', '-L', 'ours', '-L', 'base', '-L', 'theirs', 'A', 'O', 'B']);
  return readFileSync(join(d, 'A'), 'utf8');
}

/** Asserts the fallback: exit 1, git merge-file's markers with both sides, one gcpatch line on stderr, no stack. */
function expectLineMergeFallback(repo: string): void {
  const r = git(repo, ['merge', '--no-edit', 'feature']);
  expect(r.status).toBe(1);
  const text = read(repo);
  expect(text).toBe(lineMerged());
  expect(text).toContain('(def app/m::a 10)');
  expect(text).toContain('(def app/m::b 20)');
  expect(text).toMatch(/^<{7} ours\n[^]*^={7}\n[^]*^>{7} theirs\n/m);
  const lines = r.stderr.split('\n').filter((l) => l.trim() !== '');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(
    /^gcpatch: m\.gc: the merge driver is missing from .*; wrote a line merge with conflict markers instead\. Fix: gcpatch driver install/,
  );
  expect(r.stderr).not.toMatch(/^\s+at /m);
  expect(git(repo, ['ls-files', '-u']).stdout).toMatch(/m\.gc/);
}

describe('driver install: the configured line cannot drop a side', () => {
  it('the installed copy survives moving and deleting the checkout that installed it', () => {
    const repo = conflictRepo();
    const entry = fakeCheckout();
    const r = installDriver({ cwd: repo, driverPath: entry });
    expect(r.installedTo).toBe(join(repo, '.git', 'gcpatch', 'driver'));
    expect(r.check.level).toBe('ok');
    const checkout = join(entry, '../../..');
    renameSync(checkout, `${checkout}-moved`);
    made.push(`${checkout}-moved`);
    const m = git(repo, ['merge', '--no-edit', 'feature']);
    expect(m.stderr).toBe('');
    expect(m.status).toBe(0);
    expect(read(repo)).toBe(MERGED);
  });

  it('the repository can move too: a local install finds the driver through git rev-parse', () => {
    const parent = tmp('gcpatch-mv-');
    made.push(parent);
    const repo = conflictRepo(join(parent, 'a'));
    installDriver({ cwd: repo });
    renameSync(repo, join(parent, 'b'));
    const m = git(join(parent, 'b'), ['merge', '--no-edit', 'feature']);
    expect([m.status, m.stderr]).toEqual([0, '']);
    expect(read(join(parent, 'b'))).toBe(MERGED);
  });

  it('a local install is found without a git process in the main work tree, through rev-parse in a linked worktree', () => {
    const repo = conflictRepo();
    installDriver({ cwd: repo });
    // GIT_TRACE logs every git process, the driver line's own included.
    const bin = tmp('gcpatch-trace-');
    made.push(bin);
    const log = join(bin, 'log');
    const env = { GIT_TRACE: log };
    git(repo, ['branch', 'side', 'HEAD~1']); // ours' parent: merging feature there needs the driver too
    const wt = join(repo, '..', `${repo.split('/').pop()}-wt`);
    made.push(wt);
    git(repo, ['worktree', 'add', '-q', wt, 'side']);
    commit(wt, { 'm.gc': OURS, '.gitattributes': readFileSync(join(repo, '.gitattributes'), 'utf8') }, 'ours in the worktree');
    writeFileSync(log, '');
    const m = git(repo, ['merge', '--no-edit', 'feature'], env);
    expect([m.status, m.stderr]).toEqual([0, '']);
    expect(read(repo)).toBe(MERGED);
    expect(readFileSync(log, 'utf8')).toMatch(/run_command: 'd=/); // the driver line ran
    expect(readFileSync(log, 'utf8')).not.toMatch(/built-in: git rev-parse/);
    writeFileSync(log, '');
    const w = git(wt, ['merge', '--no-edit', 'feature'], env);
    expect([w.status, w.stderr], w.stdout).toEqual([0, '']);
    expect(read(wt)).toBe(MERGED);
    expect(readFileSync(log, 'utf8')).toMatch(/built-in: git rev-parse --git-common-dir/);
  });

  it('Node starts the driver without NODE_EXTRA_CA_CERTS (parsed at start-up, never used by a merge)', () => {
    const repo = conflictRepo();
    installDriver({ cwd: repo });
    // Node warns on stderr when that file cannot be loaded: proof that it read the variable.
    const missing = join(repo, 'no-such-ca.pem');
    const probe = spawnSync(process.execPath, ['-e', '0'], { encoding: 'utf8', env: { ...process.env, NODE_EXTRA_CA_CERTS: missing } });
    expect(probe.stderr).toContain('no-such-ca.pem');
    const m = git(repo, ['merge', '--no-edit', 'feature'], { NODE_EXTRA_CA_CERTS: missing });
    expect([m.status, m.stderr]).toEqual([0, '']);
    expect(read(repo)).toBe(MERGED);
  });

  it('deleted driver → line merge with markers, exit 1, one stderr line; doctor says so', () => {
    const repo = conflictRepo();
    installDriver({ cwd: repo });
    rmSync(join(repo, '.git', 'gcpatch', 'driver', 'index.js'));
    const d = doctorDriver({ cwd: repo });
    expect(d.healthy).toBe(false);
    expect(d.checks.find((c) => c.name === 'runs:gcpatch')).toMatchObject({ level: 'error', fix: expect.stringMatching(/gcpatch driver install/) });
    expect(d.checks.find((c) => c.name === 'runs:gcpatch')?.message).toMatch(/missing from/);
    expectLineMergeFallback(repo);
  });

  it('moved driver directory → the same fallback', () => {
    const repo = conflictRepo();
    installDriver({ cwd: repo });
    renameSync(join(repo, '.git', 'gcpatch'), join(repo, '.git', 'gcpatch-elsewhere'));
    expectLineMergeFallback(repo);
  });

  it('node cannot start the driver (a broken bundle) → line merge with markers, exit 1', () => {
    const repo = conflictRepo();
    installDriver({ cwd: repo });
    writeFileSync(join(repo, '.git', 'gcpatch', 'driver', 'index.js'), 'this is not javascript (');
    const r = git(repo, ['merge', '--no-edit', 'feature']);
    expect(r.status).toBe(1);
    expect(read(repo)).toBe(lineMerged());
    expect(r.stderr).toMatch(/^gcpatch: the merge driver bundle .* does not compile \(Unexpected identifier 'is'\)/m);
    expect(r.stderr).toMatch(/^gcpatch: m\.gc: the merge driver stopped \(exit 2\); wrote a line merge/m);
    expect(r.stderr).not.toMatch(/^\s+at /m);
  });

  it('node missing from PATH → the same fallback, and the line never exits above 1', () => {
    const repo = conflictRepo();
    installDriver({ cwd: repo });
    // PATH with git but no node: a directory holding only a link to git.
    const bin = tmp('gcpatch-bin-');
    made.push(bin);
    const gitPath = git(repo, ['--exec-path']).stdout.trim();
    const r = git(repo, ['merge', '--no-edit', 'feature'], { PATH: `${bin}:${gitPath}` });
    expect(r.status).toBe(1);
    expect(read(repo)).toBe(lineMerged());
    expect(r.stderr).toMatch(/missing from .* \(or node is not on PATH\)/);
  });

  it('a local install in a repository whose path holds %A, a space and a quote merges structurally', () => {
    const parent = tmp('gcpatch-odd-');
    made.push(parent);
    const repo = conflictRepo(join(parent, `pct%Adir with space's "q" $HOME \`x\``));
    const r = installDriver({ cwd: repo });
    expect(r.check).toMatchObject({ level: 'ok' });
    expect(doctorDriver({ cwd: repo }).healthy).toBe(true);
    const m = git(repo, ['merge', '--no-edit', 'feature']);
    expect([m.status, m.stderr]).toEqual([0, '']);
    expect(read(repo)).toBe(MERGED);
  });

  it('a global install into a data directory holding %A, %%, a space and quotes merges structurally', () => {
    const data = join(tmp('gcpatch-data-'), `d%A%%B it's "x"`);
    made.push(data);
    process.env.XDG_DATA_HOME = data;
    try {
      const r = installDriver({ global: true, cwd: process.env.HOME! });
      expect(r.installedTo).toBe(join(data, 'gcpatch', 'driver'));
      expect(r.check.level).toBe('ok');
      const repo = conflictRepo();
      expect(doctorDriver({ cwd: repo }).healthy).toBe(true);
      const m = git(repo, ['merge', '--no-edit', 'feature']);
      expect([m.status, m.stderr]).toEqual([0, '']);
      expect(read(repo)).toBe(MERGED);
      // The same install with the %-escaping removed: git would expand %A inside the path.
      const broken = driverCommand(shQuote(r.installedTo), 'gc').replace(/%%/g, '%');
      git(repo, ['config', 'merge.gcpatch.driver', broken]);
      git(repo, ['reset', '-q', '--hard', 'HEAD']);
      const d = doctorDriver({ cwd: repo });
      expect(d.checks.find((c) => c.name === 'runs:gcpatch')?.level).toBe('error');
    } finally {
      delete process.env.XDG_DATA_HOME;
      git(process.env.HOME!, ['config', '--global', '--remove-section', 'merge.gcpatch']);
      git(process.env.HOME!, ['config', '--global', '--remove-section', 'merge.gcpatch-manifest']);
    }
  });

  it("doctor flags gcpatch 0.1's unguarded line even while it still works", () => {
    const repo = conflictRepo();
    installDriver({ cwd: repo });
    const launch = join(repo, '.git', 'gcpatch', 'driver', 'launch.cjs');
    git(repo, ['config', 'merge.gcpatch.driver', `node ${shQuote(launch)} %O %A %B %L %P %S %X %Y`]);
    const d = doctorDriver({ cwd: repo });
    expect(d.checks.find((c) => c.name === 'line:gcpatch')).toMatchObject({ level: 'error', message: expect.stringMatching(/unguarded/) });
    expect(d.checks.find((c) => c.name === 'runs:gcpatch')?.level).toBe('ok');
  });
});

describe('driver line escaping and expansion', () => {
  it('doubles every % and expands like git', () => {
    expect(gitDriverEscape('a%Ab%%c')).toBe('a%%Ab%%%%c');
    const line = `x ${gitDriverEscape("'/p%A q'")} %O %A %B %L %P %S %X %Y %Q %%`;
    const v = { O: '/t/o', A: "/t/it's", B: '/t/b', L: 9, P: 'a b.gc', S: 'base', X: 'HEAD', Y: 'feat' };
    expect(expandDriverLine(line, v)).toBe(`x '/p%A q' '/t/o' '/t/it'\\''s' '/t/b' 9 'a b.gc' 'base' 'HEAD' 'feat' %Q %`);
    expect(expandDriverLine(line, v, false)).toBe(`x '/p%A q' '/t/o' '/t/it'\\''s' '/t/b' 9 'a b.gc' %S %X %Y %Q %`);
  });
});
