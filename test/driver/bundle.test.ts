// driver/dist/ is committed: it must be exactly what `npm run build:driver` produces from the
// current sources (driver/*.ts and everything it imports from src/, plus driver/launch.cjs): a
// CommonJS bundle, no package.json, no code cache (that is written beside an installed copy).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';
import { tmp } from './helpers.js';

it('driver/dist/index.js is up to date (else run `npm run build:driver` and commit driver/dist)', () => {
  const out = tmp('gcpatch-ncc-');
  const r = spawnSync(process.execPath, [join(ROOT, 'node_modules/@vercel/ncc/dist/ncc/cli.js'), 'build', 'driver/index.ts', '-o', out, '-m'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  expect(r.status, r.stderr).toBe(0);
  // The build's last step writes the bundle in ASCII (driver/copy-launcher.cjs).
  const { toAscii } = createRequire(import.meta.url)(join(ROOT, 'driver/copy-launcher.cjs')) as { toAscii: (s: string) => string };
  const fresh = Buffer.from(toAscii(readFileSync(join(out, 'index.js'), 'utf8')), 'latin1');
  const committed = readFileSync(join(ROOT, 'driver/dist/index.js'));
  expect(fresh.equals(committed), 'driver/dist/index.js is stale: run `npm run build:driver` and commit driver/dist').toBe(true);
  expect(committed.subarray(0, 40).toString('latin1')).not.toMatch(/^import\b/);
  expect(committed.every((b) => b < 0x80), 'the bundle is ASCII').toBe(true);
  expect(toAscii('"a\u2026b" /\u{1F600}/u')).toBe('"a\\u2026b" /\\ud83d\\ude00/u');
  expect(() => toAscii('"\\\u2026"')).toThrow(/backslash/);
  expect(existsSync(join(ROOT, 'driver/dist/package.json')), 'a "type": "module" package.json would make Node read the CommonJS bundle as ESM').toBe(false);
  expect(readFileSync(join(ROOT, 'driver/dist/launch.cjs')).equals(readFileSync(join(ROOT, 'driver/launch.cjs')))).toBe(true);
}, 180_000);
