// `gcpatch apply --obligation-runner genesis` and `refactor apply`, against the stand-in GenesisCode CLI
// (fixtures/genesis/bin/genesis) on PATH: in-process (test/helpers/run-cli.ts), and through the built
// CLI (bin/gcpatch.js) when no runner is on PATH.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { copyFixture, gcpatch, ROOT } from '../helpers/cli.js';
import { runCli } from '../helpers/run-cli.js';

const PATCH = join(ROOT, 'fixtures/patches/patchdemo-refactor.gcpatch');
const PATH_WITH_STAND_IN = `${join(ROOT, 'fixtures/genesis/bin')}:${process.env.PATH ?? ''}`;

function packageWithObligations(): string {
  const pkg = copyFixture('packages/patchdemo');
  const toml = join(pkg, 'package.toml');
  writeFileSync(toml, readFileSync(toml, 'utf8').replace('obligations = []', 'obligations = ["core/obligation::unit-tests"]'));
  return pkg;
}

describe('--obligation-runner genesis (e2e)', () => {
  it('apply commits when genesis test passes, rolls back with exit 30 when it fails, and names a missing genesis', async () => {
    const pkg = packageWithObligations();
    const before = readFileSync(join(pkg, 'package.toml'), 'utf8');
    const failed = await runCli(['apply', '--patch', PATCH, '--pkg', pkg, '--obligation-runner', 'genesis', '--json'], {
      env: { PATH: PATH_WITH_STAND_IN, GENESIS_STAND_IN: 'fail' },
    });
    expect(failed.status).toBe(30);
    expect(JSON.parse(failed.stdout).error.code).toBe('patch/obligations-failed');
    expect(readFileSync(join(pkg, 'package.toml'), 'utf8')).toBe(before);

    const missing = gcpatch(['apply', '--patch', PATCH, '--pkg', pkg, '--json'], { env: { PATH: '/nonexistent-bin', GCPATCH_OBLIGATION_RUNNER: 'genesis' } });
    expect(missing.status).toBe(30);
    expect(JSON.parse(missing.stdout).error.code).toBe('patch/genesis-not-found');
    expect(missing.stderr).not.toMatch(/\n\s+at /); // a message, not a stack trace

    const ok = await runCli(['apply', '--patch', PATCH, '--pkg', pkg, '--obligation-runner', 'genesis'], {
      env: { PATH: PATH_WITH_STAND_IN, GENESIS_STAND_IN: 'pass' },
    });
    expect(ok.stderr).toBe('');
    expect(ok.status).toBe(0);
    const pointer = readFileSync(join(pkg, '.genesis/last_acceptance'), 'utf8').trim();
    expect(ok.stdout).toContain(`stored acceptance   ${pointer}`);
  });

  it('accept runs genesis test on the package as it is; audit then binds that acceptance to it', async () => {
    const pkg = packageWithObligations();
    const noRunner = await runCli(['audit', '--pkg', pkg]);
    expect(noRunner.status).toBe(50);
    expect(noRunner.stderr).toContain('`gcpatch accept --obligation-runner genesis`');
    const failed = await runCli(['accept', '--pkg', pkg, '--obligation-runner', 'genesis'], { env: { PATH: PATH_WITH_STAND_IN, GENESIS_STAND_IN: 'fail' } });
    expect(failed.status).toBe(30);
    const ok = await runCli(['accept', '--pkg', pkg, '--obligation-runner', 'genesis'], { env: { PATH: PATH_WITH_STAND_IN, GENESIS_STAND_IN: 'pass' } });
    expect([ok.status, ok.stderr]).toEqual([0, '']);
    const audit = await runCli(['audit', '--pkg', pkg, '--json']);
    expect(audit.status).toBe(0);
    expect(JSON.parse(audit.stdout).binding.status).toBe('bound');
  });

  it('the exit-30 message without a runner says to install genesis and that the evidence is not to be committed', async () => {
    const pkg = packageWithObligations();
    const failed = await runCli(['apply', '--patch', PATCH, '--pkg', pkg], { env: { GCPATCH_OBLIGATION_RUNNER: '' } });
    expect(failed.status).toBe(30);
    expect(failed.stderr).toContain('--obligation-runner genesis');
    expect(failed.stderr).toContain('do not commit it');
  });

  it('refactor apply commits with the stand-in passing and rolls back with it failing', async () => {
    const pkg = packageWithObligations();
    const plan = await runCli([
      'refactor',
      'plan',
      '--kind',
      'rename',
      '--from',
      'demo/math::double',
      '--to',
      'demo/math::twice',
      '--pkg',
      pkg,
      '--out',
      join(pkg, '..', 'plan.gc'),
    ]);
    expect(plan.status).toBe(0);
    const module = readFileSync(join(pkg, 'lib/math.gc'), 'utf8');
    const failed = await runCli(['refactor', 'apply', join(pkg, '..', 'plan.gc'), '--pkg', pkg, '--obligation-runner', 'genesis'], {
      env: { PATH: PATH_WITH_STAND_IN, GENESIS_STAND_IN: 'fail' },
    });
    expect(failed.status).toBe(30);
    expect(readFileSync(join(pkg, 'lib/math.gc'), 'utf8')).toBe(module);
    const ok = await runCli(['refactor', 'apply', join(pkg, '..', 'plan.gc'), '--pkg', pkg, '--obligation-runner', 'genesis'], {
      env: { PATH: PATH_WITH_STAND_IN, GENESIS_STAND_IN: 'pass' },
    });
    expect(ok.status).toBe(0);
    expect(readFileSync(join(pkg, 'lib/math.gc'), 'utf8')).toContain('demo/math::twice');
  });
});
