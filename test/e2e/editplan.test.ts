// End-to-end: the built CLI (`node bin/gcpatch.js edit-plan …`) on a temp copy of a fixture tree.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, copyFixture, gcpatch, tempDir } from '../helpers/cli.js';

const FIXTURE = join(ROOT, 'fixtures', 'editplan', 'rename-user');
const PLAN = join(FIXTURE, 'plan.json');

/** Newest modification time of the sources the edit-plan CLI is built from. */
function newestSource(): number {
  const files = [
    ...readdirSync(join(ROOT, 'src', 'editplan')).map((name) => join(ROOT, 'src', 'editplan', name)),
    join(ROOT, 'src', 'cli', 'editplan.ts'),
    join(ROOT, 'src', 'cli', 'main.ts'),
  ];
  return Math.max(...files.map((file) => statSync(file).mtimeMs));
}

beforeAll(() => {
  // `npm test` builds first; when run alone, rebuild if dist/ is missing or older than the sources.
  const built = join(ROOT, 'dist', 'cli', 'editplan.js');
  if (!existsSync(built) || statSync(built).mtimeMs < newestSource()) {
    const r = spawnSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    if (!existsSync(built)) throw new Error(`tsc -p tsconfig.build.json did not build ${built} (exit ${r.status}):\n${r.stdout}${r.stderr}`);
  }
}, 120_000);

const temps: string[] = [];
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

describe('gcpatch edit-plan (built CLI)', () => {
  it('validate, dry-run diff, apply, stale re-apply, recover', () => {
    const root = copyFixture('editplan/rename-user/tree');
    temps.push(dirname(root));

    const validate = gcpatch(['edit-plan', 'validate', PLAN, '--root', root]);
    expect(validate.status).toBe(0);
    expect(validate.stdout).toContain('plan is valid and verified against');
    expect(validate.stdout).toContain('ok src/main.ts: sha256 matches, 2 edits apply (69 → 77 bytes)');

    const dry = gcpatch(['edit-plan', 'apply', PLAN, '--root', root, '--dry-run', '--diff']);
    expect(dry.status).toBe(0);
    expect(dry.stdout).toContain(
      "--- a/src/main.ts\n+++ b/src/main.ts\n@@ -1,2 +1,2 @@\n-import { getUser } from './user.js';\r\n-console.log(getUser('😀'));\r\n" +
        "+import { getCustomer } from './user.js';\r\n+console.log(getCustomer('😀'));\r\n",
    );
    expect(readFileSync(join(root, 'src', 'main.ts'))).toEqual(readFileSync(join(FIXTURE, 'tree', 'src', 'main.ts')));

    const apply = gcpatch(['edit-plan', 'apply', PLAN, '--root', root, '--json']);
    expect(apply.status).toBe(0);
    const out = JSON.parse(apply.stdout);
    expect(out.ok).toBe(true);
    expect(out.files.map((f: { path: string }) => f.path)).toEqual(['src/main.ts', 'src/user.ts']);
    for (const name of ['main.ts', 'user.ts']) {
      expect(readFileSync(join(root, 'src', name))).toEqual(readFileSync(join(FIXTURE, 'expected', 'src', name)));
    }
    expect(existsSync(join(root, '.gcpatch'))).toBe(false); // no journal, no empty control directory

    const again = gcpatch(['edit-plan', 'apply', PLAN, '--root', root, '--json']);
    expect(again.status).toBe(50);
    expect(JSON.parse(again.stdout).error).toMatchObject({ code: 'SOURCE_HASH_MISMATCH', fileIndex: 0 });

    const recover = gcpatch(['edit-plan', 'recover', '--root', root]);
    expect(recover).toMatchObject({ status: 0, stdout: 'nothing to recover\n' });
  });

  it('invalid plans exit 10 with the code and indices on --json', () => {
    const dir = tempDir();
    temps.push(dir);
    const plan = join(dir, 'plan.json');
    writeFileSync(plan, readFileSync(PLAN, 'utf8').replace('"provenance": "RESOLVED"', '"provenance": "INFERRED"'));
    const r = gcpatch(['edit-plan', 'validate', plan, '--json']);
    expect(r.status).toBe(10);
    expect(JSON.parse(r.stdout)).toEqual({
      ok: false,
      error: { code: 'UNPROVEN_EDIT', message: expect.any(String), exitCode: 10, fileIndex: 1, editIndex: 0, location: { file: 'src/user.ts' } },
    });
    expect(r.stderr).toMatch(/^src\/user\.ts: UNPROVEN_EDIT: .*\(file 1, edit 0\)\n$/);
  });

  it('--help lists the subcommands', () => {
    const r = gcpatch(['edit-plan', '--help']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/validate \[options\] <plan>[\s\S]*apply \[options\] <plan>[\s\S]*recover \[options\]/);
  });
});
