/**
 * CLI commands `gcpatch merge-file` and `gcpatch solve` (docs/driver.md): the merge driver's
 * engine on three loose files, and on files that already hold conflicts. Thin: options, one
 * library call (src/textmerge/solve.ts), render.
 */
import type { Command } from 'commander';
import { conflictedPaths, mergeLooseFiles, solveFile, type SolveResult } from '../textmerge/solve.js';
import type { ConflictStyle } from '../textmerge/common/diff3.js';
import { writeFileAtomic } from '../util/atomic.js';
import { ExitCode, GcError } from '../util/errors.js';
import { printJson, reportError, type CliContext } from './context.js';
import { exitHelp } from './exit-help.js';

interface MergeFileOptions {
  label: string[];
  diff3?: boolean;
  zdiff3?: boolean;
  markerSize?: string;
  manifest?: boolean;
  stdout?: boolean;
  output?: string;
  json?: boolean;
}

const collect = (value: string, previous: string[]): string[] => [...previous, value];

function styleOption(opts: { diff3?: boolean; zdiff3?: boolean }): ConflictStyle | undefined {
  return opts.diff3 === true || opts.zdiff3 === true ? 'diff3' : undefined;
}

function mergeFileAction(ctx: CliContext, base: string, ours: string, theirs: string, opts: MergeFileOptions): void {
  const usage = (message: string): never => {
    throw new GcError('merge-file/usage', message, { exitCode: ExitCode.invalidInput });
  };
  if (opts.label.length > 3) usage('-L is given at most three times (ours, base, theirs)');
  if (opts.stdout && opts.output !== undefined) usage('use either -p or -o, not both');
  if (opts.stdout && opts.json) usage('--json prints the summary on stdout: use -o FILE with it instead of -p');
  let markerSize: number | undefined;
  if (opts.markerSize !== undefined) {
    markerSize = Number(opts.markerSize);
    if (!Number.isInteger(markerSize) || markerSize < 1 || markerSize > 1000) usage(`--marker-size ${opts.markerSize}: expected a whole number from 1 to 1000`);
  }
  const [oursLabel, baseLabel, theirsLabel] = opts.label;
  const r = mergeLooseFiles(
    { base, ours, theirs },
    {
      ...(opts.manifest ? { mode: 'manifest' as const } : {}),
      markerSize,
      style: styleOption(opts),
      labels: { ours: oursLabel, base: baseLabel, theirs: theirsLabel },
    },
  );
  const target = opts.stdout ? undefined : (opts.output ?? ours);
  if (target === undefined) process.stdout.write(r.result);
  else if (r.method !== 'kept-ours' || target !== ours) writeFileAtomic(target, r.result);
  for (const m of r.messages) ctx.stderr(`${m}\n`);
  ctx.exitCode = Math.min(r.conflicts, 127);
  if (opts.json) {
    printJson(ctx, { ok: true, conflicts: r.conflicts, method: r.method, reason: r.reason ?? null, output: target ?? null, messages: r.messages });
  }
}

/** Registers `merge-file` and `solve` on `program`. */
export function registerMergeFileCommands(program: Command, ctx: CliContext): void {
  program
    .command('merge-file')
    .summary("merge three loose files with the merge driver's engine")
    .description(
      'Merge BASE, OURS and THEIRS exactly as the git merge driver would (structural merge of .gc\n' +
        'modules, or of package.toml with --manifest or when OURS is named package.toml; git merge-file\n' +
        'as the fallback) and write the result over OURS (like git merge-file), to OUT (-o) or stdout (-p).\n' +
        "Labels: -L up to three times, in git merge-file's order: ours, base, theirs.\n" +
        'Conflict style: --diff3 (or --zdiff3, written as diff3), else merge.conflictStyle.\n' +
        "Exit status: the number of conflicts (0 clean, at most 127, as git merge-file); on errors the table's codes\n" +
        '(10 bad option value, 70 unreadable file), with the error on stderr (and as JSON with --json).',
    )
    .argument('<base>', 'the merge base')
    .argument('<ours>', 'our version (overwritten with the result unless -p or -o)')
    .argument('<theirs>', 'their version')
    .option('-L, --label <label>', 'conflict label: first ours, then base, then theirs', collect, [])
    .option('--diff3', 'diff3 markers (with the base section)')
    .option('--zdiff3', 'the same as --diff3 here')
    .option('--marker-size <n>', 'conflict marker length (default 7)')
    .option('--manifest', 'merge as package.toml')
    .option('-p, --stdout', 'write the result to stdout instead of OURS')
    .option('-o, --output <file>', 'write the result to FILE instead of OURS')
    .option('--json', 'machine-readable summary on stdout (not with -p)')
    .action((base: string, ours: string, theirs: string, opts: MergeFileOptions) => {
      try {
        mergeFileAction(ctx, base, ours, theirs, opts);
      } catch (error) {
        if (!(error instanceof GcError)) throw error;
        // The exit-code table's code (10 usage, 70 unreadable), not git merge-file's 255: every
        // gcpatch command stays inside the table (README "Exit codes").
        reportError(ctx, error, opts.json === true);
        ctx.exitCode = error.exitCode;
      }
    });

  program
    .command('solve')
    .summary("re-resolve files that hold conflicts, with the merge driver's engine")
    .description(
      "Re-merge each FILE with the merge driver's engine and rewrite it (atomically): from git's index\n" +
        '(stages 1-3) when the file is unmerged in a merge, rebase, cherry-pick or revert, else from\n' +
        'diff3-style conflict markers in the file (a base section is needed: `git checkout --conflict=diff3\n' +
        '-- FILE`). Without FILE: every unmerged .gc file and package.toml. Nothing is staged.\n' +
        'An unmerged file that holds no conflict markers was resolved by hand: it is skipped unless --force.\n' +
        exitHelp(
          [
            ['ok', 'when every file is resolved'],
            ['conflicts', 'when conflicts remain (or a file was skipped)'],
            ['invalidInput', 'for markers without a base section'],
            ['io', 'on I/O errors'],
          ],
          ', ',
        ) +
        '.',
    )
    .argument('[files...]', 'files to solve (default: the unmerged .gc files and package.toml)')
    .option('--diff3', 'write diff3 markers for conflicts that remain')
    .option('--force', 're-merge unmerged files from the index even when they hold no markers (replaces hand edits)')
    .option('--json', 'machine-readable output')
    .action((files: string[], opts: { diff3?: boolean; force?: boolean; json?: boolean }) => {
      const cwd = process.cwd();
      const targets = files.length > 0 ? files : conflictedPaths(cwd);
      const results: SolveResult[] = targets.map((f) => solveFile(f, { cwd, style: styleOption(opts), force: opts.force === true }));
      const open = results.filter((r) => r.status === 'conflicts' || r.status === 'skipped');
      ctx.exitCode = open.length > 0 ? ExitCode.conflicts : ExitCode.ok;
      if (opts.json) {
        printJson(ctx, { ok: open.length === 0, files: results });
        return;
      }
      for (const r of results) {
        for (const m of r.messages) ctx.stderr(`${m}\n`);
        ctx.stdout(`${r.file}: ${r.message}${r.source === 'none' ? '' : ` [from ${r.source === 'index' ? "git's index" : 'the markers'}]`}\n`);
      }
      if (results.length === 0) ctx.stdout('no unmerged .gc files or package.toml\n');
      else if (open.length > 0) ctx.stdout(`${open.length} file(s) still conflicted: resolve, then git add\n`);
      else ctx.stdout('all resolved: review, then git add\n');
    });
}
