/**
 * `verify-pr --policy` and `--attestation` on a finished report (docs/security.md "Signed
 * acceptances", docs/action.md "The verdict as an attestation"): the signature policy
 * (`signature-policy.ts`, the policy read at the base commit), then the in-toto statement of the
 * verdict (`attestation.ts`) written atomically. The CLI and the Action both call this.
 */
import { resolve } from 'node:path';
import { writeFileAtomic } from '../../util/atomic.js';
import { stringifyJson } from '../../util/json.js';
import { prAuditStatement } from './attestation.js';
import type { AuditReport } from './findings.js';
import { checkSignaturePolicy } from '../checks/signature-policy.js';

/** Options of {@link applySigningOptions}: a policy path (repository-relative), a statement file, the repository directory. */
export interface SigningOptions {
  policy?: string | undefined;
  attestation?: string | undefined;
  dir?: string | undefined;
}

/**
 * Applies `--policy` (findings, rows, `signing` section; `ok` recomputed) and then writes
 * `--attestation`, so the statement attests the final verdict. Changes `report` in place.
 * @throws GcError `git/*`; `io/*` (exit 70) when the statement cannot be written.
 */
export async function applySigningOptions<R extends AuditReport>(report: R, opts: SigningOptions): Promise<R> {
  const dir = opts.dir !== undefined ? { dir: opts.dir } : {};
  if (opts.policy !== undefined) await checkSignaturePolicy(report, { ...dir, policy: opts.policy });
  if (opts.attestation !== undefined) writeFileAtomic(resolve(opts.attestation), stringifyJson(await prAuditStatement(report, dir), 2) + '\n');
  return report;
}
