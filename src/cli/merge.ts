/**
 * `gcpatch merge --base A --left B --right C`: three-way semantic merge of package workspaces
 * (genesis/patch-merge-v0.1), checked by the independent verifier before it is shown. Exit 0
 * merged, 1 conflicts (every conflict named by module, line and definition), 10 invalid input. Thin: load, call,
 * verify, render.
 */
import type { Command } from 'commander';
import { termToJson } from '../coreform/json.js';
import { decodeDiffReport } from '../diff/protocol.js';
import { workspaceSourceLoader, type WorkspaceSource } from '../git/source.js';
import { CONFLICT_EXPLANATIONS, type MergeConflict } from '../merge/report.js';
import { mergeWorkspaces } from '../merge/rules.js';
import { verifyMergeReport } from '../merge/verify.js';
import { ExitCode } from '../util/errors.js';
import { addReportOptions, describeDiff, readProvenance, saveReport, SOURCE_HELP, sourceJson, type ReportOptions } from './diff.js';
import { printJson, type CliContext } from './context.js';
import { describeConflict } from './describe.js';
import { exitHelp } from './exit-help.js';

/**
 * Renders conflicts one per entry: number, code, then the module (and line), the definition
 * `(def NAME …)` and what each side did (`describeConflict`), followed by the explanation of each
 * code. The hashes are in the report (`--json`, `--report`).
 */
export function conflictLines(conflicts: readonly MergeConflict[], sides: { base: WorkspaceSource; left: WorkspaceSource; right: WorkspaceSource }): string[] {
  const lines: string[] = [];
  conflicts.forEach((c, i) => {
    const [first, ...rest] = describeConflict(c, sides);
    lines.push(`  ${i + 1}. ${c.code}  ${first}`, ...rest);
  });
  const codes = [...new Set(conflicts.map((c) => c.code))];
  lines.push('', ...codes.map((code) => `  ${code}: ${CONFLICT_EXPLANATIONS[code]}`));
  return lines;
}

/** Registers `gcpatch merge`. */
export function registerMergeCommand(program: Command, ctx: CliContext): void {
  const cmd = program
    .command('merge')
    .summary('three-way semantic merge of package versions')
    .description(
      'Three-way semantic merge of package workspaces (genesis/patch-merge-v0.1),\n' +
        'module by module and top-level form by form. Every conflict is reported; a\n' +
        'conflicted merge produces no merged workspace or patch. The report is\n' +
        'checked by the independent verifier before it is printed.\n\n' +
        SOURCE_HELP +
        '\n\n' +
        exitHelp([
          ['ok', 'merged'],
          ['conflicts', 'conflicts'],
          ['invalidInput', 'invalid input'],
          ['verificationFailed', 'verification failed'],
          ['io', 'I/O error'],
        ]) +
        '.',
    )
    .requiredOption('--base <side>', 'common ancestor, e.g. $(git merge-base a b)')
    .requiredOption('--left <side>', 'one branch (directory or REV[:PATH])')
    .requiredOption('--right <side>', 'the other branch');
  addReportOptions(cmd, "also store the report in the left package's .genesis/store/").action(
    async (opts: ReportOptions & { base: string; left: string; right: string }) => {
      const load = workspaceSourceLoader();
      const base = await load(opts.base);
      const left = await load(opts.left);
      const right = await load(opts.right);
      const { admitted, report } = mergeWorkspaces(base.workspace, left.workspace, right.workspace, {
        intent: opts.intent,
        provenance: readProvenance(opts.provenance),
      });
      const decoded = verifyMergeReport(admitted, report);
      const storeAddress = saveReport(report, opts, left.packageDir);
      if (!decoded.ok) ctx.exitCode = ExitCode.conflicts;
      if (opts.json) {
        printJson(ctx, {
          ok: decoded.ok,
          sources: { base: sourceJson(base), left: sourceJson(left), right: sourceJson(right) },
          report: termToJson(report),
          reportFile: opts.report,
          storeAddress,
        });
        return;
      }
      const lines = [
        `merge base ${base.label}, left ${left.label}, right ${right.label}`,
        `  base-h  ${decoded.baseH}`,
        `  left-h  ${decoded.leftH}`,
        `  right-h ${decoded.rightH}`,
      ];
      if (decoded.ok) {
        lines.push(
          `merged cleanly: ${decoded.merged!.items.length} modules`,
          `  merged-h ${decoded.mergedH!}`,
          'diff base -> merged:',
          ...describeDiff(decodeDiffReport(decoded.diff!), { base }),
        );
      } else {
        lines.push(
          `${decoded.conflictCount} conflict${decoded.conflictCount === 1 ? '' : 's'}; no merged workspace or patch is produced:`,
          ...conflictLines(decoded.conflicts, { base, left, right }),
        );
      }
      lines.push('verified: the report passed the independent merge verifier');
      if (opts.report !== undefined) lines.push(`report written to ${opts.report}`);
      if (storeAddress !== undefined) lines.push(`report stored as ${storeAddress}`);
      ctx.stdout(lines.join('\n') + '\n');
    },
  );
}
