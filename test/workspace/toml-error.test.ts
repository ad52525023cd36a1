// An unterminated one-line string in package.toml is reported as such (smol-toml calls the newline
// a control character); a real control character keeps smol-toml's words. Both readers agree.
import { describe, expect, it } from 'vitest';
import { parseManifest } from '../../src/workspace/manifest.js';
import { parseManifestTable } from '../../src/workspace/manifest-write.js';

const UNTERMINATED =
  'Invalid TOML document: unterminated string: a string on line 2 has no closing quote before the end of the line (close it, or use """ … """ for a string of several lines)';

function failure(read: (text: string) => unknown, text: string): { code: string; message: string; line?: number; column?: number } {
  try {
    read(text);
  } catch (error) {
    const e = error as { code: string; message: string; location: { line?: number; column?: number } };
    return { code: e.code, message: e.message, line: e.location.line, column: e.location.column };
  }
  throw new Error('parsed');
}

describe('TOML syntax errors in package.toml', () => {
  for (const [name, read] of [
    ['parseManifest', (t: string) => parseManifest(t, 'package.toml')],
    ['parseManifestTable', (t: string) => parseManifestTable(t, 'package.toml')],
  ] as const) {
    it(`${name}: an unterminated basic, literal or CRLF string says so, with line and column`, () => {
      expect(failure(read, 'schema = 1\nname = "shop\nversion = "0.1.0"\n')).toEqual({ code: 'manifest/toml', message: UNTERMINATED, line: 2, column: 13 });
      expect(failure(read, "schema = 1\nname = 'shop\nversion = '0.1.0'\n")).toMatchObject({ code: 'manifest/toml', message: UNTERMINATED, line: 2 });
      expect(failure(read, 'schema = 1\r\nname = "shop\r\nversion = "0.1.0"\r\n')).toMatchObject({ code: 'manifest/toml', message: UNTERMINATED, line: 2 });
    });

    it(`${name}: a control character inside a string keeps its own message (control)`, () => {
      expect(failure(read, 'schema = 1\nname = "sh\u0001op"\n')).toEqual({
        code: 'manifest/toml',
        message: 'Invalid TOML document: control characters are not allowed in strings',
        line: 2,
        column: 11,
      });
    });
  }
});
