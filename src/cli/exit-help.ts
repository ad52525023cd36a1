/**
 * Exit-code help for the CLI's commands, the numbers taken from the registry (`ExitCode`,
 * src/util/codes.ts), so that no help text types one by hand and a renumbering cannot leave a help
 * text behind (test/cli/exit-help.test.ts refuses literal exit numbers in src/cli/).
 */
import { ExitCode } from '../util/codes.js';

/** The name of an exit code of {@link ExitCode} (`ok`, `conflicts`, `invalidInput`, …). */
export type ExitName = keyof typeof ExitCode;

/** One exit code of a command and what it means for that command. */
export type ExitMeaning = readonly [ExitName, string];

/**
 * The inline form: `Exit 0 merged; 1 conflicts` for `[['ok', 'merged'], ['conflicts', 'conflicts']]`.
 * @param items in the order shown.
 * @param separator between items (default `'; '`).
 */
export function exitHelp(items: readonly ExitMeaning[], separator = '; '): string {
  return `Exit ${items.map(([name, what]) => `${ExitCode[name]} ${what}`).join(separator)}`;
}

/**
 * The table form, for `--help`'s trailer: `\nExit codes:\n  0  ok\n  10 invalid input` (each code
 * padded to three columns).
 */
export function exitTable(items: readonly ExitMeaning[]): string {
  return `\nExit codes:\n${items.map(([name, what]) => `  ${String(ExitCode[name]).padEnd(3)}${what}`).join('\n')}`;
}
