/**
 * Re-pinning after a merge: every package of the work tree a merge, rebase or amend left with a
 * stale pin is re-pinned with `pack`: an empty `hash = ""` pin (what the manifest driver writes when
 * both sides changed a module) or a wrong one (only one side re-pinned a module both sides changed,
 * so the merged module's hash is neither side's pin). `gcpatch driver doctor` reports the empty ones
 * left. Nothing is ever committed on the user's behalf: the re-pinned `package.toml` is left
 * modified in the work tree (docs/driver.md "After a merge").
 */
import { readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { runGit } from '../git/exec.js';
import { packOnDisk } from '../patch/apply/host.js';
import { GcError, isGcError } from '../util/errors.js';
import { packagesUnder, repinCommand } from '../workspace/discover.js';
import { parseManifest } from '../workspace/manifest.js';
import { loadPackage, pinFindings } from '../workspace/package.js';
import { hooksInstalled } from './hooks.js';
import type { DoctorCheck } from './run-line.js';

/** One package that had stale (empty, missing or wrong) pins and what re-pinning did. */
export interface RepinResult {
  /** The package directory, relative to the work tree top (`.` for the top). */
  package: string;
  manifest: string;
  /** Every pin `pack` changed: the empty ones, and any other that did not match its module. `was` is the old pin. */
  repinned: { path: string; was: string; hash: string }[];
  /** Set when the package could not be re-pinned (e.g. a module does not parse); nothing was written for it. */
  error: { code: string; message: string } | undefined;
}

/** The modules of the manifest at `file` whose pin is empty (`hash = ""`); empty when unreadable. */
export function emptyPins(file: string): string[] {
  try {
    return parseManifest(readFileSync(file, 'utf8'), file)
      .modules.filter((m) => m.hash === '')
      .map((m) => m.path);
  } catch {
    return [];
  }
}

/**
 * The modules of the package at `manifest` whose pin is stale: empty, missing, or not the module's
 * hash. When the package cannot be loaded (a module does not parse), its empty pins, so that the
 * caller still reports the package; a package that loads and matches gives `[]`.
 */
export function stalePins(manifest: string): string[] {
  try {
    return pinFindings(loadPackage(manifest))
      .filter((f) => f.status !== 'ok')
      .map((f) => f.path);
  } catch {
    return emptyPins(manifest);
  }
}

/**
 * The paths (relative to the top) that differ between the first parent of `HEAD` and the work
 * tree: what the last merge, rebase or commit brought in (a merge commit's first parent is the
 * branch merged into). Undefined when `HEAD` has no parent: then every package counts. A pin that
 * was already stale there — a deliberate fixture, an upstream `hash = ""` — is not the merge's doing
 * and is left alone.
 */
export function changedSinceFirstParent(top: string): Set<string> | undefined {
  const r = runGit(['-c', 'core.quotePath=false', 'diff', '--name-only', '-z', '--no-renames', 'HEAD^1', '--'], { cwd: top });
  if (r.status !== 0) return undefined;
  return new Set(r.stdout.split('\0').filter((p) => p !== ''));
}

/** Whether a package folder (relative to the top, `''` for the top) holds one of `changed`. */
function touches(changed: Set<string> | undefined, pkg: string): boolean {
  if (changed === undefined) return true;
  const prefix = pkg === '' ? '' : `${pkg}/`;
  for (const p of changed) if (p.startsWith(prefix)) return true;
  return false;
}

/** The work tree top of the repository containing `cwd`, or undefined outside one. */
function workTreeTop(cwd: string): string | undefined {
  const r = runGit(['rev-parse', '--show-toplevel'], { cwd });
  return r.status === 0 ? resolve(r.stdout.trim()) : undefined;
}

/**
 * Re-pins every package of the work tree containing `cwd` that has a stale pin (see
 * {@link stalePins}) and a file that differs from `HEAD`'s first parent (see
 * {@link changedSinceFirstParent}), with `pack` (which also stores the package record). Packages
 * whose pins all match, or that the last merge did not touch, are not touched; nothing is staged
 * or committed.
 * @throws GcError `git/not-a-repository` (exit 10) outside a work tree.
 */
export function repinStalePins(cwd: string = process.cwd()): RepinResult[] {
  const top = workTreeTop(cwd);
  if (top === undefined) {
    throw new GcError('git/not-a-repository', `${resolve(cwd)} is not inside a git work tree`, { location: { file: resolve(cwd) } });
  }
  const out: RepinResult[] = [];
  const changed = changedSinceFirstParent(top);
  for (const manifest of packagesUnder(top)) {
    if (!touches(changed, relative(top, dirname(manifest)).split('\\').join('/'))) continue;
    if (stalePins(manifest).length === 0) continue;
    const pkg = relative(top, dirname(manifest)) || '.';
    try {
      const before = new Map(parseManifest(readFileSync(manifest, 'utf8'), manifest).modules.map((m) => [m.path, m.hash ?? '']));
      const r = packOnDisk(manifest);
      const repinned = [...r.pins].filter(([path, hash]) => before.get(path) !== hash).map(([path, hash]) => ({ path, was: before.get(path) ?? '', hash }));
      out.push({ package: pkg, manifest, repinned, error: undefined });
    } catch (error) {
      if (!isGcError(error)) throw error;
      out.push({ package: pkg, manifest, repinned: [], error: { code: error.code, message: error.format() } });
    }
  }
  return out;
}

/**
 * The after-merge checks `gcpatch driver doctor` adds when run inside a work tree: one `pins` error
 * per package with empty `hash = ""` pins, naming the one command that re-pins it, and whether the
 * re-pin hooks are installed (`warn` when not: they are optional).
 */
export function afterMergeChecks(cwd: string = process.cwd()): DoctorCheck[] {
  const top = workTreeTop(cwd);
  if (top === undefined) return [];
  const checks: DoctorCheck[] = [];
  const changed = changedSinceFirstParent(top);
  for (const manifest of packagesUnder(top)) {
    if (!touches(changed, relative(top, dirname(manifest)).split('\\').join('/'))) continue;
    const empty = emptyPins(manifest);
    if (empty.length === 0) continue;
    const where = relative(cwd, manifest) || 'package.toml';
    checks.push({
      name: 'pins',
      level: 'error',
      message: `${where} has ${empty.length} empty pin${empty.length === 1 ? '' : 's'} (hash = "", left by a merge where both sides changed the module): ${empty.join(', ')}`,
      fix: repinCommand(dirname(manifest), cwd),
    });
  }
  const installed = hooksInstalled(cwd);
  checks.push({
    name: 'hooks',
    level: installed ? 'ok' : 'warn',
    message: installed
      ? 'post-merge and post-rewrite hooks re-pin packages a merge leaves with hash = ""'
      : 'no re-pin hooks: after a merge that leaves stale pins (hash = "", or the pin of the one side that re-pinned), run `gcpatch driver repin` (or `gcpatch pack`) yourself',
    fix: installed ? undefined : 'gcpatch driver install --hooks',
  });
  return checks;
}
