/**
 * Reading a git repository with isomorphic-git (docs/reference/isomorphic-git.md): open a repository
 * with one shared object cache, resolve revisions to commit oids, read files at a commit, list the
 * files changed between two commits, and find merge bases. These are the helpers the CLI and the
 * GitHub Action use; a commit that is not in the object store (shallow clone) is a typed error.
 */
import * as fs from 'node:fs';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { compareUtf8 } from '../util/bytes.js';
import { runGit } from './exec.js';
import { ExitCode, GcError } from '../util/errors.js';

/**
 * An open repository. `dir` is the absolute work-tree root; `cache` is the one isomorphic-git
 * cache object shared by every call on this repository (docs/reference/isomorphic-git.md: without
 * it each call re-reads packfiles).
 */
export interface GitRepository {
  /**
   * isomorphic-git itself, loaded when the first repository is opened: a command that reads no
   * repository (most of the CLI, and the merge driver) does not pay for loading its 570 KB.
   */
  readonly git: IsomorphicGit;
  readonly dir: string;
  readonly gitdir: string;
  readonly cache: object;
  /** Parsed trees by oid (pending reads included), shared by path lookups. */
  readonly trees: Map<string, Promise<readonly TreeEntry[]>>;
  /** Root tree oid by commit oid. */
  readonly commitTrees: Map<string, string>;
}

/** The isomorphic-git API (its default export). */
export type IsomorphicGit = typeof import('isomorphic-git').default;

let loaded: IsomorphicGit | undefined;

/** One entry of a git tree. `mode` is the octal string git stores (`100644`, `040000`, …). */
export interface TreeEntry {
  path: string;
  oid: string;
  type: 'blob' | 'tree' | 'commit';
  mode: string;
}

/** Error codes of `src/git/`. */
export const GitCode = {
  /** No git repository contains the given directory (exit 10). */
  notARepository: 'git/not-a-repository',
  /** A revision names no ref, tag or object (exit 10). */
  unknownRevision: 'git/unknown-revision',
  /** A commit (or its ancestor) is not in the object store, typically a shallow clone (exit 70). */
  missingCommit: 'git/missing-commit',
  /** The two commits share no history (exit 10). */
  noMergeBase: 'git/no-merge-base',
  /** More than one best common ancestor (criss-cross history); the caller must choose (exit 10). */
  multipleMergeBases: 'git/multiple-merge-bases',
  /** A file is not present at the commit (exit 10). */
  fileNotFound: 'git/file-not-found',
  /** No `package.toml` at or above the given path in the commit (exit 10). */
  packageNotFound: 'git/package-not-found',
} as const;

const FULL_OID = /^[0-9a-f]{40}$/;
const SHORT_OID = /^[0-9a-f]{4,39}$/;

function isNotFound(error: unknown): boolean {
  return (error as { code?: string } | undefined)?.code === 'NotFoundError';
}

/**
 * Opens the repository containing `startDir` (searching upward for `.git`, a directory or a
 * worktree's `.git` file).
 * @param startDir any directory inside the work tree; defaults to the current directory.
 * @throws GcError `git/not-a-repository` (exit 10).
 */
export async function openRepository(startDir: string = process.cwd()): Promise<GitRepository> {
  // Loaded here, on first use; `webpackMode: "eager"` keeps it inside the one file of the Action bundle (ncc).
  const git = (loaded ??= (await import(/* webpackMode: "eager" */ 'isomorphic-git')).default);
  let dir: string;
  try {
    dir = await git.findRoot({ fs, filepath: resolve(startDir) });
  } catch (error) {
    throw new GcError(GitCode.notARepository, `${resolve(startDir)} is not inside a git repository`, { cause: error });
  }
  return { git, dir, gitdir: join(dir, '.git'), cache: {}, trees: new Map(), commitTrees: new Map() };
}

function shallowHint(repo: GitRepository): string {
  const shallow = existsSync(join(repo.gitdir, 'shallow'));
  return (
    (shallow ? 'this clone is shallow; ' : '') +
    'fetch the full history (`git fetch --unshallow`, or `fetch-depth: 0` in actions/checkout) or fetch the commit explicitly'
  );
}

/** The `git/missing-commit` error for `oid`, explaining shallow clones. */
export function missingCommitError(repo: GitRepository, oid: string, what = 'commit', cause?: unknown): GcError {
  return new GcError(GitCode.missingCommit, `${what} ${oid} is not in the repository's object store: ${shallowHint(repo)}`, {
    exitCode: ExitCode.io,
    location: { at: oid },
    details: { oid },
    cause,
  });
}

async function readCommitOrMissing(repo: GitRepository, oid: string, what: string) {
  try {
    return await repo.git.readCommit({ fs, dir: repo.dir, oid, cache: repo.cache });
  } catch (error) {
    if (isNotFound(error)) throw missingCommitError(repo, oid, what, error);
    throw error;
  }
}

/**
 * A revision that is a plain name, resolved by isomorphic-git when no `git` program can run: a full
 * or abbreviated (≥ 4 hex digits) object id, or a ref as `resolveRef` finds it (`HEAD`, a branch,
 * tag or remote-tracking ref, a full ref name). Anything else is git's grammar: `undefined`.
 */
async function resolveNameWithoutGit(repo: GitRepository, name: string): Promise<string | undefined> {
  if (FULL_OID.test(name)) return name;
  try {
    return await repo.git.resolveRef({ fs, dir: repo.dir, ref: name });
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
  if (SHORT_OID.test(name)) {
    try {
      return await repo.git.expandOid({ fs, dir: repo.dir, oid: name, cache: repo.cache });
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }
  return undefined;
}

/**
 * Resolves a revision to a commit oid with git's one grammar (gitrevisions(7): `FETCH_HEAD`,
 * `@{u}`, `main~2^2`, `v1.0^{}`, a tag, a short oid, `:/message`, …): `git rev-parse --verify` in
 * the work tree, peeled to a commit (annotated tags are peeled). gcpatch has no grammar of its own;
 * it only explains git's refusals: a well-formed object id that is absent, or a `~`/`^` walk past
 * the cut of a shallow clone, is missing history, not an unknown name. When no `git` program can
 * run, isomorphic-git resolves plain names (object ids and refs) and nothing else.
 * @returns the 40-hex commit oid.
 * @throws GcError `git/unknown-revision` (exit 10) when the name resolves to nothing;
 *   `git/missing-commit` (exit 70) when the commit or an ancestor is absent (shallow clone).
 * @example await resolveRevision(repo, 'main~2')
 */
export async function resolveRevision(repo: GitRepository, rev: string): Promise<string> {
  const byGit = gitRevParse(repo, rev);
  if (byGit.oid !== undefined) return (await readCommitOrMissing(repo, byGit.oid, `revision ${rev}:`)).oid;
  const named = byGit.ran ? (FULL_OID.test(rev) ? rev : undefined) : await resolveNameWithoutGit(repo, rev);
  if (named !== undefined) return (await readCommitOrMissing(repo, named, `revision ${rev}:`)).oid;
  if (byGit.ran) throwIfPastShallowCut(repo, rev);
  throw new GcError(GitCode.unknownRevision, `unknown revision ${JSON.stringify(rev)}: no ref, tag or object of that name`, {
    location: { at: rev },
  });
}

/**
 * In a shallow clone, `rev` ending in `~N`/`^N` whose start git resolves walks into history the
 * clone does not have: `git/missing-commit` (exit 70) with the fetch hint.
 */
function throwIfPastShallowCut(repo: GitRepository, rev: string): void {
  if (!existsSync(join(repo.gitdir, 'shallow'))) return;
  const start = /^(.+?)(?:[~^]\d*)+$/.exec(rev)?.[1];
  if (start === undefined || gitRevParse(repo, start).oid === undefined) return;
  throw new GcError(GitCode.missingCommit, `revision ${rev}: it walks past the history of this clone from ${start}: ${shallowHint(repo)}`, {
    exitCode: ExitCode.io,
    location: { at: rev },
    details: { rev },
  });
}

/**
 * `git rev-parse --verify <rev>`, peeled to a commit, in the work tree: the commit oid, or
 * undefined (unknown, not a commit, or no git); `ran` is false when no git program could run.
 */
function gitRevParse(repo: GitRepository, rev: string): { oid: string | undefined; ran: boolean } {
  if (rev === '' || rev.includes('\0')) return { oid: undefined, ran: true };
  let ran = true;
  const parse = (arg: string) => {
    const r = runGit(['rev-parse', '--verify', '--quiet', '--end-of-options', arg], { cwd: repo.dir });
    if (r.failure !== undefined && r.failure.kind === 'missing') ran = false;
    const oid = r.status === 0 ? r.stdout.trim() : '';
    return FULL_OID.test(oid) ? oid : undefined;
  };
  // the object first (`:/text` must not get a suffix), then peeled to its commit (annotated tags)
  const object = parse(rev);
  return { oid: object === undefined ? undefined : parse(`${object}^{commit}`), ran };
}

/** The root tree oid of a commit. @throws GcError `git/missing-commit` (exit 70). */
export async function commitTree(repo: GitRepository, commitOid: string): Promise<string> {
  let tree = repo.commitTrees.get(commitOid);
  if (tree === undefined) {
    tree = (await readCommitOrMissing(repo, commitOid, 'commit')).commit.tree;
    repo.commitTrees.set(commitOid, tree);
  }
  return tree;
}

/** The entries of a tree object (memoized per repository). */
export async function readTreeEntries(repo: GitRepository, treeOid: string): Promise<readonly TreeEntry[]> {
  let entries = repo.trees.get(treeOid);
  if (entries === undefined) {
    entries = repo.git
      .readTree({ fs, dir: repo.dir, oid: treeOid, cache: repo.cache })
      .then(({ tree }) => tree.map((e): TreeEntry => ({ path: e.path, oid: e.oid, type: e.type, mode: e.mode })));
    repo.trees.set(treeOid, entries);
  }
  return entries;
}

/**
 * Looks up a repository-relative path (`/`-separated; `""` is the root) in a commit.
 * @returns the tree entry, a synthetic tree entry for the root, or `undefined` when absent.
 * @throws GcError `git/missing-commit` (exit 70).
 */
export async function entryAtCommit(repo: GitRepository, commitOid: string, filepath: string): Promise<TreeEntry | undefined> {
  let entry: TreeEntry = { path: '', oid: await commitTree(repo, commitOid), type: 'tree', mode: '040000' };
  for (const part of filepath.split('/').filter((p) => p !== '' && p !== '.')) {
    if (entry.type !== 'tree') return undefined;
    const next = (await readTreeEntries(repo, entry.oid)).find((e) => e.path === part);
    if (next === undefined) return undefined;
    entry = next;
  }
  return entry;
}

/**
 * Reads a file's bytes at a commit.
 * @param filepath repository-relative, `/`-separated.
 * @returns the blob bytes, or `undefined` when the commit has no file at that path.
 * @throws GcError `git/missing-commit` (exit 70).
 * @example await readFileAtCommit(repo, oid, 'pkg/package.toml')
 */
export async function readFileAtCommit(repo: GitRepository, commitOid: string, filepath: string): Promise<Uint8Array | undefined> {
  const entry = await entryAtCommit(repo, commitOid, filepath);
  if (entry === undefined || entry.type !== 'blob') return undefined;
  const { blob } = await repo.git.readBlob({ fs, dir: repo.dir, oid: entry.oid, cache: repo.cache });
  return blob;
}

/** One file changed between two commits. Oids are blob ids (`undefined` on the absent side). */
export interface ChangedFile {
  path: string;
  status: 'added' | 'deleted' | 'modified';
  fromOid: string | undefined;
  toOid: string | undefined;
}

/**
 * Lists the files (blobs and submodule links) that differ between two commits, by walking both
 * trees and skipping identical subtrees by oid. A mode change counts as modified; a path that is
 * a file on one side and a directory on the other shows as the file deleted/added plus the
 * directory's files. No rename detection.
 * @returns changes sorted by path (UTF-8 byte order).
 * @throws GcError `git/missing-commit` (exit 70).
 */
export async function listChangedFiles(repo: GitRepository, fromCommit: string, toCommit: string): Promise<ChangedFile[]> {
  const out: ChangedFile[] = [];
  for (const e of await listChangedEntries(repo, fromCommit, toCommit)) {
    const fromOid = e.from !== undefined && e.from.kind !== 'tree' ? e.from.oid : undefined;
    const toOid = e.to !== undefined && e.to.kind !== 'tree' ? e.to.oid : undefined;
    if (fromOid !== undefined && toOid !== undefined) out.push({ path: e.path, status: 'modified', fromOid, toOid });
    else if (fromOid !== undefined) out.push({ path: e.path, status: 'deleted', fromOid, toOid: undefined });
    else if (toOid !== undefined) out.push({ path: e.path, status: 'added', fromOid: undefined, toOid });
  }
  return out;
}

/** What a tree entry is, from its git mode: a regular file, an executable, a symlink, a gitlink (submodule) or a tree. */
export type ObjectKind = 'blob' | 'executable' | 'symlink' | 'gitlink' | 'tree';

/** The {@link ObjectKind} of a git mode string (`100644`, `100755`, `120000`, `160000`, `040000`). */
export function objectKindOfMode(mode: string): ObjectKind {
  const m = mode.replace(/^0+/, '');
  if (m === '100755') return 'executable';
  if (m === '120000') return 'symlink';
  if (m === '160000') return 'gitlink';
  if (m === '40000') return 'tree';
  return 'blob';
}

/** One side of a {@link ChangedEntry}: the object id, its mode and its kind. */
export interface EntrySide {
  oid: string;
  mode: string;
  kind: ObjectKind;
}

/** A path that differs between two commits, with the object kind and mode on each side (absent = `undefined`). */
export interface ChangedEntry {
  path: string;
  from: EntrySide | undefined;
  to: EntrySide | undefined;
}

/**
 * Lists every path that differs between two commits: blobs, executables, symlinks and gitlinks whose
 * oid or mode changed, and paths that are a tree on one side and something else (or nothing) on the
 * other (the tree itself is listed, and its contents below it). Identical subtrees are skipped by oid.
 * Unlike {@link listChangedFiles} nothing is folded: a mode change, a kind change and a
 * file-to-directory change are each their own row.
 * @returns entries sorted by path (UTF-8 byte order).
 * @throws GcError `git/missing-commit` (exit 70).
 */
export async function listChangedEntries(repo: GitRepository, fromCommit: string, toCommit: string): Promise<ChangedEntry[]> {
  await commitTree(repo, fromCommit);
  await commitTree(repo, toCommit);
  const out: ChangedEntry[] = [];
  const side = async (e: Awaited<ReturnType<IsomorphicGit['TREE']>> | null | undefined): Promise<EntrySide | undefined> => {
    if (e === null || e === undefined) return undefined;
    const w = e as unknown as { mode(): Promise<number>; oid(): Promise<string> };
    const mode = (await w.mode()).toString(8).padStart(6, '0');
    return { oid: await w.oid(), mode, kind: objectKindOfMode(mode) };
  };
  await repo.git.walk({
    fs,
    dir: repo.dir,
    cache: repo.cache,
    trees: [repo.git.TREE({ ref: fromCommit }), repo.git.TREE({ ref: toCommit })],
    map: async (filepath, [a, b]) => {
      if (filepath === '.') return true;
      const [sa, sb] = [await side(a as never), await side(b as never)];
      if (sa?.kind === 'tree' && sb?.kind === 'tree') return sa.oid === sb.oid ? null : true;
      if (sa !== undefined && sb !== undefined && sa.oid === sb.oid && sa.mode === sb.mode) return true;
      out.push({ path: filepath, from: sa, to: sb });
      return true;
    },
  });
  return out.sort((x, y) => compareUtf8(x.path, y.path));
}

/**
 * The best common ancestors of two commits (isomorphic-git `findMergeBase`); more than one for a
 * criss-cross history, none for unrelated histories. isomorphic-git returns none, silently, when
 * history is cut (shallow clone); so an empty answer is confirmed by walking both histories to
 * their roots, and a missing ancestor is reported instead.
 * @throws GcError `git/missing-commit` (exit 70) when either commit or needed history is absent.
 */
export async function findMergeBases(repo: GitRepository, a: string, b: string): Promise<string[]> {
  await commitTree(repo, a);
  await commitTree(repo, b);
  let bases: string[];
  try {
    bases = (await repo.git.findMergeBase({ fs, dir: repo.dir, oids: [a, b], cache: repo.cache })) as string[];
  } catch (error) {
    if (isNotFound(error)) {
      const what = (error as { data?: { what?: string } }).data?.what ?? 'an ancestor';
      throw missingCommitError(repo, what, 'ancestor', error);
    }
    throw error;
  }
  if (bases.length === 0) {
    await assertCompleteHistory(repo, a);
    await assertCompleteHistory(repo, b);
  }
  return bases;
}

/** Walks every ancestor of `oid`; throws `git/missing-commit` at the first one not in the store. */
async function assertCompleteHistory(repo: GitRepository, oid: string): Promise<void> {
  const seen = new Set<string>([oid]);
  const pending = [oid];
  while (pending.length > 0) {
    const { commit } = await readCommitOrMissing(repo, pending.pop()!, 'ancestor commit');
    for (const parent of commit.parent) {
      if (!seen.has(parent)) {
        seen.add(parent);
        pending.push(parent);
      }
    }
  }
}

/**
 * The single merge base of two commits, as `git merge-base` gives for ordinary histories.
 * @throws GcError `git/no-merge-base` or `git/multiple-merge-bases` (exit 10), `git/missing-commit` (exit 70).
 */
export async function mergeBase(repo: GitRepository, a: string, b: string): Promise<string> {
  const bases = await findMergeBases(repo, a, b);
  if (bases.length === 0) throw new GcError(GitCode.noMergeBase, `commits ${a} and ${b} have no common ancestor`);
  if (bases.length > 1) {
    throw new GcError(
      GitCode.multipleMergeBases,
      `commits ${a} and ${b} have ${bases.length} merge bases (${bases.join(', ')}); pass one explicitly with --base`,
      { details: { bases } },
    );
  }
  return bases[0]!;
}
