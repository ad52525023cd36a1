/**
 * The state one CLI run shares with every command: where output goes and the exit code the run
 * ends with. Its own module so that command files import it from here and `main.ts` imports the
 * command files: imports point one way.
 */
import type { GcError } from '../util/errors.js';

/** Shared state of one CLI run: where output goes and the exit code the run ends with. */
export interface CliContext {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Set by a command's action; `main` returns it. */
  exitCode: number;
}

/** Prints an error as one `file:line:col: code: message` line, or as `{"ok":false,"error":…}` JSON. */
export function reportError(ctx: CliContext, error: GcError, json: boolean): void {
  if (json) ctx.stdout(JSON.stringify({ ok: false, error: error.toJSON() }, null, 2) + '\n');
  ctx.stderr(`${error.format()}\n`);
}

/** The help text of every package command's `--pkg` option (see `discoverManifest`). */
export const PKG_OPTION =
  "the package: its directory or package.toml (default: the package containing the current directory, else the repository's only package)";
