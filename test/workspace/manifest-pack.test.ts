// `gcpatch pack` on a package.toml in the reference's pretty style (docs/reference/package-toml.md §4, as
// `tests/spec/pkg_basic/package.toml`): sorted keys, arrays of two or more items one per line,
// arrays of zero or one item inline, [[modules]] last with hash before path. Re-pinning must change
// only the stale pin line; every other byte stays.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { parseManifestTable, renderManifest } from '../../src/workspace/manifest-write.js';
import { copyFixture, gcpatch, ROOT } from '../helpers/cli.js';

const FIXTURE = join(ROOT, 'fixtures/packages/pretty/package.toml');
const STALE = `hash = "${'0'.repeat(64)}"`;

describe('package.toml round trip in the reference style', { timeout: 60_000 }, () => {
  test('the fixture is already in the writer style', () => {
    const text = readFileSync(FIXTURE, 'utf8');
    expect(text).toContain('dependencies = []\n');
    expect(text).toContain('tests = ["pretty/basic::tests"]\n');
    expect(text).toContain('obligations = [\n    "core/obligation::unit-tests",\n');
    expect(renderManifest(parseManifestTable(text))).toBe(text);
  });

  test('pack changes only the stale pin; packing again changes nothing', () => {
    const pkg = copyFixture('packages/pretty');
    const manifest = join(pkg, 'package.toml');
    const before = readFileSync(manifest, 'utf8');
    expect(before.split(STALE)).toHaveLength(2);
    const packed = gcpatch(['pack', '--pkg', pkg, '--json']);
    expect(packed.status, packed.stderr).toBe(0);
    const pins = JSON.parse(packed.stdout).pins as Record<string, string>;
    expect(pins['basic.gc']).toMatch(/^[0-9a-f]{64}$/);
    expect(pins['basic.gc']).not.toBe('0'.repeat(64));
    const after = readFileSync(manifest, 'utf8');
    expect(after).toBe(before.replace(STALE, `hash = "${pins['basic.gc']}"`));
    // Only one line differs.
    const diff = before.split('\n').filter((line, i) => line !== after.split('\n')[i]);
    expect(diff).toEqual([STALE]);
    expect(gcpatch(['pack', '--pkg', pkg]).status).toBe(0);
    expect(readFileSync(manifest, 'utf8')).toBe(after);
    expect(gcpatch(['verify-pins', '--pkg', pkg]).status).toBe(0);
  });

  test('a one-item obligations list stays inline through pack', () => {
    const pkg = copyFixture('packages/pretty');
    const manifest = join(pkg, 'package.toml');
    const text = readFileSync(manifest, 'utf8').replace(/obligations = \[\n( {4}.*,\n)+\]/, 'obligations = ["core/obligation::unit-tests"]');
    writeFileSync(manifest, text);
    expect(gcpatch(['pack', '--pkg', pkg]).status).toBe(0);
    const after = readFileSync(manifest, 'utf8');
    expect(after).toContain('obligations = ["core/obligation::unit-tests"]\n');
    expect(after.replace(/hash = "[0-9a-f]{64}"/g, 'hash = H')).toBe(text.replace(/hash = "[0-9a-f]{64}"/g, 'hash = H'));
  });
});

describe("the first pack of a hand-written manifest keeps the author's key order", () => {
  const HAND_WRITTEN = `schema = 1
name = "greeter"
version = "0.1.0"
dependencies = []
obligations = []
tests = ["greeter/app::tests"]
zeta = "an unknown key, kept where it is"
description = "added later"

[limits]
step_limit = 100000
max_vec_len = 64

[[modules]]
path = "strings.gc"

[[modules]]
hash = "${'0'.repeat(64)}"
path = "app.gc"
`;

  test("only the pins change: the author's keys stay in place, a new hash pin goes before path", () => {
    const pkg = copyFixture('packages/greeter');
    const manifest = join(pkg, 'package.toml');
    writeFileSync(manifest, HAND_WRITTEN);
    const packed = gcpatch(['pack', '--pkg', pkg, '--json']);
    expect(packed.status, packed.stderr).toBe(0);
    const pins = JSON.parse(packed.stdout).pins as Record<string, string>;
    expect(readFileSync(manifest, 'utf8')).toBe(
      HAND_WRITTEN.replace('[[modules]]\npath = "strings.gc"\n', `[[modules]]\nhash = "${pins['strings.gc']}"\npath = "strings.gc"\n`).replace(
        `hash = "${'0'.repeat(64)}"`,
        `hash = "${pins['app.gc']}"`,
      ),
    );
  });

  test('the greeter fixture (path before hash, schema first) is left byte for byte as it is', () => {
    const pkg = copyFixture('packages/greeter');
    const manifest = join(pkg, 'package.toml');
    const before = readFileSync(manifest, 'utf8');
    expect(gcpatch(['pack', '--pkg', pkg]).status).toBe(0);
    expect(readFileSync(manifest, 'utf8')).toBe(before);
  });

  test('written fresh (tables built in code), keys are sorted as the reference writes them', () => {
    const table = parseManifestTable(HAND_WRITTEN);
    const fresh = JSON.parse(JSON.stringify(table, (_k, v: unknown) => (typeof v === 'bigint' ? Number(v) : v))) as Record<string, unknown>;
    const rebuilt = { ...fresh, schema: 1n, limits: { step_limit: 100000n, max_vec_len: 64n } } as never;
    expect(renderManifest(rebuilt)).toBe(`dependencies = []
description = "added later"
name = "greeter"
obligations = []
schema = 1
tests = ["greeter/app::tests"]
version = "0.1.0"
zeta = "an unknown key, kept where it is"

[limits]
max_vec_len = 64
step_limit = 100000

[[modules]]
path = "strings.gc"

[[modules]]
hash = "${'0'.repeat(64)}"
path = "app.gc"
`);
    // the parsed table keeps the author's order only when asked to
    expect(renderManifest(table, { keepKeyOrder: true })).toBe(HAND_WRITTEN);
    expect(renderManifest(table)).toBe(renderManifest(rebuilt));
  });
});
