/** CLI commands `gcpatch driver install | uninstall | doctor | repin`. Thin: options, one library call, render. */
import type { Command } from 'commander';
import { dirname } from 'node:path';
import { doctorWorkTree } from '../driver-setup/doctor.js';
import { installHooks, uninstallHooks } from '../driver-setup/hooks.js';
import { installDriver } from '../driver-setup/install.js';
import { repinStalePins } from '../driver-setup/repin.js';
import { uninstallDriver } from '../driver-setup/uninstall.js';
import { ExitCode, GcError } from '../util/errors.js';
import { repinCommand } from '../workspace/discover.js';
import { printJson, type CliContext } from './context.js';
import { exitHelp } from './exit-help.js';

/** Registers the `driver` command group on `program`. */
export function registerDriverCommands(program: Command, ctx: CliContext): void {
  const driver = program
    .command('driver')
    .summary('install, check or remove the git merge drivers')
    .description('The git merge drivers for .gc modules (merge=gcpatch) and package.toml (merge=gcpatch-manifest).');
  registerInstallCommand(driver, ctx);
  registerUninstallCommand(driver, ctx);
  registerDoctorCommand(driver, ctx);
  registerRepinCommand(driver, ctx);
}

/** `gcpatch driver install`: copy the driver, configure git and the attributes, check the line once. */
function registerInstallCommand(driver: Command, ctx: CliContext): void {
  driver
    .command('install')
    .description(
      'Copy the driver to <git dir>/gcpatch/driver (--global: ~/.local/share/gcpatch/driver), configure\n' +
        `both merge drivers in git config with a line that falls back to \`git merge-file\` (markers, exit ${ExitCode.conflicts})\n` +
        'if the driver or node is missing, add `*.gc merge=gcpatch` and `package.toml merge=gcpatch-manifest`\n' +
        'to .gitattributes, and run the line once as git would (idempotent). The line hands merges to a warm\n' +
        'merge service of the repository (<git common dir>/gcpatch/service; exits after 5 s idle;\n' +
        'GCPATCH_DRIVER_SERVICE=0 or `git config gcpatch.driverService false` turns it off).\n' +
        exitHelp([
          ['ok', 'installed'],
          ['verificationFailed', 'when the installed line does not merge the built-in example'],
          ['io', 'when git or the copy fails'],
        ]) +
        '.',
    )
    .option('--global', 'write to the global git config and attributes file')
    .option('--no-commit-attributes', 'write attributes to .git/info/attributes instead of .gitattributes')
    .option('--hooks', 'also install post-merge/post-rewrite hooks that re-pin packages left with hash = "" (never commit)')
    .option('--verbose', 'print the configured driver lines whole (they are about 3 KB each)')
    .option('--json', 'machine-readable output')
    .action((opts: { global?: boolean; commitAttributes: boolean; hooks?: boolean; verbose?: boolean; json?: boolean }) => {
      if (opts.hooks && opts.global)
        throw new GcError('usage/invalid-option', '--hooks is per repository: run `gcpatch driver install --hooks` in each repository, without --global');
      const r = installDriver({ global: opts.global === true, commitAttributes: opts.commitAttributes });
      const hooks = opts.hooks ? installHooks() : undefined;
      if (r.check.level === 'error') ctx.exitCode = ExitCode.verificationFailed;
      if (opts.json) {
        printJson(ctx, { ok: true, ...r, ...(hooks ? { hooks } : {}) });
        return;
      }
      for (const h of hooks ?? []) ctx.stdout(`${h.action === 'unchanged' ? 'hook already installed' : `hook ${h.action}`}: ${h.file}\n`);
      ctx.stdout(`copied the driver to ${r.installedTo}\n`);
      for (const c of r.config)
        ctx.stdout(`git config ${r.scope === 'global' ? '--global ' : ''}${c.key} ${opts.verbose ? JSON.stringify(c.value) : shortLine(c.value)}\n`);
      ctx.stdout(
        r.attributesAdded.length > 0
          ? `added to ${r.attributesFile}: ${r.attributesAdded.join(', ')}\n`
          : `${r.attributesFile} already has the attribute lines\n`,
      );
      ctx.stdout(
        r.service.folder !== undefined
          ? `merge service: started by the second file a git command merges, in ${r.service.folder}${r.service.stopped !== undefined ? ` (stopped the old one, pid ${r.service.stopped})` : ''}; off with GCPATCH_DRIVER_SERVICE=0 or git config gcpatch.driverService false\n`
          : 'merge service: one per repository, in <git common dir>/gcpatch/service; off with GCPATCH_DRIVER_SERVICE=0 or git config gcpatch.driverService false\n',
      );
      if (r.check.level === 'error') {
        ctx.stdout(`error ${r.check.name}: ${r.check.message}\n      fix: ${r.check.fix ?? ''}\n`);
        return;
      }
      ctx.stdout('merge driver installed and checked; `gcpatch driver doctor` checks it again later\n');
    });
}

/** `gcpatch driver uninstall`: remove the config, attribute lines, hooks and the merge service. */
function registerUninstallCommand(driver: Command, ctx: CliContext): void {
  driver
    .command('uninstall')
    .description(
      'Remove both drivers from git config and their lines from the attributes files; stop the\n' +
        "repository's merge service and remove its folder. " +
        exitHelp([['ok', 'removed (or nothing to remove)']]) +
        '.',
    )
    .option('--global', 'remove from the global git config and attributes file')
    .option('--json', 'machine-readable output')
    .action((opts: { global?: boolean; json?: boolean }) => {
      const r = uninstallDriver({ global: opts.global === true });
      const hooks = opts.global ? [] : uninstallHooks().filter((h) => h.action !== 'absent');
      if (opts.json) {
        printJson(ctx, { ok: true, ...r, hooks });
        return;
      }
      for (const h of hooks) ctx.stdout(`hook ${h.action === 'deleted' ? 'deleted' : 'block removed'}: ${h.file}\n`);
      for (const s of r.removedSections) ctx.stdout(`removed [${s.replace('.', ' "')}"]\n`);
      for (const a of r.attributesRemoved) ctx.stdout(`removed from ${a.file}: ${a.lines.join(', ')}\n`);
      if (r.service)
        ctx.stdout(`${r.service.stopped !== undefined ? `stopped the merge service (pid ${r.service.stopped}) and ` : ''}removed ${r.service.folder}\n`);
      if (r.removedSections.length === 0 && r.attributesRemoved.length === 0 && hooks.length === 0 && !r.service) ctx.stdout('nothing to remove\n');
    });
}

/** `gcpatch driver doctor`: check git, the config, the driver, the attributes and the merge service. */
function registerDoctorCommand(driver: Command, ctx: CliContext): void {
  driver
    .command('doctor')
    .description(
      'Check git version, driver config, that the driver exists and runs, the attributes, and the\n' +
        'merge service (running or not, its version and folder; a running one is also run once).\n' +
        exitHelp(
          [
            ['ok', 'healthy (warnings allowed)'],
            ['verificationFailed', 'when a problem is found'],
          ],
          ', ',
        ) +
        '.',
    )
    .option('--verbose', 'print the configured driver lines whole (they are about 3 KB each)')
    .option('--json', 'machine-readable output')
    .action((opts: { verbose?: boolean; json?: boolean }) => {
      const r = doctorWorkTree({});
      if (!r.healthy) ctx.exitCode = ExitCode.verificationFailed;
      if (opts.json) {
        printJson(ctx, { ok: r.healthy, ...r });
        return;
      }
      for (const c of r.checks) {
        ctx.stdout(`${c.level.padEnd(5)} ${c.name}: ${opts.verbose ? c.message : shortConfigMessage(c.name, c.message)}\n`);
        if (c.fix && c.level !== 'ok') ctx.stdout(`      fix: ${c.fix}\n`);
      }
      ctx.stdout(r.healthy ? 'driver healthy\n' : 'driver has problems (see fixes above)\n');
    });
}

/** Lines longer than this are shortened in text output unless `--verbose`. */
const SHORT_LIMIT = 120;

/**
 * A configured value as text output shows it: quoted whole when short; else its first 48 characters,
 * its length and how to see it whole (`--verbose`, or `git config --get KEY`).
 */
export function shortLine(value: string): string {
  if (value.length <= SHORT_LIMIT) return JSON.stringify(value);
  return `${JSON.stringify(value.slice(0, 48))}… (${Buffer.byteLength(value)} bytes; --verbose prints it whole)`;
}

/** A doctor check's message with a long configured line (`KEY = LINE`, the config checks) shortened by {@link shortLine}. */
function shortConfigMessage(name: string, message: string): string {
  const at = message.indexOf(' = ');
  if (!name.startsWith('config:') || at < 0 || message.length - at - 3 <= SHORT_LIMIT) return message;
  return `${message.slice(0, at + 3)}${shortLine(message.slice(at + 3))}`;
}

/** Registers `gcpatch driver repin` (what the hooks run) on the `driver` command group. */
function registerRepinCommand(driver: Command, ctx: CliContext): void {
  driver
    .command('repin')
    .description(
      'Re-pin every package of this work tree whose pins a merge, rebase or amend left stale: empty\n' +
        '(hash = "") or wrong (only one side re-pinned a module both sides changed). Runs gcpatch pack on\n' +
        'each such package and says what changed. Never stages or commits. Run by the hooks that\n' +
        '`gcpatch driver install --hooks` installs. ' +
        exitHelp([
          ['ok', 'done'],
          ['invalidInput', 'when a package could not be re-pinned'],
        ]) +
        '.',
    )
    .option('--hook <name>', 'the hook running the command (for its messages)')
    .option('--json', 'machine-readable output')
    .action((opts: { hook?: string; json?: boolean }) => {
      const results = repinStalePins();
      const failed = results.filter((r) => r.error !== undefined);
      if (failed.length > 0) ctx.exitCode = ExitCode.invalidInput;
      if (opts.json) {
        printJson(ctx, { ok: failed.length === 0, packages: results });
        return;
      }
      const who = opts.hook !== undefined ? `gcpatch (${opts.hook} hook)` : 'gcpatch';
      // A hook stays silent when there is nothing to do; a person who asked is told.
      if (results.length === 0 && opts.hook === undefined)
        ctx.stderr(`${who}: no stale pin in the packages the last merge or commit changed; nothing to re-pin\n`);
      for (const r of results) {
        const where = r.package === '.' ? 'package.toml' : `${r.package}/package.toml`;
        if (r.error !== undefined) {
          ctx.stderr(`${who}: ${where} still has stale pins: ${r.error.message}\n  fix the module, then run \`${repinCommand(dirname(r.manifest))}\`\n`);
          continue;
        }
        ctx.stderr(
          `${who}: re-pinned ${r.repinned.length} module${r.repinned.length === 1 ? '' : 's'} in ${where} (stale pins: empty, or not the merged module's hash):\n` +
            r.repinned.map((m) => `  ${m.path}  ${m.was === '' ? '""' : m.was.slice(0, 12)} -> ${m.hash}\n`).join('') +
            `  not committed: review with \`git diff ${where}\`, then commit it\n`,
        );
      }
    });
}
