/** The reader's error codes, and the line and column of a byte offset that its errors report. */
import { GcError, type GcCode } from '../util/errors.js';
import { LF } from './lexical.js';

/** Error code: end of input where a term was expected. */
export const PARSE_EOF = 'core/parse/eof';
/** Error code: unexpected token, unterminated literal/container, odd map, invalid UTF-8, trailing tokens. */
export const PARSE_UNEXPECTED = 'core/parse/unexpected';
/** Error code: invalid escape sequence in a string or bytes literal. */
export const PARSE_ESCAPE = 'core/parse/escape';

/**
 * 1-based line and 1-based byte column of a 0-based UTF-8 byte `offset` in `source`. Only LF
 * starts a new line (a CR is an ordinary column). Offsets past the end are clamped.
 */
export function lineColumn(source: Uint8Array, offset: number): { line: number; column: number } {
  const end = Math.max(0, Math.min(offset, source.length));
  let line = 1;
  let lineStart = 0;
  let p = source.indexOf(LF);
  while (p !== -1 && p < end) {
    line++;
    lineStart = p + 1;
    p = source.indexOf(LF, p + 1);
  }
  return { line, column: end - lineStart + 1 };
}

/** A `GcError` of `code` located at byte `offset` of `source` (with its line and column). */
export function parseError(source: Uint8Array, code: GcCode, message: string, offset: number): GcError {
  const { line, column } = lineColumn(source, offset);
  return new GcError(code, message, { location: { offset, line, column } });
}
