// Helpers for the scored adversarial suite (test/e2e/attacks.test.ts): template repositories holding
// the ledger package (fixtures/refactor/ledger) with a capability policy, limits and optional
// obligations, copied per case; git run isolated from the user's configuration; the plain-git moves
// an attacker makes (index entries of any mode, `git commit-tree` merges); evidence made with the
// library in-process (refactor plan + apply, `apply --patch`, pack) as the CLI makes it.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { blake3 } from '@noble/hashes/blake3.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { applyPatch, type ApplyResult } from '../../src/patch/apply/apply.js';
import { packOnDisk } from '../../src/patch/apply/host.js';
import { planRefactor } from '../../src/refactor/plan.js';
import { loadRefactorRequest } from '../../src/refactor/request.js';
import { applyRefactorPlan, type ApplyPlanResult } from '../../src/refactor/apply-plan.js';
import { ROOT } from '../helpers/cli.js';

/** git's environment for every command: no global or system config, a fixed author, committer and date. */
export const GIT_ENV: Record<string, string> = {
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_AUTHOR_NAME: 'Attacker',
  GIT_AUTHOR_EMAIL: 'attacker@example.invalid',
  GIT_COMMITTER_NAME: 'Attacker',
  GIT_COMMITTER_EMAIL: 'attacker@example.invalid',
  GIT_AUTHOR_DATE: '2026-01-01T00:00:00Z',
  GIT_COMMITTER_DATE: '2026-01-01T00:00:00Z',
};

/** Runs git in `cwd` and returns its trimmed stdout; throws with stderr on failure. */
export function git(cwd: string, ...args: string[]): string {
  return gitWithInput(cwd, undefined, ...args);
}

/** Runs git with `input` on stdin. */
export function gitWithInput(cwd: string, input: string | Uint8Array | undefined, ...args: string[]): string {
  const r = spawnSync('git', args, { cwd, input, encoding: 'utf8', env: { ...process.env, ...GIT_ENV } });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')} failed in ${cwd}: ${r.stderr}`);
  return r.stdout.trim();
}

/** `git merge` that may stop on a conflict: true when it merged. */
export function tryMerge(cwd: string, ...args: string[]): boolean {
  const r = spawnSync('git', ['merge', '-q', ...args], { cwd, encoding: 'utf8', env: { ...process.env, ...GIT_ENV } });
  return r.status === 0;
}

/** Temporary directories of one test file, removed together. */
export class Scratch {
  private readonly dirs: string[] = [];

  /** A new empty temporary directory. */
  dir(prefix = 'gcpatch-attack-'): string {
    const d = mkdtempSync(join(tmpdir(), prefix));
    this.dirs.push(d);
    return d;
  }

  /** A copy of `template` (a repository) in a new temporary directory; returns the copy's path. */
  copy(template: string): string {
    const dir = join(this.dir(), 'repo');
    cpSync(template, dir, { recursive: true, verbatimSymlinks: true });
    return dir;
  }

  /** Removes every directory made so far. */
  cleanup(): void {
    for (const d of this.dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  }
}

/** Stages everything and commits; returns the new commit. */
export function commitAll(repo: string, message: string): string {
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '--allow-empty', '-m', message);
  return git(repo, 'rev-parse', 'HEAD');
}

/** Commits the index as it is (after `git update-index`); returns the new commit. */
export function commitIndex(repo: string, message: string): string {
  git(repo, 'commit', '-q', '-m', message);
  return git(repo, 'rev-parse', 'HEAD');
}

/** Writes `bytes` as a blob; returns its object id. */
export function writeBlob(repo: string, bytes: string | Uint8Array): string {
  return gitWithInput(repo, bytes, 'hash-object', '-w', '--stdin');
}

/**
 * Puts an index entry of any mode (`100644`, `100755`, `120000` symlink, `160000` gitlink) at
 * `path`, whatever the work tree holds, and removes any index entries under `path/`.
 */
export function setIndexEntry(repo: string, mode: string, oid: string, path: string): void {
  const under = git(repo, 'ls-files', '--', `${path}/`);
  if (under !== '') git(repo, 'rm', '-q', '-r', '--cached', '--', `${path}/`);
  git(repo, 'update-index', '--add', '--cacheinfo', `${mode},${oid},${path}`);
}

/** The object id of `rev:path`. */
export function objectId(repo: string, rev: string, path: string): string {
  return git(repo, 'rev-parse', `${rev}:${path}`);
}

/** A commit of `tree` with the given parents (`git commit-tree`), nothing checked out. */
export function commitTree(repo: string, tree: string, parents: readonly string[], message: string): string {
  return git(repo, 'commit-tree', tree, ...parents.flatMap((p) => ['-p', p]), '-m', message);
}

/** Stages the work tree and writes it as a tree object (for {@link commitTree}). */
export function stageTree(repo: string): string {
  git(repo, 'add', '-A');
  return git(repo, 'write-tree');
}

/** Lowercase hex BLAKE3 of `bytes`: an evidence-store entry's name. */
export function storeName(bytes: string | Uint8Array): string {
  return bytesToHex(blake3(typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : bytes));
}

/** Replaces the first `from` by `to` in a file; throws when `from` is absent (the fixture changed). */
export function edit(file: string, from: string, to: string): void {
  const text = readFileSync(file, 'utf8');
  if (!text.includes(from)) throw new Error(`${file} has no ${JSON.stringify(from)}`);
  writeFileSync(file, text.replace(from, to));
}

/** `gcpatch pack`: re-pins the package's modules and stores its package record. */
export function pack(pkgDir: string): void {
  packOnDisk(join(pkgDir, 'package.toml'));
}

/** `gcpatch refactor plan` + `gcpatch refactor apply` of a rename, with the library. */
export function rename(pkgDir: string, fromSymbol: string, toSymbol: string, obligationRunner?: string): ApplyPlanResult {
  const { request } = loadRefactorRequest(pkgDir, { refactorKind: 'rename', fromSymbol, toSymbol });
  const plan = planRefactor(request);
  if (!plan.safe) throw new Error(`rename ${fromSymbol} → ${toSymbol} is conflicted`);
  return applyRefactorPlan({ pkg: pkgDir, report: plan.report, request, ...(obligationRunner !== undefined ? { obligationRunner } : {}) });
}

/** `gcpatch apply --patch FILE` of a patch given as CoreForm text. */
export function applyPatchText(scratch: Scratch, pkgDir: string, text: string, obligationRunner?: string): ApplyResult {
  const file = join(scratch.dir('gcpatch-attack-patch-'), 'change.gcpatch');
  writeFileSync(file, text);
  return applyPatch({ pkg: pkgDir, patchFile: file, obligationRunner: obligationRunner ?? '' });
}

/** A patch (CoreForm text) with one op. */
export function onePatch(intent: string, op: string): string {
  return `{:version 1 :intent ${JSON.stringify(intent)} :provenance {} :ops [${op}]}\n`;
}

/**
 * Writes an obligation runner: a node script that prints an accepted `genesis/acceptance-v0.2`
 * term naming the package's name and version (read from `package.toml` in the directory it runs
 * in) and every obligation in `GCPATCH_OBLIGATIONS` as passed. Returns the shell command.
 */
export function acceptingRunner(scratch: Scratch): string {
  const script = join(scratch.dir('gcpatch-attack-runner-'), 'accept.cjs');
  writeFileSync(
    script,
    [
      "const fs = require('node:fs');",
      "const text = fs.readFileSync('package.toml', 'utf8');",
      "const key = (k) => (new RegExp('^' + k + ' = \"([^\"]*)\"', 'm').exec(text) || [])[1];",
      "const names = (process.env.GCPATCH_OBLIGATIONS || '').split(' ').filter(Boolean);",
      "const records = names.map((n) => '{:name ' + n + ' :ok true}').join(' ');",
      "process.stdout.write('{:kind \"genesis/acceptance-v0.2\" :ok true :package {:name \"' + key('name') + '\" :version \"' + key('version') + '\"} :obligations [' + records + ']}');",
    ].join('\n'),
  );
  return `${JSON.stringify(process.execPath)} ${JSON.stringify(script)}`;
}

/** The package directory of the single-package templates. */
export const PKG = 'ledger';
/** The obligation the `obligation` template declares on main. */
export const OBLIGATION = 'ledger/tests::balanced';

/** A capability policy that allows nothing (GenesisCode `docs/spec/CAPS_TOML.md`: deny by default). */
export const CAPS_NONE = 'allow = []\n';
/** A policy that allows network and filesystem capabilities. */
export const CAPS_WIDE = 'allow = [\n    "io/fs::read",\n    "io/fs::write",\n    "io/net::http-request",\n]\n';
/** The template's `toolcaps.toml`: one op allowed (so a change can narrow it). */
export const TOOLCAPS = 'allow = ["sys/time::now"]\n';

/**
 * Creates a template repository at `<dir>/repo` on branch `main`: `README.md` and the ledger package
 * at `ledger/` with `caps_policy = "caps.toml"` (`allow = []`), a `toolcaps.toml` (one op allowed),
 * `[limits]`, `[property]` and `property_tests`, packed (so one package record is in the store).
 * @returns the repository path.
 */
export function ledgerTemplate(scratch: Scratch): string {
  const repo = join(scratch.dir('gcpatch-attack-template-'), 'repo');
  git(join(repo, '..'), 'init', '-q', '-b', 'main', 'repo');
  git(repo, 'config', 'commit.gpgsign', 'false');
  const pkg = join(repo, PKG);
  cpSync(join(ROOT, 'fixtures/refactor/ledger'), pkg, { recursive: true });
  writeFileSync(join(repo, 'README.md'), '# ledger\n');
  writeFileSync(join(pkg, 'caps.toml'), CAPS_NONE);
  writeFileSync(join(pkg, 'toolcaps.toml'), TOOLCAPS);
  const manifest = join(pkg, 'package.toml');
  const text = readFileSync(manifest, 'utf8');
  const head = text.slice(0, text.indexOf('[[modules]]'));
  const modules = text.slice(text.indexOf('[[modules]]'));
  writeFileSync(
    manifest,
    head
      .replace('dependencies = []\n', 'caps_policy = "caps.toml"\ndependencies = []\n')
      .replace('obligations = []\n', 'obligations = []\nproperty_tests = ["ledger/tests::amount-properties"]\n') +
      '[limits]\nallow_unlimited = false\nmax_alloc_units = 1000000\nstep_limit = 1000000\n\n[property]\ncases_per_test = 100\n\n' +
      modules,
  );
  pack(pkg);
  commitAll(repo, 'ledger package with a capability policy and limits');
  return repo;
}

/** Declares {@link OBLIGATION} in the ledger's manifest by hand (a commit on main); returns the commit. */
export function declareObligation(repo: string): string {
  edit(join(repo, PKG, 'package.toml'), 'obligations = []', `obligations = [${JSON.stringify(OBLIGATION)}]`);
  return commitAll(repo, 'declare an obligation');
}
