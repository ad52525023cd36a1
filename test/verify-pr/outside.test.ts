// `.gc` files outside every package: one notice with their count by default (the list is paths[]
// with role "outside"), one warning each with `outsidePackage: 'warning'`; `fail-on: warning`
// fails only in the second mode.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { auditPullRequest } from '../../src/verify-pr/verify-pr.js';
import { addShopPackage, commitAll, initRepo } from '../action/helpers.js';

function layout(files: number): { repo: string; base: string; head: string } {
  const repo = initRepo();
  addShopPackage(repo, 'pkgs/shop');
  const base = commitAll(repo, 'shop');
  mkdirSync(join(repo, 'tools/gen'), { recursive: true });
  for (let i = 0; i < files; i++) writeFileSync(join(repo, `tools/gen/t${i}.gc`), `(def tools/gen::t${i} ${i})\n`);
  writeFileSync(join(repo, 'README.md'), '# not a module\n');
  const head = commitAll(repo, 'tools');
  return { repo, base, head };
}

describe('.gc files outside every package', () => {
  it('are one notice with the count by default, listed in paths; fail-on warning still passes', async () => {
    const { repo, base, head } = layout(5);
    const report = await auditPullRequest({ dir: repo, base, head, failOn: 'warning' });
    expect(report.findings).toEqual([
      {
        code: 'audit/outside-package',
        severity: 'notice',
        message:
          '5 .gc files outside every package were added or changed (tools/gen/t0.gc, tools/gen/t1.gc, tools/gen/t2.gc, …); gcpatch verifies packages only. ' +
          'The list: paths[] with role "outside" in --json. To verify them, make them modules of a package; to make each one a warning, use --outside-package warning (the Action\'s outside-package input)',
        package: '',
        title: 'outside every package',
      },
    ]);
    expect(report.paths.filter((p) => p.role === 'outside' && p.path.endsWith('.gc')).map((p) => p.path)).toEqual([
      'tools/gen/t0.gc',
      'tools/gen/t1.gc',
      'tools/gen/t2.gc',
      'tools/gen/t3.gc',
      'tools/gen/t4.gc',
    ]);
    expect(report.ok).toBe(true);
  });

  it('are one warning each with outsidePackage: warning, and then fail-on warning fails', async () => {
    const { repo, base, head } = layout(2);
    const report = await auditPullRequest({ dir: repo, base, head, failOn: 'warning', outsidePackage: 'warning' });
    expect(report.findings.map((f) => `${f.severity} ${f.code} ${f.file} ${f.message}`)).toEqual([
      'warning audit/outside-package tools/gen/t0.gc tools/gen/t0.gc: a .gc file outside every package was added; gcpatch verifies packages only',
      'warning audit/outside-package tools/gen/t1.gc tools/gen/t1.gc: a .gc file outside every package was added; gcpatch verifies packages only',
    ]);
    expect(report.ok).toBe(false);
  });

  it('one file is "1 .gc file … was"; none is no finding (control)', async () => {
    const one = layout(1);
    const r1 = await auditPullRequest({ dir: one.repo, base: one.base, head: one.head });
    expect(r1.findings.map((f) => f.message.split(';')[0])).toEqual(['1 .gc file outside every package was added or changed (tools/gen/t0.gc)']);
    const none = layout(0);
    expect((await auditPullRequest({ dir: none.repo, base: none.base, head: none.head })).findings).toEqual([]);
  });
});
