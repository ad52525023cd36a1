// `gcpatch verify-pr --base REV` takes every revision git accepts (in-process on a real repository;
// an unknown revision through the built CLI).
import { describe, expect, it } from 'vitest';
import { git, honestRenamePr } from '../action/helpers.js';
import { gcpatch } from '../helpers/cli.js';
import { runCli } from '../helpers/run-cli.js';

describe('verify-pr --base (e2e)', () => {
  it('FETCH_HEAD, main@{0}, a tag and HEAD~1 all name the base and verify the pull request', async () => {
    const { repo, base } = honestRenamePr();
    git(repo, 'fetch', '-q', '.', 'main'); // FETCH_HEAD = main, as after `git fetch origin main` in CI
    git(repo, 'tag', '-a', '-m', 'base', 'base-tag', base);
    for (const rev of ['FETCH_HEAD', 'main@{0}', 'base-tag', 'HEAD~1']) {
      const r = await runCli(['verify-pr', '--base', rev, '--json'], { cwd: repo });
      expect([rev, r.status, r.stderr]).toEqual([rev, 0, '']);
      expect(JSON.parse(r.stdout)).toMatchObject({ ok: true, base });
    }
    const unknown = gcpatch(['verify-pr', '--base', 'no-such-rev'], { cwd: repo });
    expect(unknown.status).toBe(10);
    expect(unknown.stderr).toContain('git/unknown-revision');
  });
});
