/** The `gcpatch` command: registers every command group and maps errors to exit codes. */
import { Command, CommanderError } from 'commander';
import { ExitCode, GcError, isGcError } from '../util/errors.js';
import { usageCode } from '../util/codes.js';
import { VERSION } from '../util/version.js';
import { printJson, reportError, type CliContext } from './context.js';
import { registerCoreformCommands } from './coreform.js';
import { registerDiffCommand } from './diff.js';
import { registerMergeCommand } from './merge.js';
import { registerMergeFileCommands } from './merge-file.js';
import { registerEditPlanCommands } from './editplan.js';
import { registerDriverCommands } from './driver.js';
import { registerRefactorCommands } from './refactor.js';
import { registerPatchCommands } from './patch.js';
import { registerStoreCommands } from './store.js';
import { registerVerifyPrCommand } from './pr-verify.js';
import { registerRecoverCommand } from './recover.js';
import { registerBlameCommands } from './blame.js';
import { registerSigningCommands } from './signing.js';
import { registerInitCommand } from './init.js';
import { exitTable } from './exit-help.js';

export type { CliContext } from './context.js';
export { reportError } from './context.js';

/** Builds the commander program with every command group registered. */
export function buildProgram(ctx: CliContext): Command {
  const program = new Command();
  program
    .name('gcpatch')
    .description('Semantic patches for GenesisCode packages: canonical CoreForm, patches, diff/merge, refactors, evidence.')
    .addHelpText(
      'after',
      exitTable([
        ['ok', 'ok'],
        ['conflicts', 'merge conflicts (or fmt --check differences)'],
        ['invalidInput', 'invalid input'],
        ['obligationsFailed', 'obligations failed'],
        ['verificationFailed', 'verification failed'],
        ['io', 'I/O error'],
      ]) + '\n\nEvery command accepts --json for machine-readable output.',
    )
    .version(VERSION)
    .showHelpAfterError('(run `gcpatch <command> --help` for usage)')
    .exitOverride()
    .configureOutput({
      writeOut: (s) => ctx.stdout(s),
      writeErr: (s) => ctx.stderr(s),
    });
  registerCoreformCommands(program, ctx);
  registerDiffCommand(program, ctx);
  registerMergeCommand(program, ctx);
  registerMergeFileCommands(program, ctx);
  registerEditPlanCommands(program, ctx);
  registerDriverCommands(program, ctx);
  registerRefactorCommands(program, ctx);
  registerPatchCommands(program, ctx);
  registerStoreCommands(program, ctx);
  registerVerifyPrCommand(program, ctx);
  registerBlameCommands(program, ctx);
  registerRecoverCommand(program, ctx);
  registerSigningCommands(program, ctx);
  registerInitCommand(program, ctx);
  nameCommandInHelpHint(program, 'gcpatch');
  return program;
}

/** A usage error ends with the help line of the command it is about (`gcpatch store prune --help`). */
function nameCommandInHelpHint(command: Command, path: string): void {
  for (const sub of command.commands) {
    const subPath = `${path} ${sub.name()}`;
    sub.showHelpAfterError(`(run \`${subPath} --help\` for usage)`);
    nameCommandInHelpHint(sub, subPath);
  }
}

/**
 * Runs the CLI with `argv` (`process.argv` shape: node, script, args…) and returns the exit code.
 * Never throws: a `GcError` prints `file:line:col: code: message` (or JSON with `--json`) and
 * returns its exit code; anything else is reported as an internal error with exit 70.
 */
export async function main(argv: string[], io: { stdout?: (text: string) => void; stderr?: (text: string) => void } = {}): Promise<number> {
  const ctx: CliContext = {
    stdout: io.stdout ?? ((s) => process.stdout.write(s)),
    stderr: io.stderr ?? ((s) => process.stderr.write(s)),
    exitCode: ExitCode.ok,
  };
  const program = buildProgram(ctx);
  const wantsJson = argv.includes('--json');
  try {
    await program.parseAsync(argv);
    return ctx.exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help') {
        return ExitCode.ok;
      }
      // Commander already printed the message on stderr; machines get it as JSON too.
      if (wantsJson) {
        const usage = new GcError(usageCode(error.code), error.message.replace(/^error: /, ''));
        printJson(ctx, { ok: false, error: usage.toJSON() });
      }
      return ExitCode.invalidInput;
    }
    if (isGcError(error)) {
      reportError(ctx, error, wantsJson);
      return error.exitCode;
    }
    // A RangeError here is V8 refusing a string or array that large: the input is too big to render.
    const tooLarge = error instanceof RangeError;
    const wrapped = new GcError(
      tooLarge ? 'output/too-large' : 'internal',
      tooLarge
        ? `the output is too large to produce (${error.message}); try without pretty-printing or on a smaller input`
        : error instanceof Error
          ? error.message
          : String(error),
    );
    reportError(ctx, wrapped, wantsJson);
    return wrapped.exitCode;
  }
}
