// rangeCommits: the commits of head not reachable from base, parents first — against `git rev-list`,
// on random commit graphs whose commits all share one timestamp (the case that needs re-propagation).
import { describe, expect, it } from 'vitest';
import { rangeCommits } from '../../src/verify-pr/walk/history.js';
import { openRepository } from '../../src/git/repository.js';
import { random } from '../helpers/random.js';
import { tempRepo } from '../git/repo-helpers.js';

describe('rangeCommits', () => {
  it('equals git rev-list base..head on random graphs with equal commit times, parents first', async () => {
    const repo = tempRepo();
    try {
      const env = { GIT_AUTHOR_DATE: '2026-01-01T00:00:00Z', GIT_COMMITTER_DATE: '2026-01-01T00:00:00Z' };
      const tree = repo.git('write-tree');
      const rand = random(7);
      const commits: string[] = [];
      for (let i = 0; i < 40; i++) {
        const parents = new Set<string>();
        if (i > 0) parents.add(commits[Math.floor(rand() * i)]!);
        if (i > 2 && rand() < 0.4) parents.add(commits[Math.floor(rand() * i)]!);
        const args = ['commit-tree', tree, '-m', `c${i}`, ...[...parents].flatMap((p) => ['-p', p])];
        const { execFileSync } = await import('node:child_process');
        commits.push(execFileSync('git', args, { cwd: repo.dir, encoding: 'utf8', env: { ...process.env, ...env, GIT_CONFIG_GLOBAL: '/dev/null' } }).trim());
      }
      const r = await openRepository(repo.dir);
      let checked = 0;
      for (let k = 0; k < 60; k++) {
        const head = commits[10 + Math.floor(rand() * 30)]!;
        const bases = repo
          .git('merge-base', '--all', commits[Math.floor(rand() * 40)]!, head)
          .split('\n')
          .filter(Boolean);
        if (bases.length === 0) continue;
        const base = bases[0]!;
        const expected = repo.git('rev-list', `${base}..${head}`).split('\n').filter(Boolean).sort();
        const got = await rangeCommits(r, base, head);
        expect(got.map((c) => c.oid).sort()).toEqual(expected);
        const at = new Map(got.map((c, i) => [c.oid, i]));
        // Parents (those in the range) come before their children.
        for (const c of got) for (const p of c.parents.filter((q) => at.has(q))) expect(at.get(p)!).toBeLessThan(at.get(c.oid)!);
        checked++;
      }
      expect(checked).toBeGreaterThan(20);
    } finally {
      repo.cleanup();
    }
  });
});
