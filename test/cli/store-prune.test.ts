// `gcpatch store prune`: a failed apply's evidence (nothing references it) is listed, removed only
// with --yes, in an order that never leaves a dangling reference; a successful apply's evidence, the
// current package record and entries git tracks are kept (the controls).
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { copyFixture, GIT_ENV, ROOT } from '../helpers/cli.js';
import { runCli } from '../helpers/run-cli.js';

const PATCH = join(ROOT, 'fixtures/patches/patchdemo-refactor.gcpatch');

interface Listed {
  hex: string;
  kind: string;
  summary: string;
  size: number;
}

async function ls(pkg: string): Promise<Listed[]> {
  return (JSON.parse((await runCli(['store', 'ls', '--pkg', pkg, '--json'])).stdout) as { entries: Listed[] }).entries;
}

/** A patchdemo copy whose apply fails with exit 30 (a declared obligation, no runner): four garbage entries. */
async function failedApply(): Promise<string> {
  const pkg = copyFixture('packages/patchdemo');
  const toml = join(pkg, 'package.toml');
  writeFileSync(toml, readFileSync(toml, 'utf8').replace('obligations = []', 'obligations = ["core/obligation::unit-tests"]'));
  const failed = await runCli(['apply', '--patch', PATCH, '--pkg', pkg], { env: { GCPATCH_OBLIGATION_RUNNER: '' } });
  expect(failed.status).toBe(30);
  expect(failed.stderr).toContain('`gcpatch store prune --yes` removes it');
  return pkg;
}

describe('gcpatch store prune', () => {
  it("lists a failed apply's entries without removing them, removes them with --yes, report first; exact bytes", async () => {
    const pkg = await failedApply();
    const before = await ls(pkg);
    expect(before.map((e) => e.kind).sort()).toEqual(['genesis/acceptance-v0.2', 'genesis/package-v0.2', 'genesis/patch-apply-v0.3', 'patch']);
    const byKind = new Map(before.map((e) => [e.kind, e]));
    const report = byKind.get('genesis/patch-apply-v0.3')!;
    expect(report.summary.endsWith('ok false')).toBe(true);

    const dry = await runCli(['store', 'prune', '--pkg', pkg, '--json']);
    expect(dry.status).toBe(0);
    const plan = JSON.parse(dry.stdout) as { ok: boolean; dryRun: boolean; total: number; kept: number; bytes: number; entries: Listed[] };
    expect(plan).toMatchObject({ ok: true, dryRun: true, total: 4, kept: 0, bytes: before.reduce((a, e) => a + e.size, 0) });
    // The report names the other three: it goes first, so no remaining entry ever names a removed one.
    expect(plan.entries[0]!.hex).toBe(report.hex);
    expect((await ls(pkg)).length).toBe(4);

    const text = await runCli(['store', 'prune', '--pkg', pkg]);
    expect(text.stdout).toBe(
      `would remove 4 of 4 entries (${plan.bytes} bytes) that nothing live references:\n` +
        plan.entries.map((e) => `  ${e.hex}  ${e.kind}  ${e.summary}\n`).join('') +
        'nothing removed; run `gcpatch store prune --yes` to remove them\n',
    );

    const yes = await runCli(['store', 'prune', '--yes', '--pkg', pkg]);
    expect(yes.status).toBe(0);
    expect(yes.stdout.startsWith(`removed 4 of 4 entries (${plan.bytes} bytes) that nothing live references:\n`)).toBe(true);
    expect(readdirSync(join(pkg, '.genesis/store'))).toEqual([]);
    expect((await runCli(['store', 'prune', '--pkg', pkg])).stdout).toBe('nothing to prune: all 0 entries are referenced\n');
  });

  it("keeps a successful apply's evidence, the current package record and committed entries (controls)", async () => {
    const pkg = copyFixture('packages/patchdemo');
    expect((await runCli(['apply', '--patch', PATCH, '--pkg', pkg])).status).toBe(0);
    expect((await runCli(['store', 'prune', '--pkg', pkg])).stdout).toBe('nothing to prune: all 4 entries are referenced\n');
    // `pack` after a hand edit stores the record of the package as it is: kept although nothing names it.
    writeFileSync(join(pkg, 'app.gc'), readFileSync(join(pkg, 'app.gc'), 'utf8') + '\n(def demo/app::extra 1)\n');
    expect((await runCli(['pack', '--pkg', pkg])).status).toBe(0);
    expect((await runCli(['store', 'prune', '--pkg', pkg])).stdout).toBe('nothing to prune: all 5 entries are referenced\n');

    // A failed apply's entries that were committed are history: kept.
    const failed = await failedApply();
    const git = (...args: string[]) => execFileSync('git', args, { cwd: failed, env: { ...process.env, ...GIT_ENV }, encoding: 'utf8' });
    git('init', '-q', '-b', 'main');
    git('add', '.');
    git('commit', '-qm', 'committed by mistake');
    expect((await runCli(['store', 'prune', '--pkg', failed])).stdout).toBe('nothing to prune: all 4 entries are referenced\n');
  });
});
