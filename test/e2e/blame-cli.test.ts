// The CLI on a real git history (in-process, test/helpers/run-cli.ts; the first blame through the
// built CLI, bin/gcpatch.js): blame, why and log as a user runs them,
// in a full clone and a shallow one, with exit codes, --json on stdout and one-line errors.
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gcpatch } from '../helpers/cli.js';
import { runCli } from '../helpers/run-cli.js';
import { shopHistory, type ShopHistory } from '../blame/history.js';
import { git } from '../helpers/git.js';

const env = { GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' };

let h: ShopHistory;
let shallow: string;

beforeAll(async () => {
  h = shopHistory();
  shallow = `${h.repo.dir}-shallow`;
  git(h.repo.dir, 'clone', '-q', '--depth', '2', '--no-local', `file://${h.repo.dir}`, shallow);
});

afterAll(async () => {
  h.cleanup();
  rmSync(shallow, { recursive: true, force: true });
});

describe('gcpatch blame / why / log (built CLI, real git)', () => {
  it('blame names the patch through a reformat, from a subdirectory of the package', async () => {
    const r = gcpatch(['blame', 'lib/price.gc', '--rev', h.reformat], { cwd: `${h.repo.dir}/pkgs/shop`, env });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout.split('\n')[2]).toBe(
      ` ${h.patchTotal.slice(0, 12)} (Ada Author 2026-01-04 6) (def shop/price::total …)  — changed: patch "halve the tax base" {:ticket "SHOP-7"} (apply ${r.stdout.match(/apply ([0-9a-f]{12})\), verified\n$/)![1]}), verified`,
    );
  });

  it('why --json follows the evidence rename and move; log --json lists the merge', async () => {
    const why = await runCli(['why', 'shop/tax::rate', '--json'], { cwd: h.repo.dir, env });
    expect(why.status).toBe(0);
    const report = JSON.parse(why.stdout);
    expect(report.trail.map((e: { commit: string; change: string }) => [e.commit, e.change])).toEqual([
      [h.moveRate, 'moved'],
      [h.renameTaxRate, 'renamed'],
      [h.root, 'added'],
    ]);
    const log = JSON.parse((await runCli(['log', '--json', '--max-count', '1'], { cwd: h.repo.dir, env })).stdout);
    expect(log.commits[0]).toMatchObject({ commit: h.merge, parents: [h.handEdit, h.branchPatch], explanation: { how: 'merge', verified: true } });
    expect(log.truncated).toBe(true);
  });

  it('in a shallow clone, blame and why stop at the boundary and say so', async () => {
    // depth 2 from the merge: both its parents are boundaries
    const blame = await runCli(['blame', 'pkgs/shop/lib/price.gc'], { cwd: shallow, env });
    expect(blame.status).toBe(0);
    const lines = blame.stdout.split('\n');
    expect(lines.filter((l) => l.startsWith('history stops at ')).sort()).toEqual(
      [h.handEdit, h.branchPatch].map((o) => `history stops at ${o.slice(0, 12)}: this clone is shallow (git fetch --unshallow for the rest)`).sort(),
    );
    // lib/price.gc is the same in the first parent: its forms are blamed on that boundary
    expect(lines.filter((l) => l.includes('(def ')).map((l) => l.slice(0, 14))).toEqual([`^${h.handEdit.slice(0, 12)} `, `^${h.handEdit.slice(0, 12)} `]);
    const why = JSON.parse((await runCli(['why', 'shop/cart::checkout', '--json'], { cwd: shallow, env })).stdout);
    expect(why.trail.map((e: { commit: string }) => e.commit)).toEqual([h.handEdit]);
    expect(why.end).toEqual({ reason: 'shallow', commit: h.handEdit, removed: [] });
    // the merge's parents are both boundaries and their merge base is not in the clone: listed, not verifiable
    const log = await runCli(['log', '--json'], { cwd: shallow, env });
    expect(log.stderr).toBe('');
    const entries = JSON.parse(log.stdout).commits;
    expect(
      entries.map((c: { commit: string; explanation: { how: string; route: string; verified: boolean } }) => [
        c.commit,
        c.explanation.how,
        c.explanation.route,
        c.explanation.verified,
      ]),
    ).toEqual([[h.merge, 'merge', 'merge-base-missing', false]]);
    expect((await runCli(['log'], { cwd: shallow, env })).stdout).toContain(
      "explained: structural merge of the parents, NOT verified: the merge base of the commit's parents is not in this shallow clone",
    );
  });

  it('errors: one line on stderr naming the path or revision, --json on stdout, exit 10', async () => {
    const mod = await runCli(['blame', 'pkgs/shop/lib/missing.gc', '--json'], { cwd: h.repo.dir, env });
    expect(mod.status).toBe(10);
    expect(JSON.parse(mod.stdout)).toMatchObject({
      ok: false,
      error: { code: 'blame/unknown-module', exitCode: 10, location: { file: 'pkgs/shop/lib/missing.gc', at: 'HEAD' } },
    });
    expect(mod.stderr.split('\n')).toHaveLength(2);
    const rev = await runCli(['why', 'shop/price::gross', '--since', 'v9'], { cwd: h.repo.dir, env });
    expect([rev.status, rev.stderr]).toEqual([10, 'git/unknown-revision: unknown revision "v9": no ref, tag or object of that name\n']);
    expect(rev.stderr).not.toMatch(/^\s+at /m);
  });
});
