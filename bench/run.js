#!/usr/bin/env node
// `npm run bench`: runs every benchmark module in this folder (each exports `run()`), in order.
// Figures are medians measured in one run on this machine; compare ratios, not absolute numbers.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const suites = ['coreform', 'driver', 'driver-service', 'diffmerge', 'patch', 'editplan', 'refactor', 'action', 'verify-pr', 'blame', 'scale'];
const only = process.argv.slice(2);

for (const name of suites) {
  if (only.length > 0 && !only.includes(name)) continue;
  const file = join(here, `${name}.js`);
  if (!existsSync(file)) continue;
  console.log(`\n== ${name} ==`);
  const mod = await import(file);
  await mod.run();
}
