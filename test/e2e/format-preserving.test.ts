// End-to-end (docs/patches.md "How apply writes modules"): `gcpatch refactor apply` keeps the author's formatting, so two branches
// that rename DIFFERENT definitions used in one hand-formatted module (app/main.gc of the 25-module
// ledger fixture) merge with no conflict through real git and the gcpatch merge driver, and the
// merged history verifies with `gcpatch verify-pr`. The commands run in-process
// (test/helpers/run-cli.ts), verify-pr through bin/gcpatch.js (dist/); git runs the committed driver
// bundle (driver/dist/index.js).
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { canonicalizeSource } from '../../src/coreform/canon.js';
import { hashModule } from '../../src/coreform/hash.js';
import { printModule } from '../../src/coreform/print.js';
import { installDriver } from '../../src/driver-setup/install.js';
import { commitAll } from '../action/helpers.js';
import { git, initRepo } from '../helpers/git.js';
import { gcpatch, ROOT, tempDir } from '../helpers/cli.js';
import { runCli } from '../helpers/run-cli.js';

const PKG = 'pkgs/ledger';

async function rename(repo: string, from: string, to: string, extra: string[] = []): Promise<void> {
  const out = join(tempDir(), 'plan.gc');
  const plan = await runCli(['refactor', 'plan', '--kind', 'rename', '--from', from, '--to', to, '--pkg', PKG, '--out', out], { cwd: repo });
  expect(plan.status, plan.stdout + plan.stderr).toBe(0);
  const applied = await runCli(['refactor', 'apply', out, '--pkg', PKG, '--json', ...extra], { cwd: repo });
  expect(applied.status, applied.stdout + applied.stderr).toBe(0);
  expect(JSON.parse(applied.stdout).canonicalFallbacks).toEqual([]);
}

describe('format-preserving refactor apply through git and the merge driver', { timeout: 300_000 }, () => {
  it('two renames of different definitions used in one hand-formatted module merge cleanly and verify', async () => {
    const repo = initRepo();
    cpSync(join(ROOT, 'fixtures/refactor/ledger'), join(repo, PKG), { recursive: true });
    installDriver({ cwd: repo });
    const base = commitAll(repo, 'ledger');
    const main = (): string => readFileSync(join(repo, PKG, 'app/main.gc'), 'utf8');
    const original = main();
    expect(original).toContain('ledger/cli::parse-args');
    expect(original).toContain('ledger/journal::entry');
    expect(original).toMatch(/;/); // the module has comments to keep

    git(repo, 'checkout', '-q', '-b', 'rename-parse-args');
    await rename(repo, 'ledger/cli::parse-args', 'ledger/cli::read-args');
    // Only the renamed token changed: comments, layout, quote sugar and multi-parameter fn stay.
    expect(main()).toBe(original.replace('ledger/cli::parse-args', 'ledger/cli::read-args'));
    commitAll(repo, 'rename parse-args to read-args');

    git(repo, 'checkout', '-q', 'main');
    git(repo, 'checkout', '-q', '-b', 'rename-entry');
    await rename(repo, 'ledger/journal::entry', 'ledger/journal::journal-entry');
    expect(main()).toBe(original.split('ledger/journal::entry').join('ledger/journal::journal-entry'));
    commitAll(repo, 'rename entry to journal-entry');

    // The merge: no conflict in app/main.gc (with canonical rewrites both sides would rewrite it whole).
    git(repo, 'merge', '--no-edit', 'rename-parse-args');
    const merged = main();
    expect(merged).toBe(
      original.replace('ledger/cli::parse-args', 'ledger/cli::read-args').split('ledger/journal::entry').join('ledger/journal::journal-entry'),
    );
    expect(git(repo, 'diff', '--name-only', '--diff-filter=U')).toBe('');
    // Both sides re-pinned app/main.gc; the manifest driver leaves the pin empty for `gcpatch pack`.
    const packed = await runCli(['pack', '--pkg', PKG], { cwd: repo });
    expect(packed.status, packed.stderr).toBe(0);
    expect(readFileSync(join(repo, PKG, 'package.toml'), 'utf8')).toContain(hashModule(canonicalizeSource(merged)));
    commitAll(repo, 'pack after merge');

    // The merged history verifies: each apply report replays on its own parent.
    const verified = gcpatch(['verify-pr', '--base', base, '--json'], { cwd: repo });
    const report = JSON.parse(verified.stdout) as { ok: boolean; failed: number };
    expect({ status: verified.status, ok: report.ok, failed: report.failed }, verified.stdout).toEqual({ status: 0, ok: true, failed: 0 });
  });

  it('--canonical keeps the reference whole-module rewrite, with the same module hashes', async () => {
    const repo = initRepo();
    cpSync(join(ROOT, 'fixtures/refactor/ledger'), join(repo, PKG), { recursive: true });
    commitAll(repo, 'ledger');
    const preserved = join(tempDir(), 'ledger');
    cpSync(join(repo, PKG), preserved, { recursive: true });
    await rename(repo, 'ledger/cli::parse-args', 'ledger/cli::read-args', ['--canonical']);
    const canonicalText = readFileSync(join(repo, PKG, 'app/main.gc'), 'utf8');
    expect(canonicalText).toBe(printModule(canonicalizeSource(canonicalText)));
    const plan = join(tempDir(), 'plan.gc');
    expect(
      (
        await runCli([
          'refactor',
          'plan',
          '--kind',
          'rename',
          '--from',
          'ledger/cli::parse-args',
          '--to',
          'ledger/cli::read-args',
          '--pkg',
          preserved,
          '--out',
          plan,
        ])
      ).status,
    ).toBe(0);
    expect((await runCli(['refactor', 'apply', plan, '--pkg', preserved])).status).toBe(0);
    const keptText = readFileSync(join(preserved, 'app/main.gc'), 'utf8');
    expect(keptText).not.toBe(canonicalText);
    expect(hashModule(canonicalizeSource(keptText))).toBe(hashModule(canonicalizeSource(canonicalText)));
    // Same evidence either way: identical package.toml pins.
    expect(readFileSync(join(preserved, 'package.toml'), 'utf8')).toBe(readFileSync(join(repo, PKG, 'package.toml'), 'utf8'));
  });
});

describe('gcpatch apply --canonical and the format-preserving default', { timeout: 120_000 }, () => {
  const MODULE =
    ';; Prices.\n(def demo/main::rate 20) ; percent\n\n;; Adds the tax.\n(def demo/main::gross (fn (net rate)\n  (prim int/add net (prim int/div (prim int/mul net rate) 100))))\n';
  const PATCH =
    '{:version 1 :intent "raise" :provenance {} :ops [{:op :replace-node :module-path "main.gc" :path [[:form 0] [:pair-cdr] [:pair-cdr] [:pair-car]] :new 25}]}\n';

  async function setup(): Promise<{ pkg: string; patch: string }> {
    const pkg = tempDir();
    writeFileSync(join(pkg, 'package.toml'), 'schema = 1\nname = "demo"\nversion = "1.0.0"\nobligations = []\n\n[[modules]]\npath = "main.gc"\n');
    writeFileSync(join(pkg, 'main.gc'), MODULE);
    expect((await runCli(['pack', '--pkg', pkg])).status).toBe(0);
    const patch = join(tempDir(), 'raise.gcpatch');
    writeFileSync(patch, PATCH);
    return { pkg, patch };
  }

  it('edits only the replaced literal by default; --canonical rewrites the module; same evidence', async () => {
    const a = await setup();
    const preserved = await runCli(['apply', '--patch', a.patch, '--pkg', a.pkg, '--json']);
    expect(preserved.status, preserved.stderr).toBe(0);
    const pj = JSON.parse(preserved.stdout);
    expect(pj.data.canonical_fallbacks).toEqual([]);
    expect(readFileSync(join(a.pkg, 'main.gc'), 'utf8')).toBe(MODULE.replace('rate 20)', 'rate 25)'));

    const b = await setup();
    const canonical = await runCli(['apply', '--patch', b.patch, '--pkg', b.pkg, '--canonical', '--json']);
    expect(canonical.status, canonical.stderr).toBe(0);
    const cj = JSON.parse(canonical.stdout);
    const text = readFileSync(join(b.pkg, 'main.gc'), 'utf8');
    expect(text).toBe(printModule(canonicalizeSource(text)));
    expect(text).not.toContain(';');
    // Evidence bytes are identical: same report, package record, acceptance and patch addresses.
    for (const k of ['report_artifact', 'package_artifact', 'acceptance_artifact', 'patch_artifact']) expect(pj.data[k]).toBe(cj.data[k]);
    expect(readFileSync(join(a.pkg, 'package.toml'), 'utf8')).toBe(readFileSync(join(b.pkg, 'package.toml'), 'utf8'));
    expect((await runCli(['audit', '--pkg', a.pkg])).status).toBe(0);
  });

  it('--help of apply and refactor apply documents --canonical', async () => {
    expect((await runCli(['apply', '--help'])).stdout).toMatch(/--canonical\s+write touched modules in canonical print/);
    expect((await runCli(['refactor', 'apply', '--help'])).stdout).toMatch(/--canonical\s+write touched modules in canonical print/);
  });
});
