// The driver's exit protocol: one table of statuses, the configured line's mapping of them, and the
// launcher's copy of "not started" agree.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { driverExitStatus, GitDriverStatus, gitStatusOfWrapped, WrappedStatus, wrappedStatusShell } from '../../src/driver-setup/exit-status.js';
import { driverCommand, driverDirExpression } from '../../src/driver-setup/line.js';
import { ROOT } from '../helpers/cli.js';

describe('exit statuses', () => {
  it('plain: 0 clean, 1 conflicts and 1 when nothing merged; wrapped: 0, 3, 2', () => {
    expect([driverExitStatus('clean', false), driverExitStatus('conflicts', false), driverExitStatus('not-started', false)]).toEqual([0, 1, 1]);
    expect([driverExitStatus('clean', true), driverExitStatus('conflicts', true), driverExitStatus('not-started', true)]).toEqual([0, 3, 2]);
  });

  it('the line tells git 0 for clean, 1 for conflicts, and falls back for anything else', () => {
    expect([0, 1, 2, 3, 70, 134].map(gitStatusOfWrapped)).toEqual([0, undefined, undefined, 1, undefined, undefined]);
    expect(Math.max(...Object.values(GitDriverStatus))).toBe(1);
  });

  it('the shell mapping does what gitStatusOfWrapped says, status by status', () => {
    for (const s of [0, 1, 2, 3, 127]) {
      const r = spawnSync('sh', ['-c', `s=${s}; ${wrappedStatusShell()}exit 42`]);
      expect(r.status).toBe(gitStatusOfWrapped(s) ?? 42);
    }
  });

  it('the configured line carries that mapping', () => {
    for (const mode of ['gc', 'manifest'] as const) {
      expect(driverCommand(driverDirExpression('local', ''), mode)).toContain(wrappedStatusShell());
      expect(driverCommand("'/opt/d'", mode, false)).toContain(`s=$?; ${wrappedStatusShell()}w=`);
    }
  });

  it("launch.cjs's NOT_STARTED mirrors WrappedStatus.notStarted and is what it exits with", () => {
    const text = readFileSync(join(ROOT, 'driver/launch.cjs'), 'utf8');
    expect(text.match(/^const NOT_STARTED = (\d+);$/m)?.[1]).toBe(String(WrappedStatus.notStarted));
    expect(text).not.toMatch(/process\.exit\(\d/);
  });
});
