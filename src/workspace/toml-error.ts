/**
 * The one wording of a TOML syntax error in `package.toml` (smol-toml's `TomlError`): its first
 * line, except where smol-toml's words mislead. An unterminated one-line string reaches the end of
 * its line, and smol-toml reports the newline as "control characters are not allowed in strings";
 * gcpatch says what happened instead.
 */
import type { TomlError } from 'smol-toml';

/** The message for `error`, raised parsing `text` (see the file comment). */
export function tomlErrorMessage(error: TomlError, text: string): string {
  const first = error.message.split('\n')[0] ?? 'invalid TOML';
  if (!first.endsWith('control characters are not allowed in strings')) return first;
  const line = (text.split('\n')[error.line - 1] ?? '').replace(/\r$/, '');
  // The offending character is the end of the line (its newline), not a control character in it.
  if (error.column <= line.length) return first;
  return `${first.slice(0, first.length - 'control characters are not allowed in strings'.length)}unterminated string: a string on line ${error.line} has no closing quote before the end of the line (close it, or use """ … """ for a string of several lines)`;
}
