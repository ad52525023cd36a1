import { describe, expect, it } from 'vitest';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { copyFixture, tempDir } from '../helpers/cli.js';
import { runCli } from '../helpers/run-cli.js';

/** A copy of the greeter fixture with `edit` applied to one module's text. */
function variant(name: string, file: string, edit: (text: string) => string): string {
  const dir = join(tempDir(), name);
  cpSync(copyFixture('packages/greeter'), dir, { recursive: true });
  const path = join(dir, file);
  writeFileSync(path, edit(readFileSync(path, 'utf8')));
  return dir;
}

async function moduleHash(dir: string, file: string): Promise<string> {
  return (await runCli(['hash', join(dir, file)])).stdout.split(' ')[0]!;
}

describe('merge --patch, then apply: the merged patch reproduces the merge on the base package', () => {
  it('writes an applicable .gcpatch for a clean merge and none for a conflicted one', async () => {
    const base = copyFixture('packages/greeter');
    const left = variant('left', 'app.gc', (t) => t.replace('"Ada"', '"Grace"'));
    const right = variant('right', 'strings.gc', (t) => t.replace('"Hello"', '"Hi"'));
    const out = tempDir();
    const patch = join(out, 'merged.gcpatch');
    const merged = await runCli(['merge', '--base', base, '--left', left, '--right', right, '--intent', 'merge test', '--patch', patch]);
    expect(merged.status).toBe(0);
    const applied = await runCli(['apply', '--patch', patch, '--pkg', base]);
    expect(applied.status).toBe(0);
    expect(await moduleHash(base, 'app.gc')).toBe(await moduleHash(left, 'app.gc'));
    expect(await moduleHash(base, 'strings.gc')).toBe(await moduleHash(right, 'strings.gc'));
    expect((await runCli(['verify-pins', '--pkg', base])).status).toBe(0);

    const conflicting = variant('other', 'app.gc', (t) => t.replace('"Ada"', '"Alan"'));
    const none = join(out, 'none.gcpatch');
    const pristine = copyFixture('packages/greeter');
    const conflicted = await runCli(['merge', '--base', pristine, '--left', left, '--right', conflicting, '--patch', none]);
    expect(conflicted.status).toBe(1);
    expect(() => readFileSync(none)).toThrow();
  });
});
