// `driver install` and `driver doctor` print the ~3 KB configured lines shortened (the first 48
// characters, the length, how to see it whole); --verbose prints them whole, --json always does.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GIT_ENV, tempDir } from '../helpers/cli.js';
import { runCli } from '../helpers/run-cli.js';

describe('driver install / doctor text output', () => {
  it('is short by default and whole with --verbose', async () => {
    const dir = join(tempDir(), 'repo');
    execFileSync('git', ['init', '-q', dir], { env: { ...process.env, ...GIT_ENV } });
    const env = { ...GIT_ENV };
    const install = await runCli(['driver', 'install'], { cwd: dir, env });
    expect(install.status).toBe(0);
    const line = execFileSync('git', ['config', '--get', 'merge.gcpatch.driver'], { cwd: dir, encoding: 'utf8', env: { ...process.env, ...GIT_ENV } }).replace(
      /\n$/,
      '',
    );
    expect(line.length).toBeGreaterThan(1000);
    const short = `${JSON.stringify(line.slice(0, 48))}… (${Buffer.byteLength(line)} bytes; --verbose prints it whole)`;
    expect(install.stdout).toContain(`git config merge.gcpatch.driver ${short}\n`);
    expect(install.stdout).not.toContain(line.slice(0, 200));
    expect(install.stdout.length).toBeLessThan(1500);

    const doctor = await runCli(['driver', 'doctor'], { cwd: dir, env });
    expect(doctor.stdout).toContain(`ok    config:gcpatch: merge.gcpatch.driver = ${short}\n`);
    expect(doctor.stdout.length).toBeLessThan(2500);

    const verbose = await runCli(['driver', 'doctor', '--verbose'], { cwd: dir, env });
    expect(verbose.stdout).toContain(`ok    config:gcpatch: merge.gcpatch.driver = ${line}\n`);
    const again = await runCli(['driver', 'install', '--verbose'], { cwd: dir, env });
    expect(again.stdout).toContain(`git config merge.gcpatch.driver ${JSON.stringify(line)}\n`);
    const json = JSON.parse((await runCli(['driver', 'doctor', '--json'], { cwd: dir, env })).stdout);
    expect(json.checks.find((c: { name: string }) => c.name === 'config:gcpatch').message).toBe(`merge.gcpatch.driver = ${line}`);
  });
});
