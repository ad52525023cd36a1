/**
 * The job summary (`$GITHUB_STEP_SUMMARY`): the verdict, then per package the replay outcome and a
 * table of evidence, check and result. Kept well under GitHub's 1 MiB summary limit by capping
 * table rows per package (the JSON report has every row).
 */
import * as core from '@actions/core';
type SummaryTableRow = Parameters<typeof core.summary.addTable>[0][number];
import { countBySeverity, type AuditReport, type CheckResult, type CommitExplanation, type PackageAudit } from '../src/verify-pr/report/findings.js';

/** Rows shown per package table; failures are shown first. */
export const MAX_ROWS_PER_PACKAGE = 150;

/** Stop adding packages once the summary reaches this many UTF-16 units (GitHub rejects summaries over 1 MiB). */
export const MAX_SUMMARY_LENGTH = 800_000;

const RESULT_LABEL: Record<CheckResult, string> = { pass: '✅ pass', fail: '❌ fail', warn: '⚠️ warn', skip: '➖ skip' };

/** Escapes text for an HTML table cell (the summary tables are HTML). */
export function escapeCell(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function short(evidence: string): string {
  return /^[0-9a-f]{64}$/.test(evidence) ? `<code>${evidence.slice(0, 12)}</code>` : escapeCell(evidence);
}

/** One line describing a package's replay outcome. */
export function replayLine(p: PackageAudit): string {
  const r = p.replay;
  switch (r.status) {
    case 'reproduced':
      return p.commits.length === 0
        ? `Replay: ✅ ${r.applied.length} apply report${r.applied.length === 1 ? '' : 's'} replayed on the base; ${r.modulesChanged} changed module${r.modulesChanged === 1 ? '' : 's'} reproduced exactly (${r.millis} ms).`
        : `Replay: ✅ ${r.applied.length} apply report${r.applied.length === 1 ? '' : 's'} replayed commit by commit; ${r.modulesChanged} changed module${r.modulesChanged === 1 ? '' : 's'} reproduced exactly (${r.millis} ms).`;
    case 'differs':
      return `Replay: ❌ the head differs from the replayed evidence in ${r.mismatches.map(escapeCell).join(', ')}.`;
    case 'failed':
      return `Replay: ❌ a patch did not apply to the base package (${r.applied.length} applied).`;
    case 'disabled':
      return 'Replay: ➖ disabled (`replay: false`).';
    default:
      return 'Replay: ➖ no apply evidence in this change.';
  }
}

/** Commits shown per package in the "what explained each commit" table. */
export const MAX_COMMITS_PER_PACKAGE = 100;

/** A short, human description of how a commit was explained. */
export function commitRouteLabel(c: CommitExplanation): string {
  const rebased = c.evidence.some((e) => e.route === 'actual-parent');
  switch (c.route) {
    case 'unchanged':
      return '➖ no change that needs evidence';
    case 'evidence':
      return '✅ its evidence, checked on the state it was made on (its parent)';
    case 'evidence-on-new-parent':
      return '✅ its evidence, made on another state (rebase, cherry-pick or squash), re-planned and re-applied on its actual parent';
    case 'merge':
      return "✅ the structural merge of its parents (the merge driver's merge)";
    case 'merge+evidence':
      return `✅ the structural merge of its parents, then its evidence${rebased ? ' (re-applied)' : ''}`;
    default: {
      const what = [...c.mismatched.map((m) => `❌ ${m}`), ...c.unexplained.map((m) => `⚠️ ${m}`)];
      return `unexplained: ${what.slice(0, 10).join(', ')}${what.length > 10 ? ` and ${what.length - 10} more` : ''}`;
    }
  }
}

function commitRows(p: PackageAudit): SummaryTableRow[] {
  const header: SummaryTableRow = [
    { data: 'Commit', header: true },
    { data: 'Subject', header: true },
    { data: 'Evidence', header: true },
    { data: 'Explained by', header: true },
  ];
  const shown = p.commits.filter((c) => c.route !== 'unchanged' || c.evidence.length > 0).slice(0, MAX_COMMITS_PER_PACKAGE);
  return [
    header,
    ...shown.map((c) => [
      `<code>${c.commit.slice(0, 12)}</code>${c.parents.length > 1 ? ' (merge)' : ''}`,
      escapeCell(c.subject),
      c.evidence.length === 0 ? '—' : c.evidence.map((e) => `${escapeCell(e.kind)} ${short(e.address)}`).join('<br>'),
      escapeCell(commitRouteLabel(c)),
    ]),
  ];
}

function packageRows(p: PackageAudit): { rows: SummaryTableRow[]; hidden: number } {
  const order: Record<CheckResult, number> = { fail: 0, warn: 1, pass: 2, skip: 3 };
  const sorted = p.rows.map((r, i) => ({ r, i })).sort((a, b) => order[a.r.result] - order[b.r.result] || a.i - b.i);
  const shown = sorted.slice(0, MAX_ROWS_PER_PACKAGE).sort((a, b) => a.i - b.i);
  const header: SummaryTableRow = [
    { data: 'Evidence', header: true },
    { data: 'Kind', header: true },
    { data: 'Check', header: true },
    { data: 'Result', header: true },
    { data: 'Detail', header: true },
  ];
  return {
    rows: [header, ...shown.map(({ r }) => [short(r.evidence), escapeCell(r.kind), escapeCell(r.check), RESULT_LABEL[r.result], escapeCell(r.detail)])],
    hidden: p.rows.length - shown.length,
  };
}

/** `1 error`, `0 errors`, `2 errors`. */
function counted(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/**
 * Writes the job summary for `report`.
 * @param context `base`/`head` sources and the report path, shown in the header.
 */
export async function writeSummary(report: AuditReport, context: { reportPath: string; baseSource: string; headSource: string }): Promise<void> {
  const counts = countBySeverity(report.findings);
  const verdict = report.ok ? '✅ Evidence verified' : '❌ Evidence verification failed';
  const s = core.summary.addHeading('gcpatch: pull request evidence', 2);
  s.addRaw(
    `<p><strong>${verdict}</strong> — ${counted(report.verified, 'check')} passed, ${report.failed} failed; ` +
      `${counted(counts.error, 'error')}, ${counted(counts.warning, 'warning')}, ${counted(counts.notice, 'notice')} (fail-on: ${report.failOn}).</p>`,
    true,
  );
  const baseNote = report.base === report.baseRequested ? '' : ` (merge base of ${report.baseRequested.slice(0, 12)})`;
  s.addRaw(
    `<p>Base <code>${report.base.slice(0, 12)}</code>${baseNote} from ${escapeCell(context.baseSource)}, head <code>${report.head.slice(0, 12)}</code> from ${escapeCell(context.headSource)}. ` +
      `Full report: <code>${escapeCell(context.reportPath)}</code>.</p>`,
    true,
  );
  if (report.packages.length === 0 && report.notSelected.length === 0) s.addRaw('<p>No GenesisCode package changed between base and head.</p>', true);
  const outside = report.paths.filter((p) => p.packages.length === 0).length;
  s.addRaw(
    `<p>${report.paths.length} changed path${report.paths.length === 1 ? '' : 's'} accounted for` +
      `${outside > 0 ? ` (${outside} outside every package, not verified)` : ''}.` +
      `${
        report.notSelected.length > 0
          ? ` Not selected, not verified: ${report.notSelected
              .slice(0, 20)
              .map((m) => `<code>${escapeCell(m)}</code>`)
              .join(', ')}${report.notSelected.length > 20 ? ` and ${report.notSelected.length - 20} more` : ''}.`
          : ''
      }</p>`,
    true,
  );
  for (const [i, p] of report.packages.entries()) {
    if (s.stringify().length > MAX_SUMMARY_LENGTH) {
      s.addRaw(`<p>${report.packages.length - i} more packages are in the JSON report (the job summary is limited to 1 MiB).</p>`, true);
      break;
    }
    s.addHeading(`${escapeCell(p.name || '(unreadable)')} — ${escapeCell(p.dir || '.')}`, 3);
    const evidence = Object.entries(p.evidence)
      .map(([k, n]) => `${n} ${k}`)
      .join(', ');
    s.addRaw(`<p>New evidence: ${evidence === '' ? 'none' : escapeCell(evidence)}. ${replayLine(p)}</p>`, true);
    if (p.unexplainedModules.length > 0) {
      s.addRaw(
        `<p>⚠️ Changes no evidence explains: ${p.unexplainedModules
          .slice(0, 20)
          .map((m) => `<code>${escapeCell(m)}</code>`)
          .join(', ')}${p.unexplainedModules.length > 20 ? ` and ${p.unexplainedModules.length - 20} more` : ''}.</p>`,
        true,
      );
    }
    if (p.commits.length > 0) {
      s.addRaw('<p>What explained each commit:</p>', true);
      s.addTable(commitRows(p));
    }
    const { rows, hidden } = packageRows(p);
    s.addTable(rows);
    if (hidden > 0) s.addRaw(`<p>${hidden} more passing rows are in the JSON report.</p>`, true);
  }
  await s.write();
}
