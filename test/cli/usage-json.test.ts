// Every command's usage and option errors print the JSON error on stdout with --json (exit 10),
// and a one-line message on stderr without a stack trace.
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram, main } from '../../src/cli/main.js';
import { ExitCode } from '../../src/util/errors.js';

/** Every leaf command's words (`['store', 'ls']`, …), from the registered program. */
function leafCommands(): string[][] {
  const program = buildProgram({ stdout: () => {}, stderr: () => {}, exitCode: 0 });
  const out: string[][] = [];
  const walk = (c: Command, path: string[]): void => {
    const subs = c.commands.filter((s) => s.name() !== 'help');
    if (subs.length === 0) out.push(path);
    for (const s of subs) walk(s, [...path, s.name()]);
  };
  for (const c of program.commands) walk(c, [c.name()]);
  return out;
}

async function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await main(['node', 'gcpatch', ...args], { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s) });
  return { code, stdout, stderr };
}

const leaves = leafCommands();

describe('usage errors with --json', () => {
  it('finds every command group', () => {
    const names = leaves.map((l) => l.join(' '));
    for (const c of [
      'fmt',
      'diff',
      'merge',
      'apply',
      'pack',
      'audit',
      'store ls',
      'store show',
      'refactor apply',
      'driver install',
      'driver repin',
      'edit-plan apply',
      'verify-pr',
    ]) {
      expect(names).toContain(c);
    }
  });

  it.each(leaves.map((l) => [l.join(' ')]))('%s --no-such-option --json', async (name) => {
    const r = await run([...name.split(' '), '--no-such-option', '--json']);
    expect(r.code).toBe(ExitCode.invalidInput);
    const json = JSON.parse(r.stdout);
    // A missing required option is reported before an unknown one; either is a usage error.
    expect(json).toMatchObject({ ok: false, error: { exitCode: 10 } });
    expect(json.error.code).toMatch(/^usage\/(unknownOption|missingMandatoryOptionValue)$/);
    // An unknown option is named in the message.
    const naming = expect.stringContaining('--no-such-option');
    const anyText = expect.any(String);
    expect(json.error.message).toEqual(json.error.code === 'usage/unknownOption' ? naming : anyText);
    expect(r.stderr).not.toMatch(/^\s+at /m);
  });

  it.each([
    [['verify-pr', '--base', 'main', '--fail-on', 'x'], 'usage/invalid-option'],
    [['store', 'show'], 'usage/missingArgument'],
    [['refactor', 'plan', '--kind', 'rename'], 'usage/missingMandatoryOptionValue'],
    [['no-such-command'], 'usage/unknownCommand'],
    [['driver', 'install', '--hooks', '--global'], 'usage/invalid-option'],
  ])('%j', async (args, code) => {
    const r = await run([...args, '--json']);
    expect(r.code).toBe(ExitCode.invalidInput);
    expect(JSON.parse(r.stdout).error.code).toBe(code);
    // Without --json, nothing on stdout and the message on stderr.
    const plain = await run(args);
    expect(plain.code).toBe(ExitCode.invalidInput);
    expect(plain.stdout).toBe('');
    expect(plain.stderr.length).toBeGreaterThan(0);
  });
});

describe('the help line after a usage error', () => {
  it.each([
    [['store', 'show'], 'gcpatch store show --help'],
    [['apply'], 'gcpatch apply --help'],
    [['refactor', 'plan', '--kind', 'rename'], 'gcpatch refactor plan --help'],
    [['verify-pr'], 'gcpatch verify-pr --help'],
  ])('%j names the command', async (args, help) => {
    const r = await run(args);
    expect(r.code).toBe(ExitCode.invalidInput);
    expect(r.stderr).toContain(`(run \`${help}\` for usage)`);
  });

  it('an unknown command points to the command list', async () => {
    const r = await run(['no-such-command']);
    expect(r.stderr).toContain('(run `gcpatch <command> --help` for usage)');
  });
});
