// Exit-code help comes from the registry (src/cli/exit-help.ts over ExitCode): no CLI file types an
// exit number into a help text, and the rendered help shows the registry's numbers.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exitHelp, exitTable } from '../../src/cli/exit-help.js';
import { buildProgram } from '../../src/cli/main.js';
import { ExitCode } from '../../src/util/codes.js';

const cli = join(import.meta.dirname, '..', '..', 'src', 'cli');
/** An exit number typed after "exit"/"Exit", or a help line that opens with one (`'50 verification failed…'`). */
const LITERAL_EXIT = [/\b[Ee]xit(?: codes?:?)?\s+\d/, /^\s*['"`]\s*\d{1,2}\s+[A-Za-z/]/];

function codeLines(file: string): [number, string][] {
  return readFileSync(join(cli, file), 'utf8')
    .split('\n')
    .map((line, i): [number, string] => [i + 1, line])
    .filter(([, line]) => !/^\s*(\*|\/\/|\/\*\*)/.test(line));
}

describe('exit-code help', () => {
  it('the patterns catch a typed number (control)', () => {
    expect(LITERAL_EXIT.some((re) => re.test("    .description('Print it (exit 50 when missing).')"))).toBe(true);
    expect(LITERAL_EXIT.some((re) => re.test("        '70 I/O error.',"))).toBe(true);
    expect(LITERAL_EXIT.some((re) => re.test('        `exit ${ExitCode.io}`'))).toBe(false);
  });

  it.each(readdirSync(cli).filter((f) => f.endsWith('.ts') && f !== 'merge-file.ts'))('src/cli/%s types no exit number', (file) => {
    const hits = codeLines(file).filter(([, line]) => LITERAL_EXIT.some((re) => re.test(line)));
    expect(hits).toEqual([]);
  });

  it("src/cli/merge-file.ts types only git merge-file's own statuses (the count of conflicts, 255)", () => {
    const hits = codeLines('merge-file.ts').filter(([, line]) => LITERAL_EXIT.some((re) => re.test(line)));
    expect(hits).toEqual([]);
  });

  it('renders the numbers of the registry', () => {
    expect(
      exitHelp([
        ['ok', 'merged'],
        ['conflicts', 'conflicts'],
        ['io', 'I/O error'],
      ]),
    ).toBe(`Exit ${ExitCode.ok} merged; ${ExitCode.conflicts} conflicts; ${ExitCode.io} I/O error`);
    expect(
      exitTable([
        ['ok', 'ok'],
        ['invalidInput', 'invalid input'],
      ]),
    ).toBe('\nExit codes:\n  0  ok\n  10 invalid input');
  });

  it("the program's help lists every exit code of the registry", () => {
    let help = '';
    const program = buildProgram({ stdout: () => undefined, stderr: () => undefined, exitCode: 0 });
    program.configureOutput({ writeOut: (s) => (help += s) });
    program.outputHelp();
    const table = help.slice(help.indexOf('Exit codes:'));
    for (const code of Object.values(ExitCode)) expect(table).toMatch(new RegExp(`^  ${code} +\\S`, 'm'));
  });
});
