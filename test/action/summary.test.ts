import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_ROWS_PER_PACKAGE, writeSummary } from '../../action/summary.js';
import type { AuditReport, CheckRow, PackageAudit } from '../../src/verify-pr/report/findings.js';
import { tempDir } from './helpers.js';

// @actions/core's summary remembers the file of its first write, so every test shares one file.
const saved = process.env.GITHUB_STEP_SUMMARY;
const SUMMARY_FILE = join(tempDir(), 'summary.md');
afterEach(() => {
  if (saved === undefined) delete process.env.GITHUB_STEP_SUMMARY;
  else process.env.GITHUB_STEP_SUMMARY = saved;
});

function pkg(i: number, rows: CheckRow[]): PackageAudit {
  return {
    dir: `pkgs/p${i}`,
    manifestPath: `pkgs/p${i}/package.toml`,
    name: `p${i}`,
    evidence: { 'apply-report': 1 },
    rows,
    replay: { status: 'reproduced', applied: ['a'.repeat(64)], modulesChanged: rows.length, mismatches: [], millis: 5 },
    changedModules: [],
    unexplainedModules: [],
    commits: [],
    state: 'present',
  };
}

function report(packages: PackageAudit[]): AuditReport {
  return {
    kind: 'gcpatch/pr-audit-v1',
    base: 'b'.repeat(40),
    baseRequested: 'b'.repeat(40),
    head: 'c'.repeat(40),
    paths: [],
    notSelected: [],
    failOn: 'error',
    replay: true,
    packages,
    findings: [],
    verified: 0,
    failed: 0,
    ok: true,
  };
}

async function summarize(r: AuditReport): Promise<string> {
  writeFileSync(SUMMARY_FILE, '');
  process.env.GITHUB_STEP_SUMMARY = SUMMARY_FILE;
  await writeSummary(r, { reportPath: '/tmp/report.json', baseSource: 'pull_request.base.sha', headSource: 'pull_request.head.sha' });
  return readFileSync(SUMMARY_FILE, 'utf8');
}

describe('job summary', () => {
  it('counts one finding in the singular', async () => {
    const f = { code: 'audit/unexplained-change' as const, severity: 'warning' as const, package: 'p', file: 'p/a.gc', message: 'changed' };
    const md = await summarize({ ...report([]), findings: [f] });
    expect(md).toContain('0 errors, 1 warning, 0 notices (fail-on: error).');
    expect(await summarize({ ...report([]), verified: 1 })).toContain('— 1 check passed, 0 failed; 0 errors, 0 warnings, 0 notices');
  });

  it('shows failures first when a table is capped', async () => {
    const rows: CheckRow[] = Array.from({ length: MAX_ROWS_PER_PACKAGE + 50 }, (_, i) => ({
      evidence: `m${i}.gc`,
      kind: 'module',
      check: 'replay',
      result: i === MAX_ROWS_PER_PACKAGE + 40 ? 'fail' : 'pass',
      detail: i === MAX_ROWS_PER_PACKAGE + 40 ? 'the <bad> one' : 'ok',
    }));
    const text = await summarize(report([pkg(0, rows)]));
    expect(text).toContain(`<td>m${MAX_ROWS_PER_PACKAGE + 40}.gc</td><td>module</td><td>replay</td><td>❌ fail</td><td>the &lt;bad&gt; one</td>`);
    expect(text).toContain('50 more passing rows are in the JSON report.');
    expect(text).toContain('Replay: ✅ 1 apply report replayed on the base; 200 changed modules reproduced exactly (5 ms).');
  });

  it('stays under GitHub’s 1 MiB limit with many packages', async () => {
    const rows: CheckRow[] = Array.from({ length: MAX_ROWS_PER_PACKAGE }, (_, i) => ({
      evidence: `m${i}.gc`,
      kind: 'module',
      check: 'replay',
      result: 'pass',
      detail: 'x'.repeat(300),
    }));
    const text = await summarize(report(Array.from({ length: 100 }, (_, i) => pkg(i, rows))));
    expect(Buffer.byteLength(text)).toBeLessThan(1024 * 1024);
    expect(text).toMatch(/<p>\d+ more packages are in the JSON report \(the job summary is limited to 1 MiB\)\.<\/p>/);
  });
});
