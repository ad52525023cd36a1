/** CLI command `gcpatch init` (docs/init.md). Thin: options, one library call, render. */
import type { Command } from 'commander';
import { initRepository, listed, undoInit, type InitReport } from '../init/init.js';
import { parseActionRef } from '../init/workflow.js';
import { ExitCode } from '../util/errors.js';
import { printJson, type CliContext } from './context.js';
import { exitHelp } from './exit-help.js';

/** Registers `gcpatch init` on `program`. */
export function registerInitCommand(program: Command, ctx: CliContext): void {
  program
    .command('init')
    .summary('make this repository ready: merge drivers, evidence in commits, the Action workflow')
    .description(
      'Make the repository ready for gcpatch, idempotently, and say what changed: install the merge drivers\n' +
        'and their .gitattributes lines (gcpatch driver install); keep a block at the end of .gitignore that\n' +
        "lets each package's evidence (.genesis/store entries and the pointer files beside it, nothing else\n" +
        'under .genesis/) reach commits and keeps transaction files out; write .github/workflows/gcpatch.yml\n' +
        'with the Action pinned by commit. Then asks git (check-ignore) whether the evidence reaches commits.\n' +
        '--undo removes what init added. ' +
        exitHelp([
          ['ok', 'ready'],
          ['verificationFailed', 'when something is left to do (listed)'],
          ['invalidInput', 'outside a repository'],
          ['io', 'when git or a write fails'],
        ]) +
        '.',
    )
    .option('--dry-run', 'say what would change; write nothing')
    .option('--action <owner/name@sha>', 'the Action to pin (default: the gcpatch checkout this CLI runs from)')
    .option('--no-workflow', 'do not write the workflow file')
    .option('--undo', 'remove what init added (the .gitignore block, an unchanged workflow, drivers init installed)')
    .option('--json', 'machine-readable output')
    .action((opts: { dryRun?: boolean; action?: string; workflow: boolean; undo?: boolean; json?: boolean }) => {
      const r = opts.undo
        ? undoInit({ dryRun: opts.dryRun === true })
        : initRepository({
            dryRun: opts.dryRun === true,
            workflow: opts.workflow,
            ...(opts.action !== undefined ? { action: parseActionRef(opts.action) } : {}),
          });
      if (r.problems.length > 0) ctx.exitCode = ExitCode.verificationFailed;
      if (opts.json) {
        printJson(ctx, { ok: r.problems.length === 0, ...r });
        return;
      }
      render(ctx, r, opts.undo === true);
    });
}

function render(ctx: CliContext, r: InitReport, undo: boolean): void {
  // created → would create, updated → would update, removed → would remove
  const verb = (a: string): string => (r.dryRun ? `would ${a.replace(/d$/, '')}` : a);
  for (const c of r.changes) {
    const action = c.action === 'unchanged' || c.action === 'skipped' ? c.action : verb(c.action);
    ctx.stdout(`${action.padEnd(r.dryRun ? 14 : 9)} ${c.what}${c.file !== undefined ? ` (${c.file})` : ''}: ${c.detail}\n`);
  }
  // One line per ignoring rule, with the packages it ignored (all of them in --json).
  const byRule = new Map<string, string[]>();
  for (const e of r.evidence) {
    if (e.wasIgnoredBy === undefined) continue;
    const key = `${e.wasIgnoredBy.source}:${e.wasIgnoredBy.line} (${e.wasIgnoredBy.pattern})`;
    byRule.set(key, [...(byRule.get(key) ?? []), e.package]);
  }
  for (const [rule, pkgs] of byRule) {
    const fixed = !r.dryRun && pkgs.every((p) => r.evidence.find((e) => e.package === p)?.stillIgnoredBy === undefined);
    ctx.stdout(
      `evidence  ${listed(pkgs)}: ${pkgs.length === 1 ? 'was' : 'were'} ignored by ${rule}${fixed ? `; ${pkgs.length === 1 ? 'now reaches' : 'now reach'} commits` : ''}\n`,
    );
  }
  for (const p of r.problems) ctx.stdout(`to do     ${p}\n`);
  if (undo) ctx.stdout(r.dryRun ? 'nothing written (--dry-run)\n' : 'init undone\n');
  else if (r.dryRun) ctx.stdout('nothing written (--dry-run)\n');
  else if (r.problems.length === 0) ctx.stdout('repository ready: commit .gitattributes, .gitignore and the workflow\n');
  else ctx.stdout('repository not ready: see "to do" above\n');
}
