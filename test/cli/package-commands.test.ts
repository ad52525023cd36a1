// The package commands from a repository root and from a subdirectory (package discovery), store
// address prefixes where an address is taken, `store ls` summaries, and the empty-pin messages of
// verify-pins, audit and doctor. The commands run in-process (test/helpers/run-cli.ts); git is real.
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, tempDir } from '../helpers/cli.js';
import { runCli } from '../helpers/run-cli.js';
import { git } from '../helpers/git.js';

/** A git repository holding fixtures/refactor/ledger at pkgs/ledger (and nothing else). */
function repoWithLedger(): string {
  const dir = join(tempDir(), 'repo');
  mkdirSync(join(dir, 'pkgs'), { recursive: true });
  cpSync(join(ROOT, 'fixtures/refactor/ledger'), join(dir, 'pkgs/ledger'), { recursive: true });
  mkdirSync(join(dir, 'docs'));
  git(dir, 'init', '-q', '-b', 'main');
  return dir;
}

const RENAME = ['refactor', 'plan', '--kind', 'rename', '--from', 'ledger/money::add-amounts', '--to', 'ledger/money::sum-amounts'];

describe('package commands find the package like diff does', () => {
  it('plan, store ls, refactor apply by prefix, audit and verify-pins from the root, a subdirectory and elsewhere', async () => {
    const repo = repoWithLedger();
    const pkg = join(repo, 'pkgs/ledger');

    // From the repository root: the repository's only package.
    const plan = await runCli(RENAME, { cwd: repo });
    expect(plan.stderr).toBe('');
    expect(plan.status).toBe(0);
    const reportHex = /^report stored as +([0-9a-f]{64})$/m.exec(plan.stdout)![1]!;

    // From a subdirectory of the package and from a directory outside it.
    for (const cwd of [join(pkg, 'money'), join(repo, 'docs')]) {
      const ls = await runCli(['store', 'ls'], { cwd });
      expect(ls.status).toBe(0);
      expect(ls.stdout).toContain(
        `${reportHex}  genesis/refactor-plan-v0.1  refactor rename ledger/money::add-amounts -> ledger/money::sum-amounts, safe to apply\n`,
      );
      expect(ls.stdout).toMatch(
        /^[0-9a-f]{64} {2}genesis\/refactor-plan-request-v0\.1 {2}refactor rename ledger\/money::add-amounts -> ledger\/money::sum-amounts$/m,
      );
    }

    // refactor apply with an 8-digit prefix (this was io/enoent, exit 70).
    const apply = await runCli(['refactor', 'apply', reportHex.slice(0, 8)], { cwd: join(pkg, 'report') });
    expect(apply.stderr).toBe('');
    expect(apply.status).toBe(0);

    const ls = await runCli(['store', 'ls', '--json'], { cwd: repo });
    const entries = JSON.parse(ls.stdout).entries as { hex: string; size: number; kind: string; summary: string }[];
    expect(entries.map((e) => e.kind).sort()).toEqual([
      'genesis/acceptance-v0.2',
      'genesis/package-v0.2',
      'genesis/patch-apply-v0.3',
      'genesis/refactor-plan-request-v0.1',
      'genesis/refactor-plan-v0.1',
      'patch',
    ]);
    expect(entries.find((e) => e.kind === 'genesis/package-v0.2')!.summary).toBe('package ledger 0.3.1');
    expect(entries.find((e) => e.kind === 'genesis/acceptance-v0.2')!.summary).toBe('package ledger 0.3.1 ok true');
    expect(entries.find((e) => e.kind === 'genesis/patch-apply-v0.3')!.summary).toMatch(
      /^intent ".+" \(ledger\/money::add-amounts -> ledger\/money::sum-amounts\) ok true$/,
    );
    for (const e of entries) expect(e.size).toBeGreaterThan(0);

    // store show / verify / refactor evidence by prefix, from the root.
    const applyHex = entries.find((e) => e.kind === 'genesis/patch-apply-v0.3')!.hex;
    const show = await runCli(['store', 'show', applyHex.slice(0, 9).toUpperCase()], { cwd: repo });
    expect(show.status).toBe(0);
    expect(show.stdout).toContain(':kind "genesis/patch-apply-v0.3"');
    expect((await runCli(['store', 'verify', applyHex.slice(0, 8)], { cwd: repo })).status).toBe(0);
    const evidence = await runCli(['refactor', 'evidence', reportHex.slice(0, 8)], { cwd: repo });
    expect(evidence.stdout).toContain(`apply report  ${applyHex}`);
    const short = await runCli(['store', 'show', applyHex.slice(0, 7), '--json'], { cwd: repo });
    expect(short.status).toBe(10);
    expect(JSON.parse(short.stdout).error.code).toBe('store/prefix-too-short');

    for (const cwd of [repo, join(pkg, 'money')]) {
      expect((await runCli(['audit'], { cwd })).status).toBe(0);
      expect((await runCli(['verify-pins'], { cwd })).stdout).toContain('all 25 module pins verified');
    }
  });

  it('apply and pack from the root say what they stored, by kind', async () => {
    const dir = join(tempDir(), 'repo');
    cpSync(join(ROOT, 'fixtures/packages/patchdemo'), join(dir, 'patchdemo'), { recursive: true });
    git(dir, 'init', '-q', '-b', 'main');
    const apply = await runCli(['apply', '--patch', join(ROOT, 'fixtures/patches/patchdemo-refactor.gcpatch')], { cwd: dir });
    expect(apply.status).toBe(0);
    const lines = apply.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^applied .*patchdemo-refactor\.gcpatch: changed /);
    expect(lines.slice(1).map((l) => l.replace(/[0-9a-f]{64}/, 'HEX').replace(/"[^"]*"( \([^)]*\))?/, '"…"'))).toEqual([
      'stored apply report HEX  genesis/patch-apply-v0.3  intent "…" ok true',
      'stored acceptance   HEX  genesis/acceptance-v0.2  package patchdemo 0.1.0 ok true',
      'stored package      HEX  genesis/package-v0.2  package patchdemo 0.1.0',
      'stored patch        HEX  patch  intent "…"',
    ]);
    const pack = await runCli(['pack'], { cwd: join(dir, 'patchdemo') });
    expect(pack.stdout).toMatch(/^pins unchanged \(\d+ modules\)\nstored package [0-9a-f]{64} {2}genesis\/package-v0\.2 {2}package patchdemo 0\.1\.0\n$/);
  });

  it('several packages and no --pkg: pkg/ambiguous names them; --pkg chooses', async () => {
    const dir = join(tempDir(), 'repo');
    cpSync(join(ROOT, 'fixtures/packages/greeter'), join(dir, 'a'), { recursive: true });
    cpSync(join(ROOT, 'fixtures/packages/greeter'), join(dir, 'b'), { recursive: true });
    git(dir, 'init', '-q', '-b', 'main');
    for (const args of [['audit'], ['store', 'ls'], ['verify-pins'], ['pack'], RENAME]) {
      const r = await runCli([...args, '--json'], { cwd: dir });
      expect(r.status).toBe(10);
      const err = JSON.parse(r.stdout).error;
      expect(err.code).toBe('pkg/ambiguous');
      expect(err.message).toContain('a, b; pass --pkg');
    }
    expect((await runCli(['verify-pins', '--pkg', 'b'], { cwd: dir })).status).toBe(0);
  });
});

describe('empty pins after a merge: every message names the one command that fixes it', () => {
  it('verify-pins, audit and doctor', async () => {
    const repo = repoWithLedger();
    const manifest = join(repo, 'pkgs/ledger/package.toml');
    writeFileSync(manifest, readFileSync(manifest, 'utf8').replace(/hash = "[0-9a-f]+"/, 'hash = ""'));

    const pins = await runCli(['verify-pins'], { cwd: repo });
    expect(pins.status).toBe(50);
    expect(pins.stdout).toContain(
      '1 empty pin (hash = "", left by a merge where both sides changed the module): run `gcpatch pack --pkg pkgs/ledger` to re-pin',
    );
    expect(JSON.parse((await runCli(['verify-pins', '--json'], { cwd: join(repo, 'pkgs/ledger') })).stdout).fix).toBe('gcpatch pack');

    const audit = await runCli(['audit'], { cwd: repo });
    expect(audit.status).toBe(50);
    expect(audit.stderr).toContain('run `gcpatch pack --pkg pkgs/ledger` to re-pin');

    const doctor = await runCli(['driver', 'doctor', '--json'], { cwd: repo, env: { GIT_CONFIG_GLOBAL: '/dev/null' } });
    const check = JSON.parse(doctor.stdout).checks.find((c: { name: string }) => c.name === 'pins');
    expect(check).toMatchObject({ level: 'error', fix: 'gcpatch pack --pkg pkgs/ledger' });
    expect(check.message).toContain('pkgs/ledger/package.toml has 1 empty pin');
    expect(doctor.status).toBe(50);

    // The fix fixes it.
    expect((await runCli(['pack', '--pkg', 'pkgs/ledger'], { cwd: repo })).stdout).toMatch(
      /^re-pinned 1 of 25 modules:\n {2}meta\/profile\.gc {2}"" -> [0-9a-f]{12}\n/,
    );
    expect((await runCli(['verify-pins'], { cwd: repo })).status).toBe(0);
  });
});
