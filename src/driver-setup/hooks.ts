/**
 * After-merge re-pinning: `gcpatch driver install --hooks` installs `post-merge` and `post-rewrite`
 * hooks that run `gcpatch driver repin`, which re-pins every package of the work tree a merge,
 * rebase or amend left with empty `hash = ""` pins (what the manifest driver writes when both
 * sides changed a module) and says what it changed. Nothing is ever committed on the user's
 * behalf: the re-pinned `package.toml` is left modified in the work tree.
 *
 * A hook file that already exists keeps its content: gcpatch adds (and later removes) only its own
 * block between marker lines, so installing twice changes nothing.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { shQuote, type DoctorCheck } from './install.js';
import { packOnDisk } from '../patch/host.js';
import { writeFileAtomic } from '../util/atomic.js';
import { ExitCode, GcError, isGcError } from '../util/errors.js';
import { stringifyJson } from '../util/json.js';
import { packagesUnder, repinCommand } from '../workspace/discover.js';
import { parseManifest } from '../workspace/manifest.js';
import type { CliContext } from '../cli/context.js';

/** The hooks gcpatch installs. */
export const HOOK_NAMES = ['post-merge', 'post-rewrite'] as const;

const BEGIN = '# >>> gcpatch: re-pin packages left with hash = "" (gcpatch driver install --hooks) >>>';
const END = '# <<< gcpatch <<<';

/** What an install or uninstall did to one hook file. */
export interface HookChange {
  hook: (typeof HOOK_NAMES)[number];
  file: string;
  /** `created` a new file, `added` our block to an existing one, `unchanged`, `removed` our block, `deleted` the file (nothing else was in it). */
  action: 'created' | 'added' | 'unchanged' | 'removed' | 'deleted' | 'absent';
}

/** The absolute path of the built CLI entry (`bin/gcpatch.js`) the hooks call. */
export function defaultCliEntry(): string {
  // src/cli/*.ts and dist/cli/*.js are both two levels below the package root.
  return join(resolve(dirname(fileURLToPath(import.meta.url)), '..', '..'), 'bin', 'gcpatch.js');
}

/**
 * The hooks directory of the repository containing `cwd` (`git rev-parse --git-path hooks`, so
 * `core.hooksPath` is honoured), absolute.
 * @throws GcError `git/not-a-repository` (exit 10) outside a repository.
 */
export function hooksDir(cwd: string = process.cwd()): string {
  const r = spawnSync('git', ['rev-parse', '--git-path', 'hooks'], { cwd, encoding: 'utf8', timeout: 30_000 });
  if (r.status !== 0) {
    throw new GcError('git/not-a-repository', `${resolve(cwd)} is not inside a git work tree; hooks are per repository (run the command inside one)`, {
      location: { file: resolve(cwd) },
    });
  }
  return resolve(cwd, r.stdout.trim());
}

function block(hook: string, cliEntry: string): string {
  return `${BEGIN}\nnode ${shQuote(cliEntry)} driver repin --hook ${hook} || true\n${END}\n`;
}

/** Removes our block (markers included) from a hook's text. */
function withoutBlock(text: string): string {
  const start = text.indexOf(BEGIN);
  if (start < 0) return text;
  const endAt = text.indexOf(END, start);
  const stop = endAt < 0 ? text.length : endAt + END.length + (text[endAt + END.length] === '\n' ? 1 : 0);
  return text.slice(0, start) + text.slice(stop);
}

/**
 * Installs (or refreshes) the `post-merge` and `post-rewrite` hooks. Idempotent: a second install
 * reports `unchanged`. An existing hook keeps its own lines; ours are appended in a marked block.
 * @param cliEntry the `bin/gcpatch.js` the hooks run (default: this installation's).
 */
export function installHooks(cwd: string = process.cwd(), cliEntry: string = defaultCliEntry()): HookChange[] {
  const dir = hooksDir(cwd);
  mkdirSync(dir, { recursive: true });
  return HOOK_NAMES.map((hook) => {
    const file = join(dir, hook);
    const before = existsSync(file) ? readFileSync(file, 'utf8') : undefined;
    const ours = block(hook, cliEntry);
    let after: string;
    if (before === undefined) after = `#!/bin/sh\n${ours}`;
    else {
      const rest = withoutBlock(before);
      after = (rest.endsWith('\n') || rest === '' ? rest : rest + '\n') + ours;
      if (rest === '') after = `#!/bin/sh\n${ours}`;
    }
    if (before === after) return { hook, file, action: 'unchanged' };
    writeFileAtomic(file, after);
    chmodSync(file, 0o755);
    return { hook, file, action: before === undefined ? 'created' : 'added' };
  });
}

/** Removes gcpatch's block from both hooks; a hook left with nothing but `#!/bin/sh` is deleted. */
export function uninstallHooks(cwd: string = process.cwd()): HookChange[] {
  const dir = hooksDir(cwd);
  return HOOK_NAMES.map((hook) => {
    const file = join(dir, hook);
    if (!existsSync(file)) return { hook, file, action: 'absent' };
    const before = readFileSync(file, 'utf8');
    const after = withoutBlock(before);
    if (after === before) return { hook, file, action: 'absent' };
    if (after.trim() === '' || after.trim() === '#!/bin/sh') {
      rmSync(file, { force: true });
      return { hook, file, action: 'deleted' };
    }
    writeFileAtomic(file, after);
    return { hook, file, action: 'removed' };
  });
}

/** True when both hooks carry gcpatch's block. */
export function hooksInstalled(cwd: string = process.cwd()): boolean {
  const dir = hooksDir(cwd);
  return HOOK_NAMES.every((hook) => existsSync(join(dir, hook)) && readFileSync(join(dir, hook), 'utf8').includes(BEGIN));
}

/** One package that had empty pins and what re-pinning did. */
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

/** The work tree top of the repository containing `cwd`, or undefined outside one. */
function workTreeTop(cwd: string): string | undefined {
  const r = spawnSync('git', ['rev-parse', '--show-toplevel'], { cwd, encoding: 'utf8', timeout: 30_000 });
  return r.status === 0 ? resolve(r.stdout.trim()) : undefined;
}

/**
 * Re-pins every package of the work tree containing `cwd` that has an empty pin, with `pack`
 * (which also stores the package record). Packages without empty pins are not touched; nothing is
 * staged or committed.
 * @throws GcError `git/not-a-repository` (exit 10) outside a work tree.
 */
export function repinEmptyPins(cwd: string = process.cwd()): RepinResult[] {
  const top = workTreeTop(cwd);
  if (top === undefined) {
    throw new GcError('git/not-a-repository', `${resolve(cwd)} is not inside a git work tree`, { location: { file: resolve(cwd) } });
  }
  const out: RepinResult[] = [];
  for (const manifest of packagesUnder(top)) {
    const empty = emptyPins(manifest);
    if (empty.length === 0) continue;
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
  for (const manifest of packagesUnder(top)) {
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
      : 'no re-pin hooks: after a merge that leaves hash = "" pins, run `gcpatch driver repin` (or `gcpatch pack`) yourself',
    fix: installed ? undefined : 'gcpatch driver install --hooks',
  });
  return checks;
}

/** Registers `gcpatch driver repin` (what the hooks run) on the `driver` command group. */
export function registerHookCommands(driver: Command, ctx: CliContext): void {
  driver
    .command('repin')
    .description(
      'Re-pin every package of this work tree that a merge, rebase or amend left with empty hash = "" pins\n' +
        '(gcpatch pack on each), and say what changed. Never stages or commits. Run by the hooks that\n' +
        '`gcpatch driver install --hooks` installs. Exit 0; 10 when a package could not be re-pinned.',
    )
    .option('--hook <name>', 'the hook running the command (for its messages)')
    .option('--json', 'machine-readable output')
    .action((opts: { hook?: string; json?: boolean }) => {
      const results = repinEmptyPins();
      const failed = results.filter((r) => r.error !== undefined);
      if (failed.length > 0) ctx.exitCode = ExitCode.invalidInput;
      if (opts.json) {
        ctx.stdout(stringifyJson({ ok: failed.length === 0, packages: results }, 2) + '\n');
        return;
      }
      const who = opts.hook !== undefined ? `gcpatch (${opts.hook} hook)` : 'gcpatch';
      for (const r of results) {
        const where = r.package === '.' ? 'package.toml' : `${r.package}/package.toml`;
        if (r.error !== undefined) {
          ctx.stderr(`${who}: ${where} still has empty pins: ${r.error.message}\n  fix the module, then run \`${repinCommand(dirname(r.manifest))}\`\n`);
          continue;
        }
        ctx.stderr(
          `${who}: re-pinned ${r.repinned.length} module${r.repinned.length === 1 ? '' : 's'} in ${where} (it had hash = "" pins):\n` +
            r.repinned.map((m) => `  ${m.path}  ${m.was === '' ? '""' : m.was.slice(0, 12)} -> ${m.hash}\n`).join('') +
            `  not committed: review with \`git diff ${where}\`, then commit it\n`,
        );
      }
    });
}
