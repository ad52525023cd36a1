import { describe, expect, it } from 'vitest';
import { ANNOTATIONS_PER_KIND, selectAnnotations } from '../../action/annotations.js';
import { escapeCell } from '../../action/summary.js';
import type { AuditFinding } from '../../src/verify-pr/report/findings.js';

function findings(n: number, severity: AuditFinding['severity']): AuditFinding[] {
  return Array.from({ length: n }, (_, i) => ({
    code: 'audit/unexplained-change',
    severity,
    message: `${severity} ${i}`,
    package: 'pkg',
    file: `pkg/m${i}.gc`,
    line: i + 1,
    title: 'unexplained change',
  }));
}

describe('annotations within GitHub limits', () => {
  it('annotates every finding when there are at most 10 of a kind', () => {
    const a = selectAnnotations([...findings(10, 'error'), ...findings(2, 'warning')], '/tmp/r.json');
    expect(a.filter((x) => x.severity === 'error')).toHaveLength(10);
    expect(a.filter((x) => x.severity === 'warning')).toHaveLength(2);
    expect(a[0]).toEqual({
      severity: 'error',
      message: 'error 0 [audit/unexplained-change]',
      properties: { title: 'gcpatch: unexplained change', file: 'pkg/m0.gc', startLine: 1 },
    });
  });

  it('emits the first 9 and one summary when there are more', () => {
    const a = selectAnnotations([...findings(25, 'error'), ...findings(11, 'notice')], '/tmp/r.json');
    const errors = a.filter((x) => x.severity === 'error');
    expect(errors).toHaveLength(ANNOTATIONS_PER_KIND);
    expect(errors.slice(0, 9).map((x) => x.properties.file)).toEqual(findings(9, 'error').map((f) => f.file));
    expect(errors[9]!.message).toBe('16 more errors not annotated (GitHub shows about 10 per kind): see the job summary and /tmp/r.json');
    expect(errors[9]!.properties).toEqual({ title: 'gcpatch: 16 more errors' });
    const notices = a.filter((x) => x.severity === 'notice');
    expect(notices).toHaveLength(10);
    expect(notices[9]!.message).toMatch(/^2 more notices not annotated/);
  });

  it('leaves out line and file when unknown', () => {
    const [a] = selectAnnotations([{ code: 'audit/obligations-failed', severity: 'error', message: 'm', package: '' }], 'r');
    expect(a!.properties).toEqual({ title: 'gcpatch: audit/obligations-failed' });
  });

  it('escapes summary table cells', () => {
    expect(escapeCell('a <b> & c')).toBe('a &lt;b&gt; &amp; c');
  });
});
