/**
 * The Action's signing inputs and outputs (docs/action.md "Requiring signatures", "The verdict as
 * an attestation"): `policy` (a registry policy path, read at the base commit) and `attestation`
 * (`true`: write the verdict as an in-toto Statement v1 next to the report and set the
 * `attestation-path` output). Applied to the report by `src/verify-pr/signed-verdict.ts` `applySigningOptions`,
 * as `gcpatch verify-pr --policy/--attestation` does.
 */
import { dirname, join } from 'node:path';
import * as core from '@actions/core';
import { applySigningOptions } from '../src/verify-pr/report/signed-verdict.js';
import type { AuditReport } from '../src/verify-pr/report/findings.js';

/** The signing settings. */
export interface SigningSettings {
  policy: string | undefined;
  /** Where the statement is written, when asked for. */
  attestationPath: string | undefined;
}

/** Reads the `policy` and `attestation` inputs. @throws Error for a non-boolean `attestation`. */
export function getSigningSettings(reportPath: string): SigningSettings {
  const policy = core.getInput('policy').trim();
  const attest = core.getInput('attestation') === '' ? false : core.getBooleanInput('attestation');
  return { policy: policy === '' ? undefined : policy, attestationPath: attest ? join(dirname(reportPath), 'gcpatch-pr-audit.intoto.json') : undefined };
}

/** Applies the signing settings to `report` (in place) and sets `attestation-path` when written. */
export async function applySigning(report: AuditReport, settings: SigningSettings, dir: string): Promise<AuditReport> {
  await applySigningOptions(report, {
    ...(settings.policy !== undefined ? { policy: settings.policy } : {}),
    ...(settings.attestationPath !== undefined ? { attestation: settings.attestationPath } : {}),
    dir,
  });
  if (settings.attestationPath !== undefined) core.setOutput('attestation-path', settings.attestationPath);
  return report;
}
