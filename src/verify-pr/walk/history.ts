/**
 * The commits of a pull request, in the order their evidence must be checked:
 * every commit reachable from the head and not from the base, parents before children. Read
 * from git objects with isomorphic-git; no recursion (a long history cannot overflow the stack).
 */
import * as fs from 'node:fs';
import { missingCommitError, type GitRepository } from '../../git/repository.js';
import { GcError } from '../../util/errors.js';

/** One commit of the range: its oid, its parents (in git's order) and the first line of its message. */
export interface RangeCommit {
  oid: string;
  parents: string[];
  subject: string;
  /** Committer time, seconds since the epoch. */
  time: number;
}

/** The largest range walked (a pull request of more commits is refused with a clear error). */
export const MAX_RANGE_COMMITS = 5000;

async function readCommitInfo(repo: GitRepository, oid: string): Promise<RangeCommit> {
  try {
    const { commit } = await repo.git.readCommit({ fs, dir: repo.dir, oid, cache: repo.cache });
    return { oid, parents: [...commit.parent], subject: commit.message.split('\n')[0] ?? '', time: commit.committer.timestamp };
  } catch (error) {
    if ((error as { code?: string } | undefined)?.code === 'NotFoundError') throw missingCommitError(repo, oid, 'commit', error);
    throw error;
  }
}

const HEAD = 1;
const BASE = 2;

/**
 * The commits reachable from `head` and not from `base`, parents first (a topological order; ties
 * by committer time, then oid). `base` must be an ancestor of `head` (the merge base). Uses git's
 * "paint down to the common ancestors" walk by committer time, re-propagating when a commit learns
 * late that the base reaches it, so equal timestamps stay correct.
 * @returns `[]` when `head` is `base` or an ancestor of it.
 * @throws GcError `git/missing-commit` (exit 70) when a commit of the range or a parent is absent;
 *   `audit/range-too-large` (exit 10) beyond {@link MAX_RANGE_COMMITS} commits.
 */
export async function rangeCommits(repo: GitRepository, base: string, head: string): Promise<RangeCommit[]> {
  const info = new Map<string, RangeCommit>();
  const flags = new Map<string, number>();
  const load = async (oid: string): Promise<RangeCommit> => {
    let c = info.get(oid);
    if (c === undefined) {
      c = await readCommitInfo(repo, oid);
      info.set(oid, c);
    }
    return c;
  };
  // queue of commits whose flags must be pushed to their parents, newest first
  const queue: string[] = [];
  const mark = async (oid: string, flag: number): Promise<void> => {
    const before = flags.get(oid) ?? 0;
    if ((before | flag) === before) return;
    flags.set(oid, before | flag);
    await load(oid);
    queue.push(oid);
  };
  await mark(base, BASE);
  await mark(head, HEAD);
  let headOnly = 0;
  for (;;) {
    // stop when every queued commit is reachable from the base: nothing new can be head-only.
    if (!queue.some((o) => (flags.get(o)! & BASE) === 0)) break;
    queue.sort((a, b) => info.get(a)!.time - info.get(b)!.time || (a < b ? -1 : a > b ? 1 : 0));
    const oid = queue.pop()!;
    const f = flags.get(oid)!;
    if ((f & BASE) === 0 && ++headOnly > MAX_RANGE_COMMITS * 4) {
      throw new GcError('audit/range-too-large', `more than ${MAX_RANGE_COMMITS} commits between the base and the head; verify a shorter range`);
    }
    for (const p of info.get(oid)!.parents) await mark(p, f);
  }
  // A queued base-reachable commit may still have to pass its flag down to a commit already taken as
  // head-only (equal committer times: the walk above ordered them arbitrarily). Finish the painting,
  // through unknown commits too, for every commit at least as recent as the oldest head-only one
  // (parents are never more recent than their children, the assumption git's own walk makes).
  const headOnlyTimes = [...flags].filter(([, f]) => f === HEAD).map(([o]) => info.get(o)!.time);
  const oldest = headOnlyTimes.length === 0 ? Infinity : Math.min(...headOnlyTimes);
  while (queue.length > 0) {
    const oid = queue.pop()!;
    if (info.get(oid)!.time < oldest) continue;
    for (const p of info.get(oid)!.parents) await mark(p, flags.get(oid)!);
  }
  const inRange = [...flags].filter(([, f]) => f === HEAD).map(([o]) => o);
  if (inRange.length > MAX_RANGE_COMMITS) {
    throw new GcError(
      'audit/range-too-large',
      `${inRange.length} commits between the base and the head (at most ${MAX_RANGE_COMMITS}); verify a shorter range`,
    );
  }
  // Kahn's algorithm over the range: a commit comes after every parent inside the range.
  const members = new Set(inRange);
  const pendingParents = new Map<string, number>();
  const children = new Map<string, string[]>();
  for (const o of inRange) {
    const ps = info.get(o)!.parents.filter((p) => members.has(p));
    pendingParents.set(o, ps.length);
    for (const p of ps) {
      let list = children.get(p);
      if (list === undefined) children.set(p, (list = []));
      list.push(o);
    }
  }
  const order = (a: string, b: string): number => info.get(a)!.time - info.get(b)!.time || (a < b ? -1 : a > b ? 1 : 0);
  const ready = inRange.filter((o) => pendingParents.get(o) === 0).sort(order);
  const out: RangeCommit[] = [];
  while (ready.length > 0) {
    const o = ready.shift()!;
    out.push(info.get(o)!);
    for (const c of children.get(o) ?? []) {
      const n = pendingParents.get(c)! - 1;
      pendingParents.set(c, n);
      if (n === 0) {
        ready.push(c);
        ready.sort(order);
      }
    }
  }
  return out;
}
