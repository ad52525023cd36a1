/**
 * `verify-pr --attestation <file>` (docs/action.md "The verdict as an attestation"): the report as
 * an in-toto Statement v1 (https://in-toto.io/Statement/v1), so that `actions/attest` or any in-toto
 * signer can sign the verdict. Subjects: the head commit (`gitCommit` digest) and the package
 * record (`genesis/package-v0.2`) at the head of every audited package without a failing finding,
 * by its SHA-256 and its store address (`blake3`); predicate: the `gcpatch/pr-audit-v1` report.
 * A failed verdict is attested too (its `ok` is false, and failing packages are not subjects).
 */
import { storeAddress } from '../../coreform/hash.js';
import { printTerm } from '../../coreform/print.js';
import { openRepository, type GitRepository } from '../../git/repository.js';
import { packState } from '../../patch/apply/pack.js';
import { utf8 } from '../../util/bytes.js';
import { sha256Hex } from '../../util/sha256.js';
import { isFailing, type AuditReport } from './findings.js';
import { readPackageAtCommit, snapshotState } from '../evidence/package-at-commit.js';

/** The in-toto Statement type. */
export const STATEMENT_TYPE = 'https://in-toto.io/Statement/v1';
/** The predicate type of the gcpatch pull request verdict. */
export const PR_AUDIT_PREDICATE_TYPE = 'https://gcpatch.dev/attestation/pr-audit/v1';

/** One subject of the statement. */
export interface StatementSubject {
  name: string;
  digest: Record<string, string>;
}

/** The in-toto Statement v1 of a report. */
export interface PrAuditStatement {
  _type: typeof STATEMENT_TYPE;
  subject: StatementSubject[];
  predicateType: typeof PR_AUDIT_PREDICATE_TYPE;
  predicate: AuditReport;
}

/**
 * The package record of the package at `dir` at `commit`: its store address and the SHA-256 of its
 * canonical bytes; undefined when the package is absent or unreadable there.
 */
export async function packageRecordDigest(repo: GitRepository, commit: string, dir: string): Promise<{ blake3: string; sha256: string } | undefined> {
  try {
    const snap = await readPackageAtCommit(repo, commit, dir);
    if (snap === undefined) return undefined;
    const bytes = utf8(printTerm(packState(snapshotState(snap)).packageRecord));
    return { blake3: storeAddress(bytes), sha256: sha256Hex(bytes) };
  } catch {
    return undefined;
  }
}

/**
 * Builds the statement of `report` (see the module comment). Subjects are the head commit, then
 * the packages in report order, each named by its `package.toml` path.
 */
export async function prAuditStatement(report: AuditReport, options: { dir?: string } = {}): Promise<PrAuditStatement> {
  const repo = await openRepository(options.dir ?? process.cwd());
  const subject: StatementSubject[] = [{ name: `git:${report.head}`, digest: { gitCommit: report.head } }];
  for (const p of report.packages) {
    if (p.state !== 'present') continue;
    if (report.findings.some((f) => f.package === p.dir && isFailing(f, report.failOn))) continue;
    const d = await packageRecordDigest(repo, report.head, p.dir);
    if (d !== undefined) subject.push({ name: p.manifestPath, digest: { sha256: d.sha256, blake3: d.blake3 } });
  }
  return { _type: STATEMENT_TYPE, subject, predicateType: PR_AUDIT_PREDICATE_TYPE, predicate: report };
}
