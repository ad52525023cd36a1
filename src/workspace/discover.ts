/**
 * Package discovery on disk for the package commands (`apply`, `pack`, `audit`, `store`,
 * `refactor`, `verify-pins`, …): the same rule `gcpatch diff` uses for git revisions — the package
 * containing the current directory, else the repository's only package — with `--pkg` to choose.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { compareUtf8 } from '../util/bytes.js';
import { GcError } from '../util/errors.js';
import { resolveManifestPath } from './package.js';

/** Stable error codes of package discovery (exit 10). */
export const DiscoverCode = {
  /** No `package.toml` in the current directory, above it, or anywhere in the repository. */
  notFound: 'pkg/not-found',
  /** The current directory is in no package and the repository has several. */
  ambiguous: 'pkg/ambiguous',
} as const;

/** Directories never searched for packages: VCS data, dependencies, evidence stores. */
const SKIP = new Set(['.git', 'node_modules', '.genesis']);
/** Upper bound on directories visited when scanning a repository for its packages. */
const SCAN_LIMIT = 20_000;

/**
 * The absolute `package.toml` path a package command works on.
 *
 * - `pkg` given: that `package.toml` or the directory holding one (`resolveManifestPath`).
 * - otherwise: the nearest `package.toml` in `cwd` or a parent directory, not above the top of
 *   the git work tree containing `cwd` (the directory holding `.git`); when there is none, the
 *   only `package.toml` in that work tree.
 *
 * @param pkg the `--pkg` argument, or undefined when the user gave none.
 * @param cwd where to start; default `process.cwd()`.
 * @throws GcError `pkg/not-found` (exit 10) when no package is found, `pkg/ambiguous` (exit 10)
 *   when the work tree has several and `cwd` is in none (the message lists them, relative to
 *   `cwd`); `io/enoent` (exit 70) for a `pkg` that does not exist.
 */
export function discoverManifest(pkg: string | undefined, cwd: string = process.cwd()): string {
  if (pkg !== undefined) return resolveManifestPath(resolve(cwd, pkg));
  let dir = resolve(cwd);
  let top: string | undefined;
  for (;;) {
    if (isFile(join(dir, 'package.toml'))) return join(dir, 'package.toml');
    if (existsSync(join(dir, '.git'))) {
      top = dir;
      break;
    }
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  const fix = 'run the command inside a package directory or pass --pkg DIR';
  if (top === undefined) {
    throw new GcError(DiscoverCode.notFound, `no package.toml in ${resolve(cwd)} or any directory above it; ${fix}`, {
      location: { file: resolve(cwd) },
    });
  }
  const found = packagesUnder(top);
  if (found.length === 1) return found[0]!;
  if (found.length === 0) {
    throw new GcError(DiscoverCode.notFound, `no package.toml in the repository ${top}; ${fix}`, { location: { file: top } });
  }
  const names = found.map((f) => relative(cwd, dirname(f)) || '.');
  // The message names a few; `details.candidates` (the --json error) holds them all.
  const shown = names.length > MAX_NAMED ? `${names.slice(0, MAX_NAMED - 1).join(', ')} and ${names.length - MAX_NAMED + 1} more` : names.join(', ');
  throw new GcError(
    DiscoverCode.ambiguous,
    `the current directory is in no package and the repository has ${found.length}: ${shown}; pass --pkg with one of them`,
    { location: { file: resolve(cwd) }, details: { candidates: names } },
  );
}

/** How many packages a `pkg/ambiguous` message names before `and N more`. */
const MAX_NAMED = 10;

/**
 * Every `package.toml` below `top` (breadth-first, no recursion; `.git`, `node_modules` and
 * `.genesis` are skipped), as absolute paths sorted by UTF-8 bytes.
 */
export function packagesUnder(top: string): string[] {
  const out: string[] = [];
  const queue = [top];
  let visited = 0;
  while (queue.length > 0 && visited < SCAN_LIMIT) {
    const dir = queue.shift()!;
    visited++;
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const e of entries) {
      if (e.isDirectory() && !SKIP.has(e.name)) queue.push(join(dir, e.name));
      else if (e.isFile() && e.name === 'package.toml') out.push(join(dir, e.name));
    }
  }
  return out.sort(compareUtf8);
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * The one command that re-pins the package in `packageDir` (e.g. after a merge left `hash = ""`
 * pins): `gcpatch pack` when it is the current directory, else `gcpatch pack --pkg <relative dir>`.
 */
export function repinCommand(packageDir: string, cwd: string = process.cwd()): string {
  const rel = relative(cwd, packageDir);
  if (rel === '') return 'gcpatch pack';
  const shown = /^[A-Za-z0-9._/@+-]+$/.test(rel) ? rel : `'${rel.replace(/'/g, `'\\''`)}'`;
  return `gcpatch pack --pkg ${shown}`;
}
