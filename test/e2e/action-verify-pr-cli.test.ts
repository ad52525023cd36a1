// `gcpatch verify-pr`: the Action's checks through the built CLI (bin/gcpatch.js), on real repositories.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gcpatch } from '../helpers/cli.js';
import { commitAll, git, honestRenamePr, tempDir } from '../action/helpers.js';

describe('gcpatch verify-pr', () => {
  it('verifies an honest rename PR (text and --json) and exits 50 on a hidden edit', () => {
    const { repo, pkg, base, head } = honestRenamePr();
    const text = gcpatch(['verify-pr', '--base', 'main', '--head', 'rename-total'], { cwd: repo });
    expect(text.stderr).toBe('');
    expect(text.status).toBe(0);
    const lines = text.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(`base ${base.slice(0, 12)}, head ${head.slice(0, 12)}`);
    expect(lines[1]).toMatch(/^package shop \(pkgs\/shop\): evidence .*1 apply-report.*; replay reproduced \(3 modules\); \d+ checks passed$/);
    expect(lines.at(-1)).toMatch(/^verified: \d+ checks passed, 0 failed; 0 errors, 0 warnings \(fail-on error\)$/);

    const json = gcpatch(['verify-pr', '--base', base, '--json'], { cwd: pkg });
    expect(json.status).toBe(0);
    const report = JSON.parse(json.stdout);
    expect(report).toMatchObject({ kind: 'gcpatch/pr-audit-v1', base, head, ok: true, failed: 0 });

    const file = join(pkg, 'app/cart.gc');
    writeFileSync(file, readFileSync(file, 'utf8').replace('"EUR"', '"USD"'));
    commitAll(repo, 'currency');
    const failing = gcpatch(['verify-pr', '--base', 'main', '--packages', 'pkgs/**'], { cwd: repo });
    expect(failing.status).toBe(50);
    expect(failing.stdout).toMatch(/^pkgs\/shop\/app\/cart\.gc:\d+: error: audit\/replay-module-mismatch: /m);
    expect(failing.stdout).toMatch(/^FAILED: /m);
  });

  it('exits 70 with the fetch-depth hint on a shallow clone, and 10 on a bad --fail-on', () => {
    const { repo, base } = honestRenamePr();
    const clone = join(tempDir(), 'clone');
    git(tempDir(), 'clone', '-q', '--depth', '1', '--branch', 'rename-total', `file://${repo}`, clone);
    const r = gcpatch(['verify-pr', '--base', base], { cwd: clone });
    expect(r.status).toBe(70);
    expect(r.stderr).toContain('git/missing-commit');
    expect(r.stderr).toContain('fetch-depth: 0');
    expect(gcpatch(['verify-pr', '--base', 'main', '--fail-on', 'never'], { cwd: repo }).status).toBe(10);
  });
});
