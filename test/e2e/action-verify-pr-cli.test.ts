// `gcpatch verify-pr`: the Action's checks on real repositories: in-process
// (test/helpers/run-cli.ts), and through the built CLI (bin/gcpatch.js) for one --json verdict and a usage error.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gcpatch } from '../helpers/cli.js';
import { runCli } from '../helpers/run-cli.js';
import { addShopPackage, commitAll, git, honestRenamePr, initRepo, pullRequestEvent, runAction, tempDir } from '../action/helpers.js';

describe('gcpatch verify-pr', () => {
  it('verifies evidence produced with the documented CLI workflow (refactor plan/apply, then apply)', async () => {
    const repo = initRepo();
    const pkg = addShopPackage(repo);
    const base = commitAll(repo, 'shop');
    git(repo, 'checkout', '-q', '-b', 'feature');
    const plan = await runCli(
      ['refactor', 'plan', '--kind', 'rename', '--from', 'shop/price::total', '--to', 'shop/price::gross', '--pkg', 'pkgs/shop', '--json'],
      { cwd: repo },
    );
    expect(plan.status).toBe(0);
    const { reportAddress } = JSON.parse(plan.stdout) as { reportAddress: string };
    const applied = await runCli(['refactor', 'apply', reportAddress, '--pkg', 'pkgs/shop'], { cwd: repo });
    expect(applied.status).toBe(0);
    commitAll(repo, 'rename total to gross');
    const patchFile = join(tempDir(), 'tax.gcpatch');
    writeFileSync(
      patchFile,
      '{:version 1 :intent "raise the tax rate" :provenance {}\n' +
        ' :ops [{:op :replace-node :module-path "lib/price.gc" :path [[:form 1] [:pair-cdr] [:pair-cdr] [:pair-car]] :new 25}]}\n',
    );
    expect((await runCli(['apply', '--patch', patchFile, '--pkg', pkg])).status).toBe(0);
    const head = commitAll(repo, 'raise the tax rate');

    const cli = gcpatch(['verify-pr', '--base', 'main', '--json'], { cwd: repo });
    expect(cli.status).toBe(0);
    const report = JSON.parse(cli.stdout);
    expect(report.packages[0].replay).toMatchObject({ status: 'reproduced', modulesChanged: 3 });
    expect(report.packages[0].replay.applied).toHaveLength(2);

    const action = runAction(repo, { event: pullRequestEvent(base, head) });
    expect(action.status).toBe(0);
    expect(action.outputs.failed).toBe('0');
    expect(action.summary).toContain('Replay: ✅ 2 apply reports replayed commit by commit; 3 changed modules reproduced exactly');
  });

  it('verifies an honest rename PR (text and --json) and exits 50 on a hidden edit', async () => {
    const { repo, pkg, base, head } = honestRenamePr();
    const text = await runCli(['verify-pr', '--base', 'main', '--head', 'rename-total'], { cwd: repo });
    expect(text.stderr).toBe('');
    expect(text.status).toBe(0);
    const lines = text.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(`base ${base.slice(0, 12)}, head ${head.slice(0, 12)}`);
    expect(lines[1]).toMatch(/^package shop \(pkgs\/shop\): evidence .*1 apply-report.*; replay reproduced \(3 modules\); \d+ checks passed$/);
    expect(lines.at(-1)).toMatch(/^verified: \d+ checks passed, 0 failed; 0 errors, 0 warnings \(fail-on error\)$/);

    const json = await runCli(['verify-pr', '--base', base, '--json'], { cwd: pkg });
    expect(json.status).toBe(0);
    const report = JSON.parse(json.stdout);
    expect(report).toMatchObject({ kind: 'gcpatch/pr-audit-v1', base, head, ok: true, failed: 0 });

    const file = join(pkg, 'app/cart.gc');
    writeFileSync(file, readFileSync(file, 'utf8').replace('"EUR"', '"USD"'));
    commitAll(repo, 'currency');
    const failing = await runCli(['verify-pr', '--base', 'main', '--packages', 'pkgs/**'], { cwd: repo });
    expect(failing.status).toBe(50);
    expect(failing.stdout).toMatch(/^pkgs\/shop\/app\/cart\.gc:\d+: error: audit\/replay-module-mismatch: /m);
    expect(failing.stdout).toMatch(/^FAILED: /m);
  });

  it('exits 70 with the fetch-depth hint on a shallow clone, and 10 on a bad --fail-on', async () => {
    const { repo, base } = honestRenamePr();
    const clone = join(tempDir(), 'clone');
    git(tempDir(), 'clone', '-q', '--depth', '1', '--branch', 'rename-total', `file://${repo}`, clone);
    const r = await runCli(['verify-pr', '--base', base], { cwd: clone });
    expect(r.status).toBe(70);
    expect(r.stderr).toContain('git/missing-commit');
    expect(r.stderr).toContain('fetch-depth: 0');
    expect(gcpatch(['verify-pr', '--base', 'main', '--fail-on', 'never'], { cwd: repo }).status).toBe(10);
    // docs/action.md "Run the same checks locally": with --json the usage error is JSON on stdout too
    const json = await runCli(['verify-pr', '--base', 'main', '--fail-on', 'x', '--json'], { cwd: repo });
    expect(json.status).toBe(10);
    const parsed = JSON.parse(json.stdout) as { ok: boolean; error: { code: string; message: string } };
    expect(parsed.ok).toBe(false);
    expect(parsed.error.code).toBe('usage/invalid-option');
    expect(parsed.error.message).toContain('--fail-on must be error or warning');
    const missing = await runCli(['verify-pr', '--json'], { cwd: repo });
    expect(missing.status).toBe(10);
    expect((JSON.parse(missing.stdout) as { error: { code: string } }).error.code).toMatch(/^usage\//);
  });
});
