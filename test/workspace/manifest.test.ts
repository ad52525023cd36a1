import { describe, expect, it } from 'vitest';
import { parseManifest } from '../../src/workspace/manifest.js';
import { portablePathProblem } from '../../src/workspace/path.js';
import { GcError } from '../../src/util/errors.js';

const BASE = `schema = 1
name = "demo"
version = "1.0.0"
obligations = ["core/obligation::unit-tests"]
custom_key = "kept"

[[modules]]
path = "a.gc"
hash = "abc"

[[modules]]
path = "dir/b.gc"
`;

function failure(text: string): GcError {
  try {
    parseManifest(text, 'pkg/package.toml');
  } catch (error) {
    return error as GcError;
  }
  throw new Error('expected a failure');
}

describe('package.toml', () => {
  it('reads modules in manifest order with optional pins and keeps unknown keys', () => {
    const m = parseManifest(BASE);
    expect(m.name).toBe('demo');
    expect(m.modules).toEqual([
      { path: 'a.gc', hash: 'abc' },
      { path: 'dir/b.gc', hash: undefined },
    ]);
    expect(m.obligations).toEqual(['core/obligation::unit-tests']);
    expect(m.tests).toEqual([]);
    expect(m.dependencies).toEqual([]);
    expect(m.table.custom_key).toBe('kept');
  });

  it('treats a missing schema as 1 and rejects other schemas', () => {
    expect(parseManifest(BASE.replace('schema = 1\n', '')).schema).toBe(1);
    expect(failure(BASE.replace('schema = 1', 'schema = 2')).code).toBe('manifest/invalid');
  });

  it('reports TOML syntax errors with file, line and column', () => {
    const e = failure('name = "x"\nversion = \n');
    expect(e.code).toBe('manifest/toml');
    expect(e.location.file).toBe('pkg/package.toml');
    expect(e.location.line).toBe(2);
  });

  it('rejects non-portable module paths and duplicates', () => {
    expect(failure(BASE.replace('"dir/b.gc"', '"../b.gc"')).message).toContain('".." component');
    expect(failure(BASE.replace('"dir/b.gc"', '"a.gc"')).message).toContain('listed twice');
    expect(failure(BASE.replace('"dir/b.gc"', '"C:/b.gc"')).message).toContain('drive prefix');
  });

  it('requires name, version, modules and obligations', () => {
    expect(failure(BASE.replace('name = "demo"\n', '')).message).toContain('name');
    expect(failure(BASE.replace('obligations = ["core/obligation::unit-tests"]\n', '')).message).toContain('obligations');
  });
});

describe('portable paths (GenesisCode `docs/spec/PATCH_SCHEMA.md`)', () => {
  it.each([
    ['a.gc', undefined],
    ['dir/sub/a.gc', undefined],
    ['', 'is empty'],
    ['/a.gc', 'is absolute (starts with /)'],
    ['a\\b.gc', 'contains a backslash'],
    ['a//b.gc', 'has an empty component (// or a trailing /)'],
    ['a/', 'has an empty component (// or a trailing /)'],
    ['./a.gc', 'has a "." component'],
    ['a/../b.gc', 'has a ".." component'],
    ['C:/a.gc', 'starts with a drive prefix'],
    ['e\u0301.gc', 'is not Unicode NFC'],
    ['\u00e9.gc', undefined],
  ])('%j', (path, problem) => {
    expect(portablePathProblem(path)).toBe(problem);
  });
});
