/**
 * The re-pin hooks: `gcpatch driver install --hooks` installs `post-merge` and `post-rewrite` hooks
 * that run `gcpatch driver repin` (repin.ts) after a merge, rebase or amend.
 *
 * A hook file that already exists keeps its content: gcpatch adds (and later removes) only its own
 * block between marker lines, so installing twice changes nothing.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runGit } from '../git/exec.js';
import { writeFileAtomic } from '../util/atomic.js';
import { GcError } from '../util/errors.js';
import { shQuote } from './line.js';

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
  const r = runGit(['rev-parse', '--git-path', 'hooks'], { cwd });
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
