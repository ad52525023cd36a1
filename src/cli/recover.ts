/**
 * `gcpatch recover`: finish or undo an interrupted `apply`, `refactor apply`, `pack` or
 * `edit-plan apply` in a package directory (either journal kind of `src/transaction/journal.ts`),
 * and {@link recoverFirst}, the step every package command runs before it reads the package.
 */
import type { Command } from 'commander';
import { recoverPackageCommand, recoverPendingTransaction } from '../patch/guard.js';
import type { RecoveryResult } from '../patch/transaction.js';
import { GcError } from '../util/errors.js';
import { stringifyJson } from '../util/json.js';
import { discoverManifest } from '../workspace/discover.js';
import { PKG_OPTION, type CliContext } from './context.js';
import { exitHelp } from './exit-help.js';

function describe(r: RecoveryResult): string {
  if (r.action === 'none') return 'nothing to recover';
  const restored = r.files.filter((f) => f.action === 'restored').length;
  return r.action === 'rolled-back'
    ? `rolled back an interrupted ${r.command ?? 'apply'} (${restored} of ${r.files.length} files restored)`
    : `completed an interrupted ${r.command ?? 'apply'} past its commit point (${r.files.length} files kept)`;
}

/**
 * Recovers an interrupted transaction of the package `pkg` before a command reads it, noting on
 * stderr what was done (stdout and `--json` output stay the command's own).
 * @throws GcError `patch/package-locked` (exit 70), `patch/recovery-conflict` (exit 50), `patch/journal-invalid` (exit 70).
 */
export function recoverFirst(ctx: CliContext, pkg: string): void {
  const r = recoverPendingTransaction(pkg);
  if (r.action !== 'none') ctx.stderr(`gcpatch: ${describe(r)}\n`);
}

/** Registers `gcpatch recover`. */
export function registerRecoverCommand(program: Command, ctx: CliContext): void {
  program
    .command('recover')
    .summary('finish or undo an interrupted apply, refactor apply, pack or edit-plan apply of a package')
    .description(
      'Finish or undo an interrupted apply, refactor apply, pack or edit-plan apply\n' +
        'of a package. Takes the package lock (breaking a stale lock of a dead process);\n' +
        'if a journal (.gcpatch/apply-journal.json or .gcpatch/editplan-journal.json)\n' +
        'is left, rolls the transaction back,\n' +
        'or finishes it when it had passed its commit point: the package is all-old\n' +
        'or all-new again. Every gcpatch command on a package does this first.\n' +
        'A file matching neither the recorded before nor after bytes stops it with\n' +
        'patch/recovery-conflict and nothing changed: inspect that file, run again.\n' +
        exitHelp(
          [
            ['ok', 'recovered or nothing to do'],
            ['verificationFailed', 'recovery conflict'],
            ['io', 'locked by a live process, damaged journal (patch/journal-invalid) or I/O'],
          ],
          ', ',
        ) +
        '.',
    )
    .option('--pkg <path>', PKG_OPTION)
    .option('--lock-wait <ms>', 'wait this long for a running gcpatch on the package to finish', '0')
    .option('--json', 'machine-readable output')
    .action((opts: { pkg?: string; lockWait: string; json?: boolean }) => {
      const r = recoverPackageCommand(discoverManifest(opts.pkg), { waitMs: lockWaitMs(opts.lockWait) });
      if (opts.json) {
        ctx.stdout(
          stringifyJson(
            { ok: true, kind: 'gcpatch/recover-v1', package: r.packageDir, action: r.action, txid: r.txid ?? null, command: r.command ?? null, files: r.files },
            2,
          ) + '\n',
        );
        return;
      }
      for (const f of r.files) ctx.stdout(`${f.action.padEnd(9)} ${f.path}\n`);
      ctx.stdout(`${describe(r)}\n`);
    });
}

/**
 * Parses a `--lock-wait` value: milliseconds, a non-negative integer up to one hour.
 * @throws GcError `usage/invalid-option` (exit 10).
 */
export function lockWaitMs(text: string): number {
  if (!/^[0-9]{1,7}$/.test(text) || Number(text) > 3_600_000) {
    throw new GcError('usage/invalid-option', `--lock-wait must be milliseconds between 0 and 3600000, got ${JSON.stringify(text)}`);
  }
  return Number(text);
}
