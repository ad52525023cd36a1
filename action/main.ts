/**
 * The GitHub Action's main: read the settings, audit the evidence between base and head
 * (`src/verify-pr/verify-pr.ts`), then report — JSON report file, annotations, job summary, outputs —
 * and fail the step on any finding at or above `fail-on`. No decision is made here.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import * as core from '@actions/core';
import { isFailing } from '../src/verify-pr/report/findings.js';
import { auditPullRequest } from '../src/verify-pr/verify-pr.js';
import { stringifyJson } from '../src/util/json.js';
import { annotate } from './annotations.js';
import { getSettings } from './input-helper.js';
import { writeSummary } from './summary.js';
import { applySigning, getSigningSettings } from './signing.js';

/** `core.setOutput`, but a failure to write the output file (GITHUB_OUTPUT missing, unwritable) is a warning, never a throw. */
function setOutputSafely(name: string, value: string | number): void {
  try {
    core.setOutput(name, value);
  } catch (error) {
    core.warning(`gcpatch: cannot write output ${name}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Runs the Action once. Never throws, never prints a stack trace: failures end in one `core.setFailed` line (exit code 1). */
export async function run(): Promise<void> {
  try {
    const settings = getSettings();
    const { audit } = settings;
    core.info(`gcpatch: verifying evidence between ${audit.base} (${settings.baseSource}) and ${audit.head} (${settings.headSource})`);
    const signing = getSigningSettings(settings.reportPath);
    const report = await applySigning(await auditPullRequest(audit), signing, audit.dir);
    mkdirSync(dirname(settings.reportPath), { recursive: true });
    writeFileSync(settings.reportPath, stringifyJson(report, 2) + '\n');
    annotate(report.findings, settings.reportPath);
    await writeSummary(report, settings).catch((error: unknown) =>
      core.warning(`gcpatch: cannot write the job summary: ${error instanceof Error ? error.message : String(error)}`),
    );
    setOutputSafely('verified', report.verified);
    setOutputSafely('failed', report.failed);
    setOutputSafely('report-path', settings.reportPath);
    if (!report.ok) {
      const failing = report.findings.filter((f) => isFailing(f, report.failOn));
      core.setFailed(`gcpatch: ${failing.length} finding${failing.length === 1 ? '' : 's'} failed verification (first: ${failing[0]?.message ?? 'unknown'})`);
    }
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const code = (error as { code?: unknown } | undefined)?.code;
    setOutputSafely('verified', 0);
    setOutputSafely('failed', 1);
    await core.summary
      .addHeading('gcpatch: pull request evidence', 2)
      .addRaw(`<p><strong>❌ Could not verify</strong>: ${message.replace(/&/g, '&amp;').replace(/</g, '&lt;')}</p>`, true)
      .write()
      .catch(() => undefined);
    core.setFailed(`gcpatch: ${typeof code === 'string' ? `${code}: ` : ''}${message.split('\n')[0]}`);
  }
}
