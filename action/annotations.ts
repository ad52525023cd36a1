/**
 * File annotations for the audit's findings, within GitHub's limits (about 10 annotations per kind
 * per step, docs/reference/github-actions.md): the first findings of each severity are annotated on their
 * file and line; when there are more, the last slot carries a summary that points at the job
 * summary and the JSON report. Every finding is also printed to the log.
 */
import * as core from '@actions/core';
import type { AnnotationProperties } from '@actions/core';
import { messageWithoutLocation, type AuditFinding, type Severity } from '../src/verify-pr/report/findings.js';

/** Annotations per severity per step that GitHub displays. */
export const ANNOTATIONS_PER_KIND = 10;

/** One annotation to emit. */
export interface Annotation {
  severity: Severity;
  message: string;
  properties: AnnotationProperties;
}

/**
 * Chooses the annotations for `findings`: per severity the first `limit` findings, or the first
 * `limit - 1` and one summary when there are more.
 * @param reportPath named in the summary annotation.
 */
export function selectAnnotations(findings: readonly AuditFinding[], reportPath: string, limit = ANNOTATIONS_PER_KIND): Annotation[] {
  const out: Annotation[] = [];
  for (const severity of ['error', 'warning', 'notice'] as const) {
    const all = findings.filter((f) => f.severity === severity);
    const shown = all.length > limit ? all.slice(0, limit - 1) : all;
    for (const f of shown) {
      const properties: AnnotationProperties = { title: `gcpatch: ${f.title ?? f.code}` };
      if (f.file !== undefined) properties.file = f.file;
      if (f.line !== undefined) properties.startLine = f.line;
      out.push({ severity, message: `${messageWithoutLocation(f)} [${f.code}]`, properties });
    }
    if (all.length > shown.length) {
      const rest = all.length - shown.length;
      out.push({
        severity,
        message: `${rest} more ${severity}${rest === 1 ? '' : 's'} not annotated (GitHub shows about ${limit} per kind): see the job summary and ${reportPath}`,
        properties: { title: `gcpatch: ${rest} more ${severity}s` },
      });
    }
  }
  return out;
}

/** Emits the selected annotations and logs every finding. */
export function annotate(findings: readonly AuditFinding[], reportPath: string): void {
  for (const f of findings) {
    core.info(`${f.severity}: ${f.file ?? f.package ?? '.'}${f.line !== undefined ? `:${f.line}` : ''}: ${f.code}: ${messageWithoutLocation(f)}`);
  }
  for (const a of selectAnnotations(findings, reportPath)) {
    if (a.severity === 'error') core.error(a.message, a.properties);
    else if (a.severity === 'warning') core.warning(a.message, a.properties);
    else core.notice(a.message, a.properties);
  }
}
