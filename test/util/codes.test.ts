// The error-code registry (src/util/codes.ts) and its meanings (src/util/code-meanings.ts): sorted
// groups, the same codes in both, no dead codes, the docs' exit-code tables, the edit-plan exit rule,
// and no finding code that reuses an error code for something else.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AuditCode } from '../../src/verify-pr/report/findings.js';
import { BlameCode } from '../../src/blame/codes.js';
import { EDIT_ERROR_CODES, TRANSACTION_ERROR_CODES, exitCodeFor } from '../../src/editplan/errors.js';
import { PatchCode } from '../../src/patch/protocol/errors.js';
import { ConflictCode, RefactorErrorCode } from '../../src/refactor/codes.js';
import { CODE_MEANINGS, codeMeaning, FAMILY_MEANINGS } from '../../src/util/code-meanings.js';
import { codeExit, GC_CODE_FAMILIES, GC_CODES, ioErrnoCode, usageCode, type StaticCode } from '../../src/util/codes.js';
import { ExitCode, GcError, ioError } from '../../src/util/errors.js';

const root = join(import.meta.dirname, '..', '..');
const registered = Object.keys(GC_CODES) as StaticCode[];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );
}

describe('the registry', () => {
  /** The groups of codes (a blank line apart) of the table opening with `opening` in a file of src/util/. */
  function groupsOf(file: string, opening: string): string[][] {
    const text = readFileSync(join(root, 'src/util', file), 'utf8');
    const body = text.slice(text.indexOf(opening), text.indexOf('\n}', text.indexOf(opening)));
    return body.split('\n\n').map((group) => [...group.matchAll(/^ {2}'?([^':\s]+)'?: /gm)].map((m) => m[1]!));
  }

  it('lists each group of codes (a blank line apart in the source) in sorted order', () => {
    const groups = groupsOf('codes.ts', 'export const GC_CODES');
    expect(groups.flat()).toEqual(registered);
    expect(groups.length).toBeGreaterThan(10);
    for (const group of groups) expect(group).toEqual([...group].sort());
  });

  it('gives the meanings exactly the codes of the registry, in the same groups and order', () => {
    expect(Object.keys(CODE_MEANINGS)).toEqual(registered);
    expect(groupsOf('code-meanings.ts', 'export const CODE_MEANINGS')).toEqual(groupsOf('codes.ts', 'export const GC_CODES'));
    expect(Object.keys(FAMILY_MEANINGS)).toEqual(Object.keys(GC_CODE_FAMILIES));
  });

  it('gives every code an exit code of ExitCode and a one-line meaning', () => {
    const exits = new Set<number>(Object.values(ExitCode));
    for (const [code, exit] of [...Object.entries(GC_CODES), ...Object.entries(GC_CODE_FAMILIES)]) expect(exits.has(exit), code).toBe(true);
    for (const [code, meaning] of [...Object.entries(CODE_MEANINGS), ...Object.entries(FAMILY_MEANINGS)]) {
      expect(meaning, code).toMatch(/^[^\n]{10,130}$/);
    }
  });

  it('holds no dead code: each one is named in src/ or action/ outside the registry', () => {
    let text = '';
    for (const file of [...sourceFiles(join(root, 'src')), ...sourceFiles(join(root, 'action')).filter((f) => !f.includes(join('action', 'dist')))]) {
      if (file.endsWith(join('util', 'codes.ts')) || file.endsWith(join('util', 'code-meanings.ts'))) continue;
      let source = readFileSync(file, 'utf8');
      // The PatchCode table only names codes: count the codes its names are used for instead.
      if (file.endsWith(join('patch', 'protocol', 'errors.ts'))) source = source.replace(/export const PatchCode = \{[^}]*\}/, '');
      text += source;
    }
    const used = new Set<string>();
    for (const m of text.matchAll(/PatchCode\.(\w+)/g)) used.add(PatchCode[m[1] as keyof typeof PatchCode]);
    const dead = registered.filter((code) => !used.has(code) && !text.includes(`'${code}'`));
    expect(dead).toEqual([]);
  });

  it('gives a GcError without an exit code the registered one', () => {
    expect(new GcError('patch/unknown-op', 'x').exitCode).toBe(10);
    expect(new GcError('patch/report-mismatch', 'x').exitCode).toBe(50);
    expect(new GcError('core/store/io-error', 'x').exitCode).toBe(70);
    expect(new GcError('patch/obligations-failed', 'x').exitCode).toBe(30);
    expect(new GcError('core/store/not-found', 'x', { exitCode: ExitCode.verificationFailed }).exitCode).toBe(50);
  });

  it('builds the dynamic families through their functions, with the family entry', () => {
    expect(ioErrnoCode('ENOENT')).toBe('io/enoent');
    expect(ioErrnoCode(undefined)).toBe('io/unknown');
    expect(usageCode('commander.unknownOption')).toBe('usage/unknownOption');
    expect(codeExit(ioErrnoCode('EACCES'))).toBe(GC_CODE_FAMILIES['io/<errno>']);
    expect(codeExit(usageCode('commander.missingArgument'))).toBe(GC_CODE_FAMILIES['usage/<parser code>']);
    expect(codeExit(ioErrnoCode('EEXIST'))).toBe(GC_CODES['io/eexist']);
    expect(codeMeaning(ioErrnoCode('EACCES'))).toBe(FAMILY_MEANINGS['io/<errno>']);
    expect(codeMeaning(usageCode('commander.missingArgument'))).toBe(FAMILY_MEANINGS['usage/<parser code>']);
    expect(codeMeaning(ioErrnoCode('EEXIST'))).toBe(CODE_MEANINGS['io/eexist']);
    const error = ioError(Object.assign(new Error('gone'), { code: 'ENOENT' }), 'a.gc', 'read');
    expect([error.code, error.exitCode, error.message]).toEqual(['io/enoent', 70, 'cannot read a.gc: gone']);
  });

  it("says an I/O error's reason once, without Node's repeated code and path", () => {
    let thrown: unknown;
    try {
      readFileSync(join(root, 'no-such-file.gc'));
    } catch (e) {
      thrown = e;
    }
    const error = ioError(thrown, 'no-such-file.gc', 'read');
    expect([error.code, error.message]).toEqual(['io/enoent', 'cannot read no-such-file.gc: no such file or directory']);
  });
});

describe('the registry and the code lists of src/', () => {
  it('holds every edit-plan code with the exit code editplan/errors.ts gives it', () => {
    for (const code of [...EDIT_ERROR_CODES, ...TRANSACTION_ERROR_CODES]) {
      expect(GC_CODES[code], code).toBe(exitCodeFor(code));
    }
  });

  it('holds every code of PatchCode, BlameCode and RefactorErrorCode', () => {
    for (const code of [...Object.values(PatchCode), ...Object.values(BlameCode), ...Object.values(RefactorErrorCode)]) {
      expect(registered, code).toContain(code);
    }
  });

  it('shares no code with the planner conflicts, and with the audit findings only the two that report the same condition', () => {
    expect(Object.values(ConflictCode).filter((code) => code in GC_CODES)).toEqual([]);
    // package-at-commit.ts throws these two; verify-pr and explain report them as findings of the same name.
    expect(
      Object.values(AuditCode)
        .filter((code) => code in GC_CODES)
        .sort(),
    ).toEqual(['audit/not-a-regular-file', 'audit/package-unreadable']);
  });
});

describe('the exit-code tables of the docs', () => {
  const CODE = /^(?:[a-z][a-z0-9-]*(?:\/[a-z0-9-]+)+|[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)$/;
  const docs = [
    'README.md',
    ...readdirSync(join(root, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
  ];

  /** `[file:line, code, exit]` for every code a table row pins to an exit code. */
  function documented(): Array<[string, string, number]> {
    const rows: Array<[string, string, number]> = [];
    for (const file of docs) {
      let header: string[] | undefined;
      readFileSync(join(root, file), 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (!line.startsWith('|')) return void (header = undefined);
          const cells = line
            .split('|')
            .slice(1, -1)
            .map((c) => c.trim());
          if (header === undefined) return void (header = cells.map((c) => c.toLowerCase()));
          if (cells.every((c) => /^-+:?$/.test(c))) return;
          // "the twelve spec codes except `BEFORE_MISMATCH`" names a code this row does not have.
          const codes = (s: string) => [...s.replace(/except `[^`]+`/g, '').matchAll(/`([^`]+)`/g)].map((m) => m[1]!).filter((t) => CODE.test(t));
          const exitColumn = header.indexOf('exit');
          const where = `${file}:${i + 1}`;
          if (exitColumn > 0 && /^`[^`]+`$/.test(cells[0]!)) {
            for (const code of codes(cells[0]!)) rows.push([where, code, Number(cells[exitColumn])]);
          } else if ((header[0] === 'code' || header[0] === 'exit') && /^\d+$/.test(cells[0]!)) {
            for (const code of cells.slice(1).flatMap(codes)) rows.push([where, code, Number(cells[0])]);
          }
        });
    }
    return rows;
  }

  it('name only registered codes, each with its registered exit code', () => {
    const rows = documented();
    expect(rows.length).toBeGreaterThan(30);
    const wrong = rows.filter(([, code, exit]) => (GC_CODES as Record<string, number>)[code] !== exit);
    expect(wrong).toEqual([]);
  });
});

describe('the error line', () => {
  it('names the revision once: a message that already says it gets no "(REV)" tail', () => {
    const said = new GcError('blame/unknown-module', 'x.gc is not a module of package p at HEAD', { location: { file: 'x.gc', at: 'HEAD' } });
    expect(said.format()).toBe('x.gc: blame/unknown-module: x.gc is not a module of package p at HEAD');
    const unsaid = new GcError('blame/unknown-module', 'x.gc is not a module of package p', { location: { file: 'x.gc', at: 'HEAD' } });
    expect(unsaid.format()).toBe('x.gc: blame/unknown-module: x.gc is not a module of package p (HEAD)');
  });
});
