// src/coreform/scan-wasm.ts is generated from scan.wat by `npm run build:wasm` and committed: it must
// be exactly what the .wat assembles to (else run `npm run build:wasm` and commit it).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

it('src/coreform/scan-wasm.ts is scan.wat assembled (else run `npm run build:wasm`)', async () => {
  const build = (await import(pathToFileURL(join(ROOT, 'scripts/build-scan-wasm.mjs')).href)) as { scanWasmModuleText: () => Promise<string> };
  const fresh = await build.scanWasmModuleText();
  expect(readFileSync(join(ROOT, 'src/coreform/scan-wasm.ts'), 'utf8')).toBe(fresh);
});
