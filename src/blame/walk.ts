// The per-commit walk of a package's history: commits parents first, each commit's package read once (parsed forms shared by blob id), and where history stops.
import * as fs from 'node:fs';
import { join } from 'node:path';
import { entryAtCommit, findMergeBases, GitCode, missingCommitError, readFileAtCommit, type GitRepository } from '../git/repository.js';
import { isGcError } from '../util/errors.js';
import { HeadEvidence, explainCommits, readPackageAtCommit, type CommitPackageSnapshot, type CommitRoute, type ModuleCache } from './evidence.js';

/** A person and a time as git records them. `time` is seconds since the epoch, `tz` minutes east of UTC. */
export interface Signature {
  name: string;
  email: string;
  time: number;
  tz: number;
}

/**
 * Why the walk did not go past a commit: `shallow` (the clone's `.git/shallow` lists it, or a
 * parent is not in the object store), `since` (the commit is reachable from `--since`), `root` (it
 * has no parent). `null` for commits whose parents are walked.
 */
export type BoundaryKind = 'shallow' | 'since' | 'root';

/** One commit of the walk. */
export interface HistoryCommit {
  oid: string;
  /** Parents in git's order; `[]` for a boundary commit (its parents are not walked). */
  parents: string[];
  subject: string;
  author: Signature;
  boundary: BoundaryKind | null;
}

/** Options of {@link walkPackageHistory}. */
export interface WalkOptions {
  /** The package directory (repository-relative, `''` for the root). */
  dir: string;
  /** The commit the walk starts from (an oid). */
  head: string;
  /** Stop at commits reachable from this oid (they become `since` boundaries). */
  since?: string;
}

/** The oids a shallow clone lists in `.git/shallow` (its history stops at them). */
function shallowCommits(repo: GitRepository): Set<string> {
  try {
    return new Set(
      fs
        .readFileSync(join(repo.gitdir, 'shallow'), 'utf8')
        .split('\n')
        .map((l) => l.trim())
        .filter((l) => /^[0-9a-f]{40}$/.test(l)),
    );
  } catch {
    return new Set();
  }
}

type RawCommit = { parents: string[]; subject: string; author: Signature; tree: string } | undefined;

async function readRawCommit(repo: GitRepository, oid: string): Promise<RawCommit> {
  try {
    const { commit } = await repo.git.readCommit({ fs, dir: repo.dir, gitdir: repo.gitdir, oid, cache: repo.cache });
    return {
      parents: [...commit.parent],
      tree: commit.tree,
      subject: commit.message.split('\n')[0] ?? '',
      author: { name: commit.author.name, email: commit.author.email, time: commit.author.timestamp, tz: -commit.author.timezoneOffset },
    };
  } catch (error) {
    if ((error as { code?: string } | undefined)?.code === 'NotFoundError') return undefined;
    throw error;
  }
}

/**
 * A package's history from one commit back: the commits, parents first, and lazily each commit's
 * package snapshot and explanation. Every commit's package is read once; modules are parsed once
 * per blob oid (the {@link ModuleCache} shared with the PR check's explainer).
 */
export class PackageHistory {
  /** Commits parents first (a topological order). */
  readonly commits: HistoryCommit[] = [];
  readonly byOid = new Map<string, HistoryCommit>();
  /** Parsed modules by blob oid. */
  readonly modules: ModuleCache = new Map();
  private readonly snapshots = new Map<string, Promise<CommitPackageSnapshot | undefined | Error>>();
  private readonly routes = new Map<string, CommitRoute>();
  private readonly manifestTexts = new Map<string, Promise<string | undefined>>();
  private readonly prefetched = new Set<string>();
  private readonly position = new Map<string, number>();
  private evidence: HeadEvidence | undefined;

  private constructor(
    readonly repo: GitRepository,
    readonly dir: string,
    readonly head: string,
    readonly since: string | null,
  ) {}

  /**
   * Walks the commits reachable from `options.head`, parents first, stopping at shallow-clone
   * boundaries, root commits and commits reachable from `options.since`. No recursion.
   * @throws GcError `git/missing-commit` (exit 70) when the head itself is absent.
   */
  static async walk(repo: GitRepository, options: WalkOptions): Promise<PackageHistory> {
    const history = new PackageHistory(repo, options.dir, options.head, options.since ?? null);
    const shallow = shallowCommits(repo);
    const excluded = options.since === undefined ? new Set<string>() : await ancestors(repo, options.since, shallow);
    const raw = new Map<string, RawCommit>();
    const pending = [options.head];
    const seen = new Set<string>(pending);
    while (pending.length > 0) {
      const oid = pending.pop()!;
      const c = await readRawCommit(repo, oid);
      if (c === undefined) {
        if (oid === options.head) throw missingCommitError(repo, oid);
        continue;
      }
      raw.set(oid, c);
      repo.commitTrees.set(oid, c.tree); // the git layer's memo: its path lookups need not read the commit again
      if (excluded.has(oid) || shallow.has(oid)) continue;
      for (const p of c.parents) {
        if (!seen.has(p)) {
          seen.add(p);
          pending.push(p);
        }
      }
    }
    // Parents first: an iterative depth-first post-order from the head.
    const done = new Set<string>();
    const stack: { oid: string; next: number }[] = [{ oid: options.head, next: 0 }];
    const onStack = new Set<string>([options.head]);
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      const c = raw.get(top.oid)!;
      const walked = excluded.has(top.oid) || shallow.has(top.oid) ? [] : c.parents;
      if (top.next < walked.length) {
        const p = walked[top.next++]!;
        if (!done.has(p) && raw.has(p) && !onStack.has(p)) {
          stack.push({ oid: p, next: 0 });
          onStack.add(p);
        }
        continue;
      }
      stack.pop();
      onStack.delete(top.oid);
      if (done.has(top.oid)) continue;
      done.add(top.oid);
      const missingParent = walked.some((p) => !raw.has(p));
      const boundary: BoundaryKind | null = excluded.has(top.oid)
        ? 'since'
        : shallow.has(top.oid) || missingParent
          ? 'shallow'
          : c.parents.length === 0
            ? 'root'
            : null;
      const commit: HistoryCommit = { oid: top.oid, parents: boundary === null ? [...c.parents] : [], subject: c.subject, author: c.author, boundary };
      history.position.set(top.oid, history.commits.length);
      history.commits.push(commit);
      history.byOid.set(top.oid, commit);
    }
    return history;
  }

  /** The walked commit `oid` (throws when it is not part of the walk: a caller bug). */
  commit(oid: string): HistoryCommit {
    const c = this.byOid.get(oid);
    if (c === undefined) throw new Error(`commit ${oid} is not part of the walk`);
    return c;
  }

  /** The oids where the walk stopped because the clone is shallow. */
  shallowBoundaries(): string[] {
    return this.commits.filter((c) => c.boundary === 'shallow').map((c) => c.oid);
  }

  /**
   * The package at a walked commit: its snapshot, `undefined` when the commit has no package there,
   * or the read error (an unreadable manifest or module) as a value.
   * @throws GcError `git/missing-commit` (exit 70).
   */
  snapshot(oid: string): Promise<CommitPackageSnapshot | undefined | Error> {
    let p = this.snapshots.get(oid);
    if (p === undefined) {
      p = readPackageAtCommit(this.repo, oid, this.dir, this.modules).catch((error: unknown) => {
        if (isGcError(error) && error.code === GitCode.missingCommit) throw error;
        return error instanceof Error ? error : new Error(String(error));
      });
      this.snapshots.set(oid, p);
    }
    return p;
  }

  /** The package snapshot at `oid`, or `undefined` when it is absent or unreadable. */
  async readable(oid: string): Promise<CommitPackageSnapshot | undefined> {
    const s = await this.snapshot(oid);
    return s instanceof Error ? undefined : s;
  }

  /** True when the package tree at `oid` is the same git tree as at `other` (nothing in it changed). */
  async samePackageTree(oid: string, other: string): Promise<boolean> {
    const [a, b] = await Promise.all([entryAtCommit(this.repo, oid, this.dir), entryAtCommit(this.repo, other, this.dir)]);
    return a?.oid === b?.oid;
  }

  /**
   * True when `module` (package-relative) is the same git blob at `oid` and `other` and both
   * manifests list it: `package.toml` is the same blob, or differs only in `hash = "…"` pin lines
   * (gcpatch re-pins on every change). Then the module's forms are the same, without reading or
   * parsing either package.
   */
  async sameModuleBlobs(oid: string, other: string, module: string): Promise<boolean> {
    const manifest = this.dir === '' ? 'package.toml' : `${this.dir}/package.toml`;
    const file = this.dir === '' ? module : `${this.dir}/${module}`;
    const [f1, f2] = await Promise.all([entryAtCommit(this.repo, oid, file), entryAtCommit(this.repo, other, file)]);
    if (f1 === undefined || f1.type !== 'blob' || f1.oid !== f2?.oid) return false;
    const [m1, m2] = await Promise.all([entryAtCommit(this.repo, oid, manifest), entryAtCommit(this.repo, other, manifest)]);
    if (m1 === undefined || m2 === undefined) return false;
    if (m1.oid === m2.oid) return true;
    const [t1, t2] = await Promise.all([this.unpinned(oid, m1.oid, manifest), this.unpinned(other, m2.oid, manifest)]);
    return t1 !== undefined && t1 === t2;
  }

  /**
   * Starts reading, without waiting, what {@link sameModuleBlobs} needs at the `count` commits that
   * precede `oid` in the walk (their trees down to `module` and their manifests), so that reading
   * overlaps the walk back. Each commit is started once; errors surface when the walk reads it.
   */
  prefetchBefore(oid: string, module: string, count: number): void {
    const at = this.position.get(oid) ?? 0;
    const manifest = this.dir === '' ? 'package.toml' : `${this.dir}/package.toml`;
    const file = this.dir === '' ? module : `${this.dir}/${module}`;
    for (const c of this.commits.slice(Math.max(0, at - count), at)) {
      const key = `${c.oid}\0${module}`;
      if (this.prefetched.has(key)) continue;
      this.prefetched.add(key);
      entryAtCommit(this.repo, c.oid, file).catch(() => undefined);
      entryAtCommit(this.repo, c.oid, manifest)
        .then((m) => (m === undefined ? undefined : this.unpinned(c.oid, m.oid, manifest)))
        .catch(() => undefined);
    }
  }

  /** A manifest's text without its `hash = "<hex>"` lines, by blob oid (`undefined` when not UTF-8 text). */
  private unpinned(commit: string, blob: string, manifest: string): Promise<string | undefined> {
    let p = this.manifestTexts.get(blob);
    if (p === undefined) {
      p = readFileAtCommit(this.repo, commit, manifest).then((bytes) => {
        if (bytes === undefined) return undefined;
        const text = new TextDecoder('utf-8', { fatal: false }).decode(bytes);
        return text.replace(/^[ \t]*hash[ \t]*=[ \t]*"[0-9a-f]*"[ \t]*\r?$/gm, '');
      });
      this.manifestTexts.set(blob, p);
    }
    return p;
  }

  /** The head's evidence store, checked lazily (each entry once). */
  headEvidence(): HeadEvidence {
    this.evidence ??= new HeadEvidence(this.repo, this.head, this.dir);
    return this.evidence;
  }

  /**
   * Explains the given walked commits (any subset; explained once each, parents first) with the PR
   * check's routes. A shallow or `--since` boundary is `boundary` (its parents are not read); a root
   * commit, or one no parent of which has the package, is `introduced`; a merge whose parents'
   * merge base is beyond a shallow boundary is an unverified `merge` (route `merge-base-missing`).
   * @returns route by oid for every commit asked.
   */
  async explain(oids: Iterable<string>): Promise<Map<string, CommitRoute>> {
    const wanted = new Set(oids);
    const todo: HistoryCommit[] = [];
    for (const c of this.commits) {
      if (!wanted.has(c.oid) || this.routes.has(c.oid)) continue;
      const parentSnaps = await Promise.all(c.parents.map((p) => this.snapshot(p)));
      const cut = c.boundary === 'shallow' || c.boundary === 'since';
      if (c.boundary !== null || parentSnaps.every((s) => s === undefined)) {
        const how = cut ? 'boundary' : 'introduced';
        this.routes.set(c.oid, { how, route: how, verified: false, evidence: [], unexplained: [], mismatched: [], problems: [] });
      } else if (c.parents.length > 1 && !(await this.mergeBaseReadable(c))) {
        this.routes.set(c.oid, {
          how: 'merge',
          route: 'merge-base-missing',
          verified: false,
          evidence: [],
          unexplained: [],
          mismatched: [],
          problems: ["the merge base of the commit's parents is not in this shallow clone, so the merge cannot be checked (git fetch --unshallow)"],
        });
      } else todo.push(c);
    }
    if (todo.length > 0) {
      const base = await this.baseSnapshot(todo[0]!);
      const explained = await explainCommits(
        this.repo,
        this.dir,
        base,
        todo.map((c) => ({ oid: c.oid, parents: c.parents, subject: c.subject, time: c.author.time })),
        this.modules,
        this.headEvidence(),
      );
      for (const [oid, route] of explained) this.routes.set(oid, route);
    }
    const out = new Map<string, CommitRoute>();
    for (const oid of wanted) {
      const r = this.routes.get(oid);
      if (r !== undefined) out.set(oid, r);
    }
    return out;
  }

  /** False when the merge base of a merge's parents lies beyond a shallow clone's boundary. */
  private async mergeBaseReadable(c: HistoryCommit): Promise<boolean> {
    try {
      await findMergeBases(this.repo, c.parents[0]!, c.parents[1]!);
      return true;
    } catch (error) {
      if (isGcError(error) && error.code === GitCode.missingCommit) return false;
      throw error;
    }
  }

  /** The package the explainer compares reverts against: the first parent's of the oldest commit explained. */
  private async baseSnapshot(oldest: HistoryCommit): Promise<CommitPackageSnapshot> {
    for (const p of oldest.parents) {
      const s = await this.readable(p);
      if (s !== undefined) return s;
    }
    const s = await this.readable(oldest.oid);
    return s!;
  }
}

/** Every commit reachable from `oid` (itself included), stopping at shallow boundaries and missing commits. */
async function ancestors(repo: GitRepository, oid: string, shallow: ReadonlySet<string>): Promise<Set<string>> {
  const out = new Set<string>([oid]);
  const pending = [oid];
  while (pending.length > 0) {
    const o = pending.pop()!;
    if (shallow.has(o)) continue;
    const c = await readRawCommit(repo, o);
    if (c === undefined) continue;
    for (const p of c.parents) {
      if (!out.has(p)) {
        out.add(p);
        pending.push(p);
      }
    }
  }
  return out;
}
