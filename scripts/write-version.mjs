// `npm version` runs this (package.json "version" script) after it bumps package.json: writes the
// new version into src/util/version.ts, the one module every entry point reads it from.
import { readFileSync, writeFileSync } from 'node:fs';

const root = new URL('..', import.meta.url);
const { version } = JSON.parse(readFileSync(new URL('package.json', root), 'utf8'));
const file = new URL('src/util/version.ts', root);
const text = readFileSync(file, 'utf8');
const next = text.replace(/^export const VERSION = '[^']*';$/m, `export const VERSION = '${version}';`);
if (!next.includes(`'${version}'`)) throw new Error('src/util/version.ts has no `export const VERSION` line to rewrite');
writeFileSync(file, next);
