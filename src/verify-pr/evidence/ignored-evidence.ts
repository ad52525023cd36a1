/**
 * The hint for a package whose changes carry no evidence at all while the head's `.gitignore`
 * ignores its evidence paths: evidence that gcpatch commands wrote may exist on the author's disk
 * and never have been committed (docs/init.md "Why the evidence must be committed").
 */
import { evidenceProbePaths, ignoredPathsAtCommit } from '../../git/ignored.js';
import { AuditCode, type PackageAudit, type PackageFindings } from '../report/findings.js';

/** What the hint reads of the run (`RunContext` of `package-check.ts`): the repository's directory and the head commit. */
interface IgnoredEvidenceRun {
  repo: { dir: string };
  head: string;
}

/** What the hint reads of the package (`TouchedPackage` of `package-check.ts`): its directory and manifest path. */
interface IgnoredEvidencePackage {
  dir: string;
  manifestPath: string;
}

/**
 * Records one `audit/evidence-ignored` warning for `touched` when it has unexplained modules, no
 * new evidence of any kind, and the `.gitignore` files of the head commit ignore its store or its
 * `last_acceptance` (asked of git: `git check-ignore` over those files). Nothing otherwise.
 */
export function checkIgnoredEvidence(ctx: IgnoredEvidenceRun, touched: IgnoredEvidencePackage, audit: PackageAudit, out: PackageFindings): void {
  if (audit.unexplainedModules.length === 0 || Object.keys(audit.evidence).length > 0) return;
  const rule = ignoredPathsAtCommit(ctx.repo.dir, ctx.head, evidenceProbePaths(touched.dir))[0];
  if (rule === undefined) return;
  const n = audit.unexplainedModules.length;
  const where = touched.dir === '' ? '.genesis' : `${touched.dir}/.genesis`;
  out.fail('package', touched.manifestPath, 'evidence committed', {
    code: AuditCode.evidenceIgnored,
    severity: 'warning',
    message:
      `${touched.manifestPath}: ${n} changed module${n === 1 ? '' : 's'} carry no evidence, and the head's ${rule.source}:${rule.line} (${rule.pattern}) ignores ${where}/, ` +
      `so evidence the gcpatch commands wrote stays on disk and never reaches a commit; run \`gcpatch init\` (it adds the .gitignore exceptions), then \`git add ${where}\` and commit`,
    file: rule.source,
    line: rule.line,
    title: 'evidence ignored by .gitignore',
  });
}
