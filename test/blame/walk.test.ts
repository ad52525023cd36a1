// The per-commit walk on random commit graphs (git commit-tree, no files): parents first, the same
// commits as `git rev-list`, --since boundaries as `git rev-list SINCE..HEAD` leaves them.
import { rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openRepository } from '../../src/git/repository.js';
import { PackageHistory } from '../../src/blame/walk.js';
import { clockedRepo } from './history.js';
import { gitWith } from '../helpers/git.js';
import { random as seededRandom } from '../helpers/random.js';

function graph(seed: number): { dir: string; oids: string[]; run: (...a: string[]) => string } {
  const repo = clockedRepo();
  const run = (...args: string[]): string => repo.git(...args);
  const tree = gitWith(repo.dir, ['mktree'], { input: '' });
  const random = seededRandom(seed);
  const oids: string[] = [];
  for (let i = 0; i < 30; i++) {
    const parents: string[] = [];
    if (oids.length > 0) parents.push(oids[oids.length - 1 - Math.floor(random() * Math.min(3, oids.length))]!);
    if (oids.length > 3 && random() < 0.3) {
      const p = oids[Math.floor(random() * oids.length)]!;
      if (!parents.includes(p)) parents.push(p);
    }
    oids.push(run('commit-tree', tree, ...parents.flatMap((p) => ['-p', p]), '-m', `c${i}`));
  }
  run('update-ref', 'refs/heads/main', oids[oids.length - 1]!);
  return { dir: repo.dir, oids, run };
}

describe('PackageHistory.walk', () => {
  for (const seed of [1, 2, 3, 4, 5]) {
    it(`walks a random graph parents first (seed ${seed})`, async () => {
      const g = graph(seed);
      try {
        const repo = await openRepository(g.dir);
        const head = g.oids[g.oids.length - 1]!;
        const h = await PackageHistory.walk(repo, { dir: '', head });
        const order = h.commits.map((c) => c.oid);
        expect(new Set(order)).toEqual(new Set(g.run('rev-list', head).split('\n')));
        const at = new Map(order.map((o, i) => [o, i]));
        for (const c of h.commits) for (const p of c.parents) expect(at.get(p)!).toBeLessThan(at.get(c.oid)!);
        expect(h.commits.filter((c) => c.boundary !== null).map((c) => c.boundary)).toEqual(['root']);

        const since = g.oids[10]!;
        const cut = await PackageHistory.walk(repo, { dir: '', head, since });
        const inside = cut.commits.filter((c) => c.boundary === null).map((c) => c.oid);
        expect(new Set(inside)).toEqual(
          new Set(
            g
              .run('rev-list', `${since}..${head}`)
              .split('\n')
              .filter((l) => l !== ''),
          ),
        );
        // every boundary is reachable from --since, and every walked parent is in the walk
        const reachable = new Set(g.run('rev-list', since).split('\n'));
        for (const c of cut.commits.filter((x) => x.boundary !== null)) expect([c.boundary, reachable.has(c.oid)]).toEqual(['since', true]);
        for (const c of cut.commits) for (const p of c.parents) expect(cut.byOid.has(p)).toBe(true);
      } finally {
        rmSync(g.dir, { recursive: true, force: true });
      }
    });
  }
});
