import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { printTerm } from '../../src/coreform/print.js';
import {
  findMergeBases,
  listChangedFiles,
  mergeBase,
  openRepository,
  readFileAtCommit,
  resolveRevision,
  type GitRepository,
} from '../../src/git/repository.js';
import { findPackageAtCommit, loadWorkspaceAtCommit } from '../../src/git/workspace.js';
import { workspaceSourceLoader } from '../../src/git/source.js';
import { workspaceTerm } from '../../src/workspace/workspace.js';
import { ws } from '../diff/helpers.js';
import { git } from '../helpers/git.js';
import { manifest, tempRepo, type TempRepo } from './repo-helpers.js';

let t: TempRepo;
let repo: GitRepository;
let c1: string;
let c2: string;
let left: string;
let right: string;

beforeAll(async () => {
  t = tempRepo();
  c1 = t.commit('one', {
    'pkg/package.toml': manifest('demo', ['a.gc', 'lib/b.gc']),
    'pkg/a.gc': '; comment\n(def a   1)\n(def b 2)\n',
    'pkg/lib/b.gc': '(def c 3)\n',
    README: 'hello\n',
  });
  t.git('tag', '-a', 'v1', '-m', 'release one');
  c2 = t.commit('two', { 'pkg/a.gc': '(def a 10)\n(def b 2)\n', README: null, 'docs/x.txt': 'x' });
  t.git('checkout', '-q', '-b', 'left');
  left = t.commit('left', { 'pkg/lib/b.gc': '(def c 30)\n' });
  t.git('checkout', '-q', 'main');
  t.git('checkout', '-q', '-b', 'right');
  right = t.commit('right', { 'pkg/a.gc': '(def a 10)\n(def b 20)\n' });
  repo = await openRepository(join(t.dir, 'pkg'));
});
afterAll(() => t.cleanup());

describe('git revisions', () => {
  it('opens the repository from a subdirectory', () => {
    expect(repo.dir).toBe(t.dir);
  });

  it('resolves branches, HEAD, suffixes, short oids and annotated tags', async () => {
    expect(await resolveRevision(repo, 'main')).toBe(c2);
    expect(await resolveRevision(repo, 'HEAD')).toBe(right);
    expect(await resolveRevision(repo, 'right~1')).toBe(c2);
    expect(await resolveRevision(repo, 'left^')).toBe(c2);
    expect(await resolveRevision(repo, 'left~2')).toBe(c1);
    expect(await resolveRevision(repo, c1.slice(0, 8))).toBe(c1);
    expect(await resolveRevision(repo, c1)).toBe(c1);
    expect(await resolveRevision(repo, 'v1')).toBe(c1);
    expect(await resolveRevision(repo, 'refs/heads/left')).toBe(left);
  });

  it('rejects unknown revisions and walking past the root', async () => {
    await expect(resolveRevision(repo, 'nope')).rejects.toMatchObject({ code: 'git/unknown-revision', exitCode: 10 });
    await expect(resolveRevision(repo, 'main~5')).rejects.toMatchObject({ code: 'git/unknown-revision' });
  });

  it("without a git program resolves plain names only (isomorphic-git), git's grammar refused", async () => {
    const path = process.env.PATH;
    process.env.PATH = join(t.dir, 'no-programs-here');
    try {
      expect(await resolveRevision(repo, 'main')).toBe(c2);
      expect(await resolveRevision(repo, 'refs/heads/left')).toBe(left);
      expect(await resolveRevision(repo, c1.slice(0, 8))).toBe(c1);
      expect(await resolveRevision(repo, 'v1')).toBe(c1);
      await expect(resolveRevision(repo, 'right~1')).rejects.toMatchObject({ code: 'git/unknown-revision', exitCode: 10 });
    } finally {
      process.env.PATH = path;
    }
    expect(await resolveRevision(repo, 'right~1')).toBe(c2); // control: with git, the same revision resolves
  });

  it('reports a well-formed but absent commit as git/missing-commit', async () => {
    await expect(resolveRevision(repo, '0123456789012345678901234567890123456789')).rejects.toMatchObject({
      code: 'git/missing-commit',
      exitCode: 70,
      message: expect.stringContaining('fetch-depth: 0'),
    });
  });

  it('reads files at a commit', async () => {
    expect(new TextDecoder().decode(await readFileAtCommit(repo, c1, 'README'))).toBe('hello\n');
    expect(await readFileAtCommit(repo, c2, 'README')).toBeUndefined();
    expect(await readFileAtCommit(repo, c2, 'pkg')).toBeUndefined();
    expect(await readFileAtCommit(repo, c2, 'pkg/nope/x')).toBeUndefined();
  });

  it('lists changed files between commits by tree walk', async () => {
    expect(await listChangedFiles(repo, c1, c2)).toEqual([
      { path: 'README', status: 'deleted', fromOid: expect.stringMatching(/^[0-9a-f]{40}$/), toOid: undefined },
      { path: 'docs/x.txt', status: 'added', fromOid: undefined, toOid: expect.stringMatching(/^[0-9a-f]{40}$/) },
      { path: 'pkg/a.gc', status: 'modified', fromOid: expect.any(String), toOid: expect.any(String) },
    ]);
    expect(await listChangedFiles(repo, left, left)).toEqual([]);
    expect((await listChangedFiles(repo, left, right)).map((c) => c.path)).toEqual(['pkg/a.gc', 'pkg/lib/b.gc']);
  });

  it('finds the merge base', async () => {
    expect(await findMergeBases(repo, left, right)).toEqual([c2]);
    expect(await mergeBase(repo, left, right)).toBe(c2);
    expect(t.git('merge-base', 'left', 'right')).toBe(c2);
  });

  it('reports unrelated histories as git/no-merge-base', async () => {
    t.git('checkout', '-q', '--orphan', 'lone');
    const lone = t.commit('unrelated', { 'x.txt': 'x' });
    t.git('checkout', '-q', '-f', 'right');
    await expect(mergeBase(repo, left, lone)).rejects.toMatchObject({ code: 'git/no-merge-base', exitCode: 10 });
  });
});

describe('workspaces at a commit', () => {
  it('finds the package from its directory, its manifest or a file inside it', async () => {
    for (const p of ['pkg', 'pkg/', './pkg/package.toml', 'pkg/lib/b.gc', 'pkg/lib']) {
      expect(await findPackageAtCommit(repo, c1, p)).toEqual({ dir: 'pkg', manifestPath: 'pkg/package.toml' });
    }
    await expect(findPackageAtCommit(repo, c1, 'docs')).rejects.toMatchObject({ code: 'git/package-not-found' });
  });

  it('loads the canonical workspace of the manifest’s modules', async () => {
    const loaded = await loadWorkspaceAtCommit(repo, c1, 'pkg');
    expect(loaded.manifest.name).toBe('demo');
    expect(printTerm(workspaceTerm(loaded.workspace))).toBe(printTerm(workspaceTerm(ws({ 'a.gc': '(def a 1)(def b 2)', 'lib/b.gc': '(def c 3)' }))));
  });

  it('names the commit and file when a listed module is missing', async () => {
    const broken = t.commit('broken', { 'pkg/package.toml': manifest('demo', ['a.gc', 'gone.gc']) });
    await expect(loadWorkspaceAtCommit(repo, broken, 'pkg')).rejects.toMatchObject({ code: 'git/file-not-found' });
    t.git('reset', '-q', '--hard', right);
  });

  it('resolves CLI sources: an existing directory wins, else REV[:PATH]', async () => {
    const load = workspaceSourceLoader(join(t.dir, 'pkg'));
    const disk = await load('.');
    expect(disk.origin).toBe('directory');
    const rev = await load('left');
    expect(rev).toMatchObject({ origin: 'revision', commit: left, packageDir: join(t.dir, 'pkg') });
    const fromRoot = workspaceSourceLoader(t.dir);
    expect((await fromRoot(`${c1}:pkg`)).commit).toBe(c1);
    expect((await fromRoot(`main:./pkg/lib`)).label).toBe(`${c2.slice(0, 12)}:pkg`);
    expect((await fromRoot('main')).label).toBe(`${c2.slice(0, 12)}:pkg`);
    const two = t.commit('second package', { 'other/package.toml': manifest('other', []) });
    await expect(fromRoot(two)).rejects.toMatchObject({ code: 'git/package-not-found', message: expect.stringContaining('no package.toml') });
    await expect(fromRoot(two)).rejects.toMatchObject({ location: { at: expect.stringContaining('other, pkg') } });
    expect((await fromRoot(`${two}:other`)).workspace.modules).toEqual([]);
    t.git('reset', '-q', '--hard', right);
  });
});

describe('shallow clones', () => {
  it('explains missing history with git/missing-commit', async () => {
    const shallowDir = mkdtempSync(join(tmpdir(), 'gcpatch-shallow-'));
    try {
      git(t.dir, 'clone', '-q', '--depth', '1', '--branch', 'left', `file://${t.dir}`, shallowDir);
      git(shallowDir, 'fetch', '-q', '--depth', '1', 'origin', 'right:refs/remotes/origin/right');
      const shallow = await openRepository(shallowDir);
      const head = await resolveRevision(shallow, 'HEAD');
      expect(head).toBe(left);
      await expect(resolveRevision(shallow, 'HEAD~1')).rejects.toMatchObject({
        code: 'git/missing-commit',
        message: expect.stringContaining('this clone is shallow'),
      });
      await expect(loadWorkspaceAtCommit(shallow, c1, 'pkg')).rejects.toMatchObject({ code: 'git/missing-commit' });
      const otherHead = await resolveRevision(shallow, 'origin/right');
      expect(otherHead).toBe(right);
      await expect(findMergeBases(shallow, head, otherHead)).rejects.toMatchObject({ code: 'git/missing-commit', exitCode: 70 });
    } finally {
      rmSync(shallowDir, { recursive: true, force: true });
    }
  });
});

describe('every revision git accepts (gitrevisions)', () => {
  let g: TempRepo;
  let clone: string;
  const ids: Record<string, string> = {};
  beforeAll(() => {
    g = tempRepo();
    ids.c1 = g.commit('one', { 'a.gc': '(def a 1)\n' });
    g.git('checkout', '-q', '-b', 'side');
    ids.s1 = g.commit('side work', { 'b.gc': '(def b 2)\n' });
    g.git('checkout', '-q', 'main');
    ids.c2 = g.commit('two', { 'a.gc': '(def a 2)\n' });
    g.git('merge', '-q', '--no-edit', 'side');
    ids.m = g.git('rev-parse', 'HEAD');
    ids.c3 = g.commit('three', { 'a.gc': '(def a 3)\n' });
    g.git('tag', '-a', '-m', 'release', 'v3');
    ids.c4 = g.commit('four', { 'a.gc': '(def a 4)\n' });
    g.git('fetch', '-q', '.', 'side'); // FETCH_HEAD = side
    clone = mkdtempSync(join(tmpdir(), 'gcpatch-clone-'));
    git(g.dir, 'clone', '-q', g.dir, clone);
  });
  afterAll(() => {
    g.cleanup();
    rmSync(clone, { recursive: true, force: true });
  });

  it('resolves FETCH_HEAD, ^N after ~N, annotated tags, short oids, :/text and the reflog', async () => {
    const repo = await openRepository(g.dir);
    const cases: [string, string][] = [
      ['FETCH_HEAD', ids.s1!],
      ['main~2^2', ids.s1!],
      ['main~2^1', ids.c2!],
      ['main~2^', ids.c2!],
      ['v3', ids.c3!],
      ['v3^{}', ids.c3!],
      ['v3~1', ids.m!],
      [ids.c1!.slice(0, 7), ids.c1!],
      [':/side work', ids.s1!],
      ['main@{1}', ids.c3!],
      ['HEAD', ids.c4!],
    ];
    const got: [string, string][] = [];
    for (const [rev] of cases) got.push([rev, await resolveRevision(repo, rev)]);
    expect(got).toEqual(cases);
  });

  it('resolves @{u} (the upstream of the current branch) in a clone', async () => {
    const repo = await openRepository(clone);
    expect(await resolveRevision(repo, '@{u}')).toBe(ids.c4);
    expect(await resolveRevision(repo, 'origin/side')).toBe(ids.s1);
  });

  it('still names unknown revisions and a tree that is not a commit', async () => {
    const repo = await openRepository(g.dir);
    await expect(resolveRevision(repo, 'no-such-branch')).rejects.toMatchObject({ code: 'git/unknown-revision', exitCode: 10 });
    await expect(resolveRevision(repo, 'main^{tree}')).rejects.toMatchObject({ code: 'git/unknown-revision' });
    await expect(resolveRevision(repo, '--version')).rejects.toMatchObject({ code: 'git/unknown-revision' });
  });
});
