/**
 * The GitHub Action's main: read the settings, audit the evidence between base and head
 * (`src/audit/verify-pr.ts`), then report — JSON report file, annotations, job summary, outputs —
 * and fail the step on any finding at or above `fail-on`. No decision is made here.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import * as core from '@actions/core';
import { auditPullRequest } from '../src/audit/verify-pr.js';
import { stringifyJson } from '../src/util/json.js';
import { annotate } from './annotations.js';
import { getSettings } from './input-helper.js';
import { writeSummary } from './summary.js';

/** Runs the Action once. Never throws: failures end in `core.setFailed` (exit code 1). */
export async function run(): Promise<void> {
  try {
    const settings = getSettings();
    core.info(`gcpatch: verifying evidence between ${settings.base} (${settings.baseSource}) and ${settings.head} (${settings.headSource})`);
    const report = await auditPullRequest({
      dir: settings.workspace,
      base: settings.base,
      head: settings.head,
      packages: settings.packages,
      failOn: settings.failOn,
      replay: settings.replay,
      ...(settings.obligationRunner !== undefined ? { obligationRunner: settings.obligationRunner } : {}),
    });
    mkdirSync(dirname(settings.reportPath), { recursive: true });
    writeFileSync(settings.reportPath, stringifyJson(report, 2) + '\n');
    annotate(report.findings, settings.reportPath);
    await writeSummary(report, settings);
    core.setOutput('verified', report.verified);
    core.setOutput('failed', report.failed);
    core.setOutput('report-path', settings.reportPath);
    if (!report.ok) {
      const failing = report.findings.filter((f) => f.severity === 'error' || (report.failOn === 'warning' && f.severity === 'warning'));
      core.setFailed(`gcpatch: ${failing.length} finding${failing.length === 1 ? '' : 's'} failed verification (first: ${failing[0]?.message ?? 'unknown'})`);
    }
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const code = (error as { code?: unknown } | undefined)?.code;
    core.setOutput('verified', 0);
    core.setOutput('failed', 1);
    await core.summary
      .addHeading('gcpatch: pull request evidence', 2)
      .addRaw(`<p><strong>❌ Could not verify</strong>: ${message.replace(/&/g, '&amp;').replace(/</g, '&lt;')}</p>`, true)
      .write()
      .catch(() => undefined);
    core.setFailed(`gcpatch: ${typeof code === 'string' ? `${code}: ` : ''}${message}`);
  }
}
