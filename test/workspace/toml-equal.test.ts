// The one equality of TOML values (src/workspace/toml-equal.ts) on the edge cases TOML leaves to the reader: -0.0, NaN, integers vs floats, offsets and precision of dates; and the one manifest reader on bytes.
import { describe, expect, it } from 'vitest';
import { parseManifestTable } from '../../src/workspace/manifest-write.js';
import { tomlEqual } from '../../src/workspace/toml-equal.js';

/** The value of `x = <spelling>` as the manifest reader reads it. */
const value = (spelling: string) => parseManifestTable(`x = ${spelling}\n`)['x'];

describe('tomlEqual: one semantics for the driver and verify-pr', () => {
  it.each([
    // floats: Object.is
    ['0.0', '-0.0', false],
    ['0.0', '+0.0', true],
    ['-0.0', '-0.0', true],
    ['nan', 'nan', true],
    ['nan', '-nan', true],
    ['+nan', '-nan', true],
    ['nan', 'inf', false],
    ['inf', '+inf', true],
    ['inf', '-inf', false],
    ['1e3', '1000.0', true],
    // integers and floats are different types
    ['1', '1.0', false],
    ['0', '0.0', false],
    ['0', '-0', true],
    ['0x10', '16', true],
    // dates and times: their TOML form
    ['1979-05-27T07:32:00-08:00', '1979-05-27T15:32:00Z', false],
    ['1979-05-27T07:32:00Z', '1979-05-27T07:32:00+00:00', false],
    ['1979-05-27T07:32:00Z', '1979-05-27 07:32:00z', true],
    ['1979-05-27T07:32:00-08:00', '1979-05-27T07:32:00-08:00', true],
    ['1979-05-27T07:32:00', '1979-05-27T07:32:00Z', false],
    ['1979-05-27', '1979-05-27T00:00:00', false],
    ['07:32:00', '07:32:00.000', true],
    ['1979-05-27T07:32:00.999999Z', '1979-05-27T07:32:00.999998Z', true],
    ['1979-05-27T07:32:00.999Z', '1979-05-27T07:32:00.998Z', false],
    // strings, booleans, arrays, tables
    ['"a"', "'a'", true],
    ['"1"', '1', false],
    ['true', 'true', true],
    ['true', 'false', false],
    ['[1, 2]', '[1, 2]', true],
    ['[1, 2]', '[2, 1]', false],
    ['[0.0]', '[-0.0]', false],
    ['{ a = 1, b = 2 }', '{ b = 2, a = 1 }', true],
    ['{ a = 1 }', '{ a = 1, b = 2 }', false],
    ['{ "__proto__" = 1 }', '{ "__proto__" = 1 }', true],
    ['{ "__proto__" = 1 }', '{ "__proto__" = 2 }', false],
  ])('%s vs %s → %s', (a, b, equal) => {
    expect(tomlEqual(value(a), value(b))).toBe(equal);
    expect(tomlEqual(value(b), value(a))).toBe(equal);
  });

  it('an absent key equals only an absent key', () => {
    expect(tomlEqual(undefined, undefined)).toBe(true);
    expect(tomlEqual(undefined, value('0'))).toBe(false);
    expect(tomlEqual(value('""'), undefined)).toBe(false);
    expect(tomlEqual(value('[]'), undefined)).toBe(false);
  });
});

describe('parseManifestTable: text or bytes', () => {
  it('reads UTF-8 bytes as their text, and the empty bytes as the empty table', () => {
    const text = 'name = "demo"\nx = -0.0\n';
    expect(tomlEqual(parseManifestTable(new TextEncoder().encode(text)), parseManifestTable(text))).toBe(true);
    expect(Object.keys(parseManifestTable(new Uint8Array()))).toEqual([]);
  });

  it('refuses bytes that are not UTF-8 with manifest/toml', () => {
    expect(() => parseManifestTable(new Uint8Array([0x61, 0x20, 0x3d, 0x20, 0x22, 0xff, 0x22]))).toThrow(
      expect.objectContaining({ code: 'manifest/toml', message: 'package.toml is not valid UTF-8' }),
    );
  });
});
