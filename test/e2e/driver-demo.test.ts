// `npm run demo` (scripts/demo.js) must show plain git conflicting and the driver merging cleanly.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

it('npm run demo: plain git conflicts in 3 files, the gcpatch drivers merge them cleanly', () => {
  const r = spawnSync(process.execPath, [join(ROOT, 'scripts/demo.js')], { cwd: ROOT, encoding: 'utf8' });
  expect(r.status, r.stdout + r.stderr).toBe(0);
  expect(r.stdout).toContain('1. plain git merge: exit 1, conflicts in greet.gc, package.toml, strings.gc');
  expect(r.stdout).toContain('2. git merge with the gcpatch drivers: exit 0, conflicts in nothing');
  expect(r.stdout).toContain('gcpatch pack');
});
