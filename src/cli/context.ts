/**
 * The state one CLI run shares with every command: where output goes and the exit code the run
 * ends with. Its own module so that command files import it from here and `main.ts` imports the
 * command files: imports point one way.
 */
import type { Command } from 'commander';
import type { GcError } from '../util/errors.js';
import { stringifyJson } from '../util/json.js';

/** Shared state of one CLI run: where output goes and the exit code the run ends with. */
export interface CliContext {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Set by a command's action; `main` returns it. */
  exitCode: number;
}

/**
 * Prints `value` as the command's `--json` output on standard output: two-space indented (`indent`
 * 0: on one line, for outputs as large as a module's forms), one newline at the end, `undefined`
 * members left out, deep values without recursion (src/util/json.ts). Every command prints its
 * JSON through here.
 */
export function printJson(ctx: CliContext, value: unknown, indent: 0 | 2 = 2): void {
  ctx.stdout(stringifyJson(value, indent) + '\n');
}

/**
 * Prints an error as one `file:line:col: code: message` line on standard error and, with `json`,
 * as `{"ok":false,"error":…}` ({@link printJson}; `error` is `GcError.toJSON()`, or `errorJson`
 * when a command's errors have their own shape) on standard output.
 */
export function reportError(ctx: CliContext, error: GcError, json: boolean, errorJson: unknown = error.toJSON()): void {
  if (json) printJson(ctx, { ok: false, error: errorJson });
  ctx.stderr(`${error.format()}\n`);
}

/** The help text of every package command's `--pkg` option (see `discoverManifest`). */
export const PKG_OPTION =
  "the package: its directory or package.toml (default: the package containing the current directory, else the repository's only package)";

/**
 * Adds `--pkg <path>` ({@link PKG_OPTION}) and then `--json` (`machine-readable output`) to `command`
 * and returns it: the last two options of the package commands whose `--json` needs no more words.
 */
export function addPackageOptions(command: Command): Command {
  return command.option('--pkg <path>', PKG_OPTION).option('--json', 'machine-readable output');
}
