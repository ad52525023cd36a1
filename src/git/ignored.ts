/**
 * Which paths git ignores, asked of git itself (`git check-ignore`, docs/init.md "What init writes
 * to .gitignore"): in a work tree, or as the `.gitignore` files of one commit would have it. Used by
 * `gcpatch init` (the evidence exceptions and their check), by the commands that write evidence (a
 * warning when what they wrote would not reach a commit) and by `verify-pr` (a package without
 * evidence whose evidence paths the head's `.gitignore` ignores).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { runGit, runGitBytes } from './exec.js';

/** Why one path is ignored: the pattern git matched last and where it is (`.gitignore:3`). */
export interface IgnoreRule {
  /** The path asked about, relative to the work tree top, `/`-separated. */
  path: string;
  /** The file holding the pattern, as git names it (relative to the work tree top, or absolute for a global excludes file). */
  source: string;
  /** Its 1-based line. */
  line: number;
  pattern: string;
}

/**
 * The paths among `paths` (relative to the work tree top `top`, `/`-separated) that git would ignore,
 * each with the rule that ignores it, in the order given. Tracked files are asked about as if they
 * were not (`--no-index`): the question is whether a new file there would be added by `git add .`.
 * Empty when none is, or when git cannot answer (not a repository, git missing): this is a warning's
 * input, never a gate.
 */
export function ignoredPaths(top: string, paths: readonly string[], git?: string): IgnoreRule[] {
  if (paths.length === 0) return [];
  const r = runGit(['-c', 'core.quotePath=false', 'check-ignore', '--no-index', '-v', '--', ...paths], { cwd: top, git });
  if (r.status !== 0 || r.failure !== undefined) return [];
  const out: IgnoreRule[] = [];
  // -v: `<source>:<line>:<pattern>TAB<path>` per path whose last matching pattern is known (-z needs --stdin).
  for (const l of r.stdout.split('\n')) {
    const m = /^(.*?):(\d+):(.*)\t(.*)$/.exec(l);
    if (!m) continue;
    const pattern = m[3]!;
    // A negated pattern (`!x`) matched last: the path is not ignored.
    if (pattern.startsWith('!')) continue;
    out.push({ source: m[1]!, line: Number(m[2]), pattern, path: m[4]! });
  }
  return out;
}

/**
 * {@link ignoredPaths} as the `.gitignore` files of `commit` would have it (the root's and those of
 * every folder on the way to a path; not the user's own excludes): they are copied into a scratch
 * repository, which is removed again. `cwd` is inside the repository holding `commit`.
 */
export function ignoredPathsAtCommit(cwd: string, commit: string, paths: readonly string[], git?: string): IgnoreRule[] {
  if (paths.length === 0) return [];
  const folders = new Set<string>(['']);
  for (const p of paths) {
    const parts = p.split('/');
    for (let i = 1; i < parts.length; i++) folders.add(parts.slice(0, i).join('/'));
  }
  const files: [string, Buffer][] = [];
  for (const folder of [...folders].sort()) {
    const name = folder === '' ? '.gitignore' : `${folder}/.gitignore`;
    const blob = runGitBytes(['cat-file', 'blob', `${commit}:${name}`], { cwd, git });
    if (blob.status === 0) files.push([name, blob.stdout]);
  }
  if (files.length === 0) return [];
  const scratch = mkdtempSync(join(tmpdir(), 'gcpatch-ignore-'));
  try {
    if (runGit(['init', '-q', scratch], { git }).status !== 0) return [];
    for (const [name, bytes] of files) {
      mkdirSync(dirname(join(scratch, name)), { recursive: true });
      writeFileSync(join(scratch, name), bytes);
    }
    // Only the commit's files count: a rule from the user's own excludes file (an absolute source) is left out.
    return ignoredPaths(scratch, paths, git).filter((r) => !r.source.startsWith('/'));
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * The paths a package's evidence lives at, relative to the work tree top (`pkg` is the package
 * folder relative to it, `''` for the top): a store entry (its name is any 64 hex digits) and the
 * acceptance pointer. What `gcpatch init` makes reach commits and what the warnings probe.
 */
export function evidenceProbePaths(pkg: string): string[] {
  const at = pkg === '' || pkg === '.' ? '' : `${pkg}/`;
  return [`${at}.genesis/store/${'0'.repeat(64)}`, `${at}.genesis/last_acceptance`];
}
