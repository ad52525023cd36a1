/**
 * The committed driver bundle's shape: a CommonJS bundle in ASCII (driver/copy-launcher.cjs writes
 * it so), no package.json beside it, the launcher copied as it is. Whether driver/dist is what the
 * sources build to is checked by .ci/run (it rebuilds the bundles and compares).
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

it('driver/dist is an ASCII CommonJS bundle with the launcher beside it and no package.json', () => {
  // The build's last step writes the bundle in ASCII (driver/copy-launcher.cjs).
  const { toAscii } = createRequire(import.meta.url)(join(ROOT, 'driver/copy-launcher.cjs')) as { toAscii: (s: string) => string };
  const committed = readFileSync(join(ROOT, 'driver/dist/index.js'));
  expect(committed.subarray(0, 40).toString('latin1')).not.toMatch(/^import\b/);
  expect(
    committed.every((b) => b < 0x80),
    'the bundle is ASCII',
  ).toBe(true);
  expect(toAscii('"a\u2026b" /\u{1F600}/u')).toBe('"a\\u2026b" /\\ud83d\\ude00/u');
  expect(() => toAscii('"\\\u2026"')).toThrow(/backslash/);
  expect(existsSync(join(ROOT, 'driver/dist/package.json')), 'a "type": "module" package.json would make Node read the CommonJS bundle as ESM').toBe(false);
  expect(readFileSync(join(ROOT, 'driver/dist/launch.cjs')).equals(readFileSync(join(ROOT, 'driver/launch.cjs')))).toBe(true);
});
