/** CLI commands over weavatrix.edit-plan.v1: `edit-plan validate|apply|recover`. Thin: read, call, render. */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import {
  applyPlanToRoot,
  decodeEditPlanBytes,
  editErrorToJson,
  recover,
  unifiedDiff,
  validateEditPlan,
  type EditPlan,
  type FileOutcome,
} from '../editplan/index.js';
import { ioError, isGcError } from '../util/errors.js';
import { printJson, reportError, type CliContext } from './context.js';
import { lockWaitMs } from './recover.js';
import { exitTable } from './exit-help.js';

const EXIT_CODES =
  exitTable([
    ['ok', 'ok'],
    ['invalidInput', 'invalid plan (decode, validation, positions, overlaps, paths, links)'],
    ['verificationFailed', 'verification failed (SOURCE_HASH_MISMATCH, SOURCE_MISSING, BEFORE_MISMATCH, RECOVERY_CONFLICT)'],
    ['io', 'I/O error (and RECOVERY_REQUIRED, JOURNAL_INVALID)'],
  ]) +
  '\n' +
  'With --json, failures print {"ok":false,"error":{"code","message","exitCode","fileIndex"?,"editIndex"?,\n' +
  '"relatedEditIndex"?,"mismatch"?,"location"?,"details"?}}; branch on "code", not on the message.\n';

/** Reads and decodes a plan file (`-` = standard input); decode errors get the plan file as location. */
function loadPlan(file: string): EditPlan {
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(file === '-' ? 0 : file);
  } catch (error) {
    throw ioError(error, file, 'read');
  }
  try {
    return decodeEditPlanBytes(bytes);
  } catch (error) {
    throw isGcError(error) ? error.withLocation({ file: file === '-' ? '<stdin>' : file }) : error;
  }
}

/** Runs `fn`; a GcError naming a file entry gets that entry's path as its location. */
function naming<T>(plan: EditPlan, fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    if (isGcError(error) && error.location.fileIndex !== undefined && error.location.file === undefined) {
      const path = plan.files[error.location.fileIndex]?.path;
      if (typeof path === 'string') throw error.withLocation({ file: path });
    }
    throw error;
  }
}

/**
 * Runs a command body; with `--json`, a GcError is printed as `{ok:false,error}` on stdout (and the
 * usual one-line form on stderr) and becomes the exit code; without it, it propagates to `main`.
 */
function run(ctx: CliContext, json: boolean | undefined, body: () => void): void {
  try {
    body();
  } catch (error) {
    if (!json || !isGcError(error)) throw error;
    reportError(ctx, error, true, editErrorToJson(error));
    ctx.exitCode = error.exitCode;
  }
}

function fileJson(f: FileOutcome): Record<string, unknown> {
  return {
    fileIndex: f.fileIndex,
    path: f.path,
    beforeSha256: f.beforeSha256,
    afterSha256: f.afterSha256,
    bytesBefore: f.bytesBefore,
    bytesAfter: f.bytesAfter,
    edits: f.editsApplied,
    changed: f.changed,
  };
}

function edits(count: number): string {
  return count === 1 ? '1 edit' : `${count} edits`;
}

function diffOf(files: FileOutcome[]): string {
  return files.map((f) => unifiedDiff(f.path, f.sourceText, f.outputText, f.changes)).join('');
}

/** Registers `edit-plan validate`, `edit-plan apply` and `edit-plan recover` on `program`. */
export function registerEditPlanCommands(program: Command, ctx: CliContext): void {
  const group = program
    .command('edit-plan')
    .summary('validate and apply weavatrix.edit-plan.v1 text edit plans')
    .description(
      'Decode, validate and apply weavatrix.edit-plan.v1 plans (exact-range text edits over files whose ' +
        'SHA-256 the plan records) as one crash-recoverable filesystem transaction.',
    )
    .addHelpText('after', EXIT_CODES);
  registerValidate(group, ctx);
  registerApply(group, ctx);
  registerRecover(group, ctx);
}

/** `gcpatch edit-plan validate`: decode and validate a plan, and with --root check its files; writes nothing. */
function registerValidate(group: Command, ctx: CliContext): void {
  group
    .command('validate')
    .summary('check a plan, and with --root the files it edits; writes nothing')
    .description(
      'Decode and validate PLAN.json (schema, paths, budgets, edit ranges, provenance). With --root, also ' +
        'check that every file exists inside DIR (no symlink escapes), hashes to the plan sha256, and that every ' +
        'edit resolves, matches its `before` text, does not overlap and fits the output budget. Writes nothing.',
    )
    .argument('<plan>', 'plan JSON file, or - for standard input')
    .option('--root <dir>', 'the directory the plan paths are relative to (for plans from `gcpatch refactor --edit-plan`: the package directory)')
    .option('--json', 'machine-readable output')
    .addHelpText('after', EXIT_CODES)
    .action((planFile: string, opts: { root?: string; json?: boolean }) => {
      run(ctx, opts.json, () => {
        const plan = loadPlan(planFile);
        const totals = naming(plan, () => validateEditPlan(plan));
        const result = opts.root === undefined ? undefined : naming(plan, () => applyPlanToRoot(plan, opts.root!, { dryRun: true }));
        if (opts.json) {
          const out: Record<string, unknown> = {
            ok: true,
            totalFiles: totals.files,
            totalEdits: totals.totalEdits,
            totalTextBytes: totals.totalTextBytes,
            verified: result !== undefined,
          };
          if (result !== undefined) out.files = result.files.map(fileJson);
          printJson(ctx, out);
          return;
        }
        for (const f of result?.files ?? []) {
          ctx.stdout(`ok ${f.path}: sha256 matches, ${edits(f.editsApplied)} apply (${f.bytesBefore} → ${f.bytesAfter} bytes)\n`);
        }
        const where = result === undefined ? '' : ` and verified against ${result.root}`;
        ctx.stdout(`plan is valid${where}: ${totals.files} files, ${totals.totalEdits} edits, ${totals.totalTextBytes} text bytes\n`);
      });
    });
}

/** `gcpatch edit-plan apply`: apply a plan under --root as one journaled transaction. */
function registerApply(group: Command, ctx: CliContext): void {
  group
    .command('apply')
    .summary('apply a plan to the files under --root as one transaction')
    .description(
      'Apply PLAN.json to the files under --root as one transaction: verify every file first (containment, ' +
        'SHA-256, before texts, overlaps, sizes), stage the outputs next to their targets, then commit with a ' +
        'journal in DIR/.gcpatch/ so that a crash leaves all old or all new files after `edit-plan recover`.',
    )
    .argument('<plan>', 'plan JSON file, or - for standard input')
    .requiredOption('--root <dir>', 'the directory the plan paths are relative to (for plans from `gcpatch refactor --edit-plan`: the package directory)')
    .option('--dry-run', 'check everything and report, write nothing')
    .option('--lock-wait <ms>', 'wait this long for a running gcpatch writing into --root to finish', '0')
    .option('--diff', 'print a unified diff of the changes')
    .option('--json', 'machine-readable output (the diff, if asked for, is the "diff" member)')
    .addHelpText('after', EXIT_CODES)
    .action((planFile: string, opts: { root: string; dryRun?: boolean; lockWait: string; diff?: boolean; json?: boolean }) => {
      run(ctx, opts.json, () => {
        const plan = loadPlan(planFile);
        const waitMs = lockWaitMs(opts.lockWait);
        const result = naming(plan, () => applyPlanToRoot(plan, opts.root, { dryRun: opts.dryRun === true, lockWaitMs: waitMs }));
        if (opts.json) {
          const out: Record<string, unknown> = {
            ok: true,
            dryRun: result.dryRun,
            root: result.root,
            files: result.files.map(fileJson),
            cleanupPending: result.cleanupPending,
          };
          if (opts.diff) out.diff = diffOf(result.files);
          printJson(ctx, out);
          return;
        }
        if (opts.diff) ctx.stdout(diffOf(result.files));
        const verb = result.dryRun ? 'would apply' : 'applied';
        for (const f of result.files) {
          ctx.stdout(`${verb} ${f.path}: ${edits(f.editsApplied)} (${f.bytesBefore} → ${f.bytesAfter} bytes)${f.changed ? '' : ', content unchanged'}\n`);
        }
        ctx.stdout(`${verb} ${result.files.length} files under ${result.root}\n`);
        if (result.cleanupPending) {
          ctx.stderr(`warning: the changes are committed but temporary files remain; run \`gcpatch edit-plan recover --root ${opts.root}\`\n`);
        }
      });
    });
}

/** `gcpatch edit-plan recover`: finish or undo an interrupted apply under --root. */
function registerRecover(group: Command, ctx: CliContext): void {
  group
    .command('recover')
    .summary('finish or undo an interrupted apply under --root')
    .description(
      'Finish or undo an interrupted `edit-plan apply` under --root using its journal: roll back unless the ' +
        'commit point was reached; never touches a file matching neither its before nor its after hash.',
    )
    .requiredOption('--root <dir>', 'repository root of the interrupted transaction')
    .option('--lock-wait <ms>', 'wait this long for a running gcpatch writing into --root to finish', '0')
    .option('--json', 'machine-readable output')
    .addHelpText('after', EXIT_CODES)
    .action((opts: { root: string; lockWait: string; json?: boolean }) => {
      run(ctx, opts.json, () => {
        const result = recover(opts.root, { lockWaitMs: lockWaitMs(opts.lockWait) });
        if (opts.json) {
          printJson(ctx, { ok: true, ...result });
          return;
        }
        if (result.action === 'none') ctx.stdout('nothing to recover\n');
        else {
          for (const f of result.files) ctx.stdout(`${f.action} ${f.path}\n`);
          ctx.stdout(`${result.action === 'completed' ? 'completed the interrupted commit' : 'rolled back'}: ${result.files.length} files\n`);
        }
      });
    });
}
