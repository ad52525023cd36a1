/**
 * The attribute lines that route files to the drivers (`*.gc merge=gcpatch`, `package.toml
 * merge=gcpatch-manifest`) and the attributes file set-up writes them to: `.gitattributes`
 * (committed), `.git/info/attributes` (`commitAttributes: false`) or, with `global`, the global
 * attributes file.
 */
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { runSetupGit, setupGitOutput, type DriverSetupOptions } from './options.js';

/** The attribute lines the install adds (one per driver). */
export const ATTRIBUTE_LINES = ['*.gc merge=gcpatch', 'package.toml merge=gcpatch-manifest'] as const;

/** The attributes file an install writes to (see the file comment). */
export function attributesFile(opts: DriverSetupOptions): string {
  if (opts.global) {
    const configured = runSetupGit(opts, ['config', '--global', '--get', 'core.attributesFile']).stdout.trim();
    if (configured) return configured.startsWith('~/') ? join(homedir(), configured.slice(2)) : configured;
    const xdg = process.env.XDG_CONFIG_HOME;
    return join(xdg && xdg !== '' ? xdg : join(homedir(), '.config'), 'git', 'attributes');
  }
  if (opts.commitAttributes === false) {
    const p = setupGitOutput(opts, ['rev-parse', '--git-path', 'info/attributes']).trim();
    return isAbsolute(p) ? p : resolve(opts.cwd ?? process.cwd(), p);
  }
  const top = setupGitOutput(opts, ['rev-parse', '--show-toplevel']).trim();
  return join(top, '.gitattributes');
}

/** The lines of an attributes file (none when it does not exist or is empty), without the last newline. */
export function readAttributeLines(file: string): string[] {
  if (!existsSync(file)) return [];
  const text = readFileSync(file, 'utf8');
  return text === '' ? [] : text.replace(/\n$/, '').split('\n');
}
