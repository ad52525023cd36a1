// The one version: src/util/version.ts agrees with package.json, and the version writer finds its line.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { VERSION } from '../../src/util/version.js';
import { ROOT } from '../helpers/cli.js';

describe('VERSION', () => {
  it("is package.json's version", () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(VERSION).toBe(pkg.version);
  });

  it('sits on the one line scripts/write-version.mjs rewrites', () => {
    const text = readFileSync(join(ROOT, 'src/util/version.ts'), 'utf8');
    expect(text.match(/^export const VERSION = '[^']*';$/gm)).toEqual([`export const VERSION = '${VERSION}';`]);
  });
});
