/**
 * `gcpatch verify-pr --base REV --head REV`: the GitHub Action's checks, run locally on a
 * repository (`src/verify-pr/verify-pr.ts`). Thin: parse options, call `auditPullRequest`
 * (imported when the command runs, so the other `gcpatch` commands do not load the PR audit), render.
 */
import type { Command } from 'commander';
import { countBySeverity, messageWithoutLocation, type AuditReport } from '../verify-pr/report/findings.js';
import { ExitCode, GcError } from '../util/errors.js';
import { stringifyJson } from '../util/json.js';
import { reportError, type CliContext } from './context.js';
import { exitHelp } from './exit-help.js';

/** Options of the `verify-pr` command as commander parses them. */
interface VerifyPrOptions {
  base: string;
  head: string;
  packages?: string[];
  failOn: string;
  outsidePackage: string;
  replay: boolean;
  obligationRunner?: string;
  shard?: string;
  dir?: string;
  json?: boolean;
  policy?: string;
  attestation?: string;
}

const ROUTE_TEXT: Record<string, string> = {
  unchanged: 'no change that needs evidence',
  evidence: 'explained by its evidence, checked on its parent',
  'evidence-on-new-parent': 'explained by its evidence, made on another state and re-applied on its actual parent (rebase, cherry-pick, squash)',
  merge: 'explained by the structural merge of its parents',
  'merge+evidence': 'explained by the structural merge of its parents and its evidence',
};

/** Renders a report for people: one block per package, then every finding as `file:line: severity: code: message`. */
export function renderAuditText(report: AuditReport): string {
  const lines: string[] = [];
  const counts = countBySeverity(report.findings);
  const baseNote = report.base === report.baseRequested ? '' : ` (merge base of ${report.baseRequested.slice(0, 12)})`;
  lines.push(`base ${report.base.slice(0, 12)}${baseNote}, head ${report.head.slice(0, 12)}`);
  const outside = report.paths.filter((p) => p.packages.length === 0);
  if (report.packages.length === 0 && report.notSelected.length === 0) lines.push('no GenesisCode package changed');
  if (report.notSelected.length > 0) lines.push(`not selected (not verified): ${report.notSelected.join(', ')}`);
  for (const p of report.packages) {
    const evidence = Object.entries(p.evidence)
      .map(([k, n]) => `${n} ${k}`)
      .join(', ');
    lines.push(
      `package ${p.name || '?'} (${p.dir || '.'}): evidence ${evidence || 'none'}; replay ${p.replay.status}` +
        (p.replay.status === 'reproduced' ? ` (${counted(p.replay.modulesChanged, 'module')})` : '') +
        (p.replay.status === 'differs' && p.replay.mismatches.length > 0
          ? ` (${p.replay.mismatches.slice(0, 5).join(', ')}${p.replay.mismatches.length > 5 ? ', …' : ''})`
          : '') +
        `; ${counted(p.rows.filter((r) => r.result === 'pass').length, 'check')} passed`,
    );
    for (const c of p.commits) {
      if (c.route === 'unchanged' && c.evidence.length === 0) continue;
      const evidence =
        c.evidence.length === 0
          ? ''
          : ` [${c.evidence.map((e) => `${e.kind} ${e.address.slice(0, 12)}${e.route === 'actual-parent' ? ' re-applied' : ''}`).join(', ')}]`;
      const what = c.route === 'unexplained' ? `unexplained: ${[...c.mismatched, ...c.unexplained].join(', ')}` : ROUTE_TEXT[c.route];
      lines.push(`  commit ${c.commit.slice(0, 12)} ${c.subject}: ${what}${evidence}`);
    }
  }
  if (outside.length > 0) {
    lines.push(
      `outside every package: ${outside.length} path${outside.length === 1 ? '' : 's'} (${outside
        .slice(0, 5)
        .map((p) => p.path)
        .join(', ')}${outside.length > 5 ? ', …' : ''})`,
    );
  }
  for (const f of report.findings) {
    const where = f.file === undefined ? f.package || '.' : `${f.file}${f.line !== undefined ? `:${f.line}` : ''}`;
    lines.push(`${where}: ${f.severity}: ${f.code}: ${messageWithoutLocation(f)}`);
  }
  lines.push(
    `${report.ok ? 'verified' : 'FAILED'}: ${counted(report.verified, 'check')} passed, ${report.failed} failed; ` +
      `${counted(counts.error, 'error')}, ${counted(counts.warning, 'warning')} (fail-on ${report.failOn})`,
  );
  return lines.join('\n') + '\n';
}

/** `1 error`, `0 errors`, `2 errors`. */
function counted(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/** Registers `verify-pr` on `program` (its exit codes: the command's help). */
export function registerVerifyPrCommand(program: Command, ctx: CliContext): void {
  program
    .command('verify-pr')
    .summary('verify the evidence between two commits (what the GitHub Action runs)')
    .description(
      'Verify the refactor and apply evidence between two commits, as the GitHub Action does: re-hash new\n' +
        'evidence-store entries, verify refactor-plan and apply reports, replay the patches on the base\n' +
        'package and compare with the head, check pins, list .gc changes no evidence explains.\n' +
        'Every path that differs between the merge base and the head is accounted for (docs/security.md).\n' +
        'Reads git objects only (the work tree is not read). ' +
        exitHelp(
          [
            ['ok', 'verified'],
            ['verificationFailed', 'failed'],
            ['invalidInput', 'bad input'],
            ['io', 'missing history'],
          ],
          ', ',
        ) +
        '.',
    )
    .requiredOption('--base <rev>', 'base revision (the merge base with --head is compared)')
    .option('--head <rev>', 'head revision', 'HEAD')
    .option('--packages <glob...>', 'package.toml globs to verify, comma- or space-separated or repeated; !glob excludes (default **/package.toml)')
    .option('--shard <i/n>', 'verify only the i-th of n deterministic shares of the changed packages (a CI matrix)')
    .option('--fail-on <level>', 'error | warning', 'error')
    .option('--outside-package <level>', '.gc files outside every package: notice (one, with the count) | warning (one each)', 'notice')
    .option('--no-replay', 'do not replay the apply evidence; match changed modules to the modules the patches name')
    .option('--obligation-runner <cmd>', 'run CMD in each touched package directory; it must print an accepted genesis/acceptance-v0.2 term')
    .option('--dir <dir>', 'a directory inside the repository (default: the current directory)')
    .option('--policy <file>', 'require signatures: a registry policy (TOML), repository-relative, read at the base commit (docs/security.md)')
    .option('--attestation <file>', 'also write the verdict as an in-toto Statement v1 (docs/action.md)')
    .option('--json', 'print the JSON report (gcpatch/pr-audit-v1)')
    .action(async (opts: VerifyPrOptions) => {
      if (opts.failOn !== 'error' && opts.failOn !== 'warning') {
        const error = new GcError('usage/invalid-option', `verify-pr: --fail-on must be error or warning, got ${JSON.stringify(opts.failOn)}`, {
          exitCode: ExitCode.invalidInput,
          details: { option: '--fail-on', value: opts.failOn, allowed: ['error', 'warning'] },
        });
        reportError(ctx, error, opts.json === true);
        ctx.exitCode = ExitCode.invalidInput;
        return;
      }
      if (opts.outsidePackage !== 'notice' && opts.outsidePackage !== 'warning') {
        const error = new GcError(
          'usage/invalid-option',
          `verify-pr: --outside-package must be notice or warning, got ${JSON.stringify(opts.outsidePackage)}`,
          {
            exitCode: ExitCode.invalidInput,
            details: { option: '--outside-package', value: opts.outsidePackage, allowed: ['notice', 'warning'] },
          },
        );
        reportError(ctx, error, opts.json === true);
        ctx.exitCode = ExitCode.invalidInput;
        return;
      }
      const { auditPullRequest } = await import('../verify-pr/verify-pr.js');
      // Options commander left unset are undefined, which auditPullRequest reads as its defaults;
      // `failOn` is the value checked above.
      const { json, failOn, policy, attestation, outsidePackage, ...audit } = opts;
      const { renderSigningText } = await import('./signing.js');
      const { applySigningOptions } = await import('../verify-pr/report/signed-verdict.js');
      const report = await applySigningOptions(await auditPullRequest({ ...audit, failOn, outsidePackage }), {
        policy,
        attestation,
        dir: opts.dir,
      });
      ctx.stdout(json ? stringifyJson(report, 2) + '\n' : renderSigningText(report) + renderAuditText(report));
      if (!report.ok) ctx.exitCode = ExitCode.verificationFailed;
    });
}
