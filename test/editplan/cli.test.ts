import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { SimulatedCrash, applyPlanToRoot, decodeEditPlan } from '../../src/editplan/index.js';
import { scratchDirs } from './helpers.js';

const FIXTURE = fileURLToPath(new URL('../../fixtures/editplan/rename-user/', import.meta.url));
const PLAN = join(FIXTURE, 'plan.json');
const scratch = scratchDirs();

/** A temp copy of the fixture tree. */
function tree(): string {
  const root = scratch('gcpatch-editplan-cli-');
  cpSync(join(FIXTURE, 'tree'), root, { recursive: true });
  return root;
}

/** A plan file in a temp dir, from the fixture plan with `edit` applied to its JSON text. */
function planFile(edit: (text: string) => string): string {
  const dir = scratch('gcpatch-editplan-plan-');
  const path = join(dir, 'plan.json');
  writeFileSync(path, edit(readFileSync(PLAN, 'utf8')));
  return path;
}

async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await main(['node', 'gcpatch', 'edit-plan', ...args], {
    stdout: (s) => (stdout += s),
    stderr: (s) => (stderr += s),
  });
  return { code, stdout, stderr };
}

/** `validate --json` of a plan against a fresh tree: checks the exit code and returns the JSON `error`. */
async function validateJsonError(path: string, exitCode: number): Promise<unknown> {
  const r = await cli('validate', path, '--root', tree(), '--json');
  expect(r.code).toBe(exitCode);
  return JSON.parse(r.stdout).error;
}

describe('gcpatch edit-plan validate', () => {
  it('validates the fixture plan without a root', async () => {
    const r = await cli('validate', PLAN);
    expect(r).toMatchObject({ code: 0, stdout: 'plan is valid: 2 files, 3 edits, 54 text bytes\n' });
  });

  it('verifies against a root and reports per-file results as JSON', async () => {
    const root = tree();
    const r = await cli('validate', PLAN, '--root', root, '--json');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ ok: true, totalFiles: 2, totalEdits: 3, totalTextBytes: 54, verified: true });
    expect(out.files[0]).toMatchObject({ fileIndex: 0, path: 'src/main.ts', edits: 2, bytesBefore: 69, bytesAfter: 77, changed: true });
    expect(readFileSync(join(root, 'src', 'user.ts'))).toEqual(readFileSync(join(FIXTURE, 'tree', 'src', 'user.ts')));
  });

  it('malformed JSON: exit 10, INVALID_PLAN with the plan file, line and column', async () => {
    const path = planFile((t) => t.replace('"operation": "rename_symbol",', '"operation": "rename_symbol",,'));
    const r = await cli('validate', path);
    expect(r.code).toBe(10);
    expect(r.stderr).toMatch(new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:3:32: INVALID_PLAN: malformed JSON`));
  });

  it('--json failure shape: SCHEMA_MISMATCH has no indices', async () => {
    const r = await cli(
      'validate',
      planFile((t) => t.replace('edit-plan.v1', 'edit-plan.v2')),
      '--json',
    );
    expect(r.code).toBe(10);
    const { ok, error } = JSON.parse(r.stdout);
    expect(ok).toBe(false);
    expect(error).toMatchObject({ code: 'SCHEMA_MISMATCH', exitCode: 10 });
    expect(Object.keys(error)).not.toContain('fileIndex');
  });

  it('--json failure shape: OVERLAPPING_EDITS carries fileIndex, editIndex, relatedEditIndex', async () => {
    const path = planFile((t) =>
      t
        .replace('"startChar": 12', '"startChar": 9')
        .replace('"endChar": 19', '"endChar": 16')
        .replace('"startLine": 2', '"startLine": 1')
        .replace('"endLine": 2', '"endLine": 1'),
    );
    expect(await validateJsonError(path, 10)).toMatchObject({
      code: 'OVERLAPPING_EDITS',
      fileIndex: 0,
      editIndex: 0,
      relatedEditIndex: 1,
      location: { file: 'src/main.ts' },
    });
  });

  it('BEFORE_MISMATCH: exit 50 with mismatch evidence', async () => {
    const path = planFile((t) =>
      t.replace(
        '"before": "getUser",\n          "after": "getCustomer",\n          "provenance": "RESOLVED"',
        '"before": "getUsr",\n          "after": "getCustomer",\n          "provenance": "RESOLVED"',
      ),
    );
    expect(await validateJsonError(path, 50)).toMatchObject({
      code: 'BEFORE_MISMATCH',
      fileIndex: 1,
      editIndex: 0,
      mismatch: { sourceRange: { start: 16, end: 23 }, expected: { text: 'getUsr' }, actual: { text: 'getUser' } },
    });
  });

  it('a missing plan file is an I/O error (exit 70)', async () => {
    const r = await cli('validate', join(tmpdir(), 'no-such-plan-for-gcpatch.json'));
    expect(r.code).toBe(70);
    expect(r.stderr).toMatch(/io\/enoent/);
  });

  it('--help explains the subcommands and exit codes', async () => {
    const r = await cli('--help');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/validate \[options\] <plan>/);
    expect(r.stdout).toMatch(/apply \[options\] <plan>/);
    expect(r.stdout).toMatch(/recover \[options\]/);
    expect(r.stdout).toMatch(/50 verification failed/);
  });
});

describe('gcpatch edit-plan apply / recover', () => {
  it('--dry-run --diff prints the diff and writes nothing', async () => {
    const root = tree();
    const r = await cli('apply', PLAN, '--root', root, '--dry-run', '--diff');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      '--- a/src/user.ts\n+++ b/src/user.ts\n@@ -1,3 +1,3 @@\n-export function getUser(id: string) {\n+export function getCustomer(id: string) {\n',
    );
    expect(r.stdout).toContain('would apply 2 files');
    expect(readFileSync(join(root, 'src', 'user.ts'), 'utf8')).toContain('getUser');
    expect(existsSync(join(root, '.gcpatch'))).toBe(false);
  });

  it('applies the plan', async () => {
    const root = tree();
    const r = await cli('apply', PLAN, '--root', root, '--json');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: true, dryRun: false, cleanupPending: false });
    for (const name of ['main.ts', 'user.ts']) {
      expect(readFileSync(join(root, 'src', name))).toEqual(readFileSync(join(FIXTURE, 'expected', 'src', name)));
    }
  });

  it('a changed file fails with SOURCE_HASH_MISMATCH (exit 50) and nothing is written', async () => {
    const root = tree();
    writeFileSync(join(root, 'src', 'user.ts'), 'export function getUser() {}\n');
    const r = await cli('apply', PLAN, '--root', root);
    expect(r.code).toBe(50);
    expect(r.stderr).toMatch(/^src\/user\.ts: SOURCE_HASH_MISMATCH: .*\(file 1\)/);
    expect(readFileSync(join(root, 'src', 'main.ts'))).toEqual(readFileSync(join(FIXTURE, 'tree', 'src', 'main.ts')));
  });

  it('recover rolls back an interrupted apply; a second run has nothing to do', async () => {
    const root = tree();
    const plan = decodeEditPlan(readFileSync(PLAN, 'utf8'));
    expect(() =>
      applyPlanToRoot(plan, root, {
        faultAt: (s) => {
          if (s === 'commit:1') throw new SimulatedCrash(s);
        },
      }),
    ).toThrow(SimulatedCrash);
    const blocked = await cli('apply', PLAN, '--root', root, '--json');
    expect(blocked.code).toBe(70);
    expect(JSON.parse(blocked.stdout).error.code).toBe('RECOVERY_REQUIRED');
    const r = await cli('recover', '--root', root);
    expect(r).toMatchObject({ code: 0, stdout: 'restored src/main.ts\nunchanged src/user.ts\nrolled back: 2 files\n' });
    expect(readFileSync(join(root, 'src', 'main.ts'))).toEqual(readFileSync(join(FIXTURE, 'tree', 'src', 'main.ts')));
    expect(await cli('recover', '--root', root, '--json')).toMatchObject({ code: 0 });
    expect(JSON.parse((await cli('recover', '--root', root, '--json')).stdout)).toEqual({ ok: true, action: 'none', files: [] });
  });

  it('apply without --root is a usage error (exit 10)', async () => {
    const r = await cli('apply', PLAN);
    expect(r.code).toBe(10);
    expect(r.stderr).toMatch(/--root/);
  });
});
