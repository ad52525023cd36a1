/**
 * Installing, removing and checking the git merge drivers (issue #3 item 2): git config
 * `merge.gcpatch.*` and `merge.gcpatch-manifest.*`, and the attribute lines `*.gc merge=gcpatch`
 * and `package.toml merge=gcpatch-manifest`. Re-exported by `driver/install.ts`; used by
 * `gcpatch driver install|uninstall|doctor` (src/cli/driver.ts).
 *
 * Everything goes through the `git` executable in `cwd` (GIT_AND_ACTIONS_FACTS.md §1.1): config is
 * never written in-tree; attributes go to `.gitattributes` (committed), `.git/info/attributes`
 * (`commitAttributes: false`) or, with `global`, the global attributes file.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GcError, ExitCode } from '../util/errors.js';

/** The driver names written to git config. */
export const DRIVER_NAMES = { gc: 'gcpatch', manifest: 'gcpatch-manifest' } as const;

/** The attribute lines the install adds (one per driver). */
export const ATTRIBUTE_LINES = ['*.gc merge=gcpatch', 'package.toml merge=gcpatch-manifest'] as const;

/** Minimum git version that expands `%S %X %Y` (labels). */
export const LABELS_GIT_VERSION = [2, 44] as const;
/** Git version from which an exit status above 128 aborts the merge (the driver never uses one). */
export const ABORT_EXIT_GIT_VERSION = [2, 42] as const;

/** Options shared by install, uninstall and doctor. */
export interface DriverSetupOptions {
  /** Directory inside the repository (default: process cwd). */
  cwd?: string;
  /** Write to the user's global config and attributes instead of the repository's. */
  global?: boolean;
  /** Attributes to `.gitattributes` (true, default) or `.git/info/attributes` (false). Local only. */
  commitAttributes?: boolean;
  /** Absolute path of the driver entry (default: this checkout's `driver/dist/index.js`). */
  driverPath?: string;
  /** The `git` executable (default `git`). */
  git?: string;
}

/** What {@link installDriver} did. */
export interface InstallReport {
  scope: 'local' | 'global';
  /** Config entries now set (key → value). */
  config: { key: string; value: string }[];
  /** The attributes file written. */
  attributesFile: string;
  /** Attribute lines that were added (empty when they were already there). */
  attributesAdded: string[];
  driverPath: string;
}

/** What {@link uninstallDriver} did. */
export interface UninstallReport {
  scope: 'local' | 'global';
  /** Config sections removed. */
  removedSections: string[];
  /** Attributes files from which lines were removed, with the lines. */
  attributesRemoved: { file: string; lines: string[] }[];
}

/** One check of {@link doctorDriver}. `error` counts as a problem, `warn` and `ok` do not. */
export interface DoctorCheck {
  name: string;
  level: 'ok' | 'warn' | 'error';
  message: string;
  /** A command or step that fixes it. */
  fix: string | undefined;
}

/** The result of {@link doctorDriver}: healthy when no check is an `error`. */
export interface DoctorReport {
  healthy: boolean;
  gitVersion: string | undefined;
  checks: DoctorCheck[];
}

/** Absolute path of this checkout's bundled driver, `<package root>/driver/dist/index.js`. */
export function defaultDriverPath(): string {
  // src/merge/*.ts, dist/merge/*.js and driver/dist/*.js are all two levels below the package root.
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
  return join(root, 'driver', 'dist', 'index.js');
}

/** Quotes `s` for `sh` (single quotes; `'` becomes `'\''`). */
export function shQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * The `merge.<name>.driver` command line: `node '<entry>' [--manifest] %O %A %B %L %P %S %X %Y`.
 * @param entry absolute path of `driver/dist/index.js`.
 */
export function driverCommand(entry: string, mode: 'gc' | 'manifest'): string {
  return `node ${shQuote(entry)}${mode === 'manifest' ? ' --manifest' : ''} %O %A %B %L %P %S %X %Y`;
}

function git(opts: DriverSetupOptions, args: string[]): { status: number; stdout: string; stderr: string } {
  const r = spawnSync(opts.git ?? 'git', args, { cwd: opts.cwd, encoding: 'utf8', timeout: 30_000 });
  if (r.error) {
    throw new GcError('driver/git-missing', `cannot run git: ${r.error.message}`, { exitCode: ExitCode.io });
  }
  return { status: r.status ?? 255, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
}

function gitOk(opts: DriverSetupOptions, args: string[]): string {
  const r = git(opts, args);
  if (r.status !== 0) {
    throw new GcError('driver/git-failed', `git ${args.join(' ')} failed: ${r.stderr.trim() || `exit ${r.status}`}`, {
      exitCode: ExitCode.io,
    });
  }
  return r.stdout;
}

/**
 * Checks that `opts.cwd` is inside a git work tree.
 * @throws GcError `driver/not-a-repository` (exit 10) naming the fix.
 */
function requireRepository(opts: DriverSetupOptions): void {
  if (git(opts, ['rev-parse', '--git-dir']).status !== 0) {
    throw new GcError(
      'driver/not-a-repository',
      `${opts.cwd ?? process.cwd()} is not inside a git repository; run this in your repository, or use --global`,
      { exitCode: ExitCode.invalidInput },
    );
  }
}

/** The attributes file an install writes to (see the file comment). */
export function attributesFile(opts: DriverSetupOptions): string {
  if (opts.global) {
    const configured = git(opts, ['config', '--global', '--get', 'core.attributesFile']).stdout.trim();
    if (configured) return configured.startsWith('~/') ? join(homedir(), configured.slice(2)) : configured;
    const xdg = process.env.XDG_CONFIG_HOME;
    return join(xdg && xdg !== '' ? xdg : join(homedir(), '.config'), 'git', 'attributes');
  }
  if (opts.commitAttributes === false) {
    const p = gitOk(opts, ['rev-parse', '--git-path', 'info/attributes']).trim();
    return isAbsolute(p) ? p : resolve(opts.cwd ?? process.cwd(), p);
  }
  const top = gitOk(opts, ['rev-parse', '--show-toplevel']).trim();
  return join(top, '.gitattributes');
}

function readLines(file: string): string[] {
  if (!existsSync(file)) return [];
  const text = readFileSync(file, 'utf8');
  return text === '' ? [] : text.replace(/\n$/, '').split('\n');
}

/**
 * Installs both drivers, idempotently: sets `merge.gcpatch.name`, `merge.gcpatch.driver`,
 * `merge.gcpatch-manifest.name`, `merge.gcpatch-manifest.driver`, and appends the missing
 * {@link ATTRIBUTE_LINES} to the attributes file.
 * @throws GcError `driver/not-a-repository` (exit 10) outside a work tree (without `global`),
 *   `driver/git-failed` / `driver/git-missing` (exit 70), `driver/not-built` (exit 70) when the
 *   driver bundle does not exist.
 */
export function installDriver(opts: DriverSetupOptions = {}): InstallReport {
  const entry = opts.driverPath ?? defaultDriverPath();
  if (!existsSync(entry)) {
    throw new GcError('driver/not-built', `the driver bundle ${entry} does not exist; run \`npm run build:driver\``, {
      exitCode: ExitCode.io,
    });
  }
  const scope = opts.global ? '--global' : '--local';
  if (!opts.global) requireRepository(opts);
  const config = [
    { key: 'merge.gcpatch.name', value: 'gcpatch: GenesisCode .gc modules merged by top-level form' },
    { key: 'merge.gcpatch.driver', value: driverCommand(entry, 'gc') },
    { key: 'merge.gcpatch-manifest.name', value: 'gcpatch: package.toml merged by key and module path' },
    { key: 'merge.gcpatch-manifest.driver', value: driverCommand(entry, 'manifest') },
  ];
  for (const { key, value } of config) gitOk(opts, ['config', scope, key, value]);
  const file = attributesFile(opts);
  const lines = readLines(file);
  const present = new Set(lines.map((l) => l.trim()));
  const added = ATTRIBUTE_LINES.filter((l) => !present.has(l));
  if (added.length > 0) {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, [...lines, ...added].join('\n') + '\n');
  }
  return { scope: opts.global ? 'global' : 'local', config, attributesFile: file, attributesAdded: [...added], driverPath: entry };
}

/**
 * Removes both drivers' config sections and the {@link ATTRIBUTE_LINES} (from `.gitattributes` and
 * `.git/info/attributes` locally, or the global attributes file). Missing pieces are skipped.
 */
export function uninstallDriver(opts: DriverSetupOptions = {}): UninstallReport {
  const scope = opts.global ? '--global' : '--local';
  const removedSections: string[] = [];
  for (const name of Object.values(DRIVER_NAMES)) {
    if (git(opts, ['config', scope, '--remove-section', `merge.${name}`]).status === 0) removedSections.push(`merge.${name}`);
  }
  const files = opts.global
    ? [attributesFile(opts)]
    : [attributesFile({ ...opts, commitAttributes: true }), attributesFile({ ...opts, commitAttributes: false })];
  const attributesRemoved: { file: string; lines: string[] }[] = [];
  for (const file of files) {
    const lines = readLines(file);
    const ours = new Set<string>(ATTRIBUTE_LINES);
    const kept = lines.filter((l) => !ours.has(l.trim()));
    if (kept.length !== lines.length) {
      writeFileSync(file, kept.length > 0 ? kept.join('\n') + '\n' : '');
      attributesRemoved.push({ file, lines: lines.filter((l) => ours.has(l.trim())) });
    }
  }
  return { scope: opts.global ? 'global' : 'local', removedSections, attributesRemoved };
}

/** Parses `git version 2.39.5` (and vendor suffixes) into numbers. */
export function parseGitVersion(text: string): number[] | undefined {
  const m = /git version (\d+)\.(\d+)(?:\.(\d+))?/.exec(text);
  return m ? [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)] : undefined;
}

function versionAtLeast(v: readonly number[], min: readonly number[]): boolean {
  for (let i = 0; i < min.length; i++) {
    if ((v[i] ?? 0) !== min[i]) return (v[i] ?? 0) > min[i]!;
  }
  return true;
}

/** The driver entry path inside a configured command line, if it has the installed shape. */
export function entryFromCommand(command: string): string | undefined {
  const m = /^\s*node\s+(?:'((?:[^']|'\\'')*)'|(\S+))/.exec(command);
  if (!m) return undefined;
  return m[1] !== undefined ? m[1].replace(/'\\''/g, "'") : m[2];
}

/**
 * Checks the installation and prints fixes: git version (labels need ≥ 2.44; exit statuses above
 * 128 abort merges since 2.42), both drivers' config, that the configured entry exists and runs
 * (`--self-check`), that `node` is on PATH for `sh`, the attributes of `x.gc` and `package.toml`
 * (`git check-attr merge`), and the conflict style. Never throws for a failed check.
 */
export function doctorDriver(opts: DriverSetupOptions = {}): DoctorReport {
  const checks: DoctorCheck[] = [];
  const add = (name: string, level: DoctorCheck['level'], message: string, fix?: string): void => {
    checks.push({ name, level, message, fix });
  };
  let gitVersion: string | undefined;
  let v: number[] | undefined;
  try {
    const out = git(opts, ['--version']).stdout.trim();
    gitVersion = out.replace(/^git version /, '');
    v = parseGitVersion(out);
  } catch (error) {
    add('git', 'error', `git is not available: ${(error as Error).message}`, 'install git ≥ 2.44');
    return { healthy: false, gitVersion, checks };
  }
  if (!v) add('git-version', 'warn', `cannot read the git version from ${JSON.stringify(gitVersion)}`);
  else if (!versionAtLeast(v, LABELS_GIT_VERSION)) {
    add(
      'git-version',
      'warn',
      `git ${gitVersion} does not expand %S %X %Y: conflict labels default to base/ours/theirs` +
        (versionAtLeast(v, ABORT_EXIT_GIT_VERSION)
          ? ''
          : '; before 2.42 git also treats a crashed driver as a plain conflict (the driver never exits above 1 anyway)'),
      'upgrade git to 2.44 or later for branch names in conflict markers',
    );
  } else add('git-version', 'ok', `git ${gitVersion}`);

  const inRepo = git(opts, ['rev-parse', '--git-dir']).status === 0;
  if (!inRepo) {
    add('repository', 'warn', `${opts.cwd ?? process.cwd()} is not inside a git repository: only global settings are checked`, 'run gcpatch driver doctor inside your repository');
  }
  for (const mode of ['gc', 'manifest'] as const) {
    const name = DRIVER_NAMES[mode];
    const command = git(opts, ['config', '--get', `merge.${name}.driver`]).stdout.trim();
    const label = git(opts, ['config', '--get', `merge.${name}.name`]).stdout.trim();
    if (command === '') {
      add(`config:${name}`, 'error', `merge.${name}.driver is not configured${label ? ' (but merge.' + name + '.name is: git will refuse to merge)' : ''}`, 'gcpatch driver install');
      continue;
    }
    add(`config:${name}`, 'ok', `merge.${name}.driver = ${command}`);
    const entry = entryFromCommand(command);
    if (entry === undefined) {
      add(`entry:${name}`, 'warn', `cannot find the driver path in merge.${name}.driver; not checked`);
      continue;
    }
    if (!existsSync(entry)) {
      add(
        `entry:${name}`,
        'error',
        `the driver ${entry} does not exist: git would run it, get exit 127 and keep ours WITHOUT conflict markers`,
        'gcpatch driver install   (or `npm run build:driver` in the gcpatch checkout)',
      );
      continue;
    }
    if (mode === 'gc') {
      const r = spawnSync('sh', ['-c', `node ${shQuote(entry)} --self-check`], { cwd: opts.cwd, encoding: 'utf8', timeout: 30_000 });
      if (r.status === 0 && (r.stdout ?? '').startsWith('ok')) add('entry-runs', 'ok', `${entry} --self-check: ${(r.stdout ?? '').trim()}`);
      else {
        const why = r.error ? r.error.message : `${(r.stdout ?? '').trim()} ${(r.stderr ?? '').trim()}`.trim() || `exit ${r.status}`;
        add('entry-runs', 'error', `the driver does not run through sh: ${why}`, 'make `node` (≥ 20.19) available on PATH for git, then gcpatch driver install');
      }
    }
  }
  if (inRepo) {
    for (const [file, want] of [
      ['x.gc', DRIVER_NAMES.gc],
      ['package.toml', DRIVER_NAMES.manifest],
    ] as const) {
      const out = git(opts, ['check-attr', 'merge', '--', file]).stdout.trim();
      const value = out.split(': ').pop() ?? '';
      if (value === want) add(`attributes:${file}`, 'ok', out);
      else {
        add(
          `attributes:${file}`,
          'error',
          `git check-attr merge -- ${file} says ${JSON.stringify(value)}, expected ${JSON.stringify(want)}`,
          `gcpatch driver install   (adds \`${file === 'x.gc' ? ATTRIBUTE_LINES[0] : ATTRIBUTE_LINES[1]}\` to .gitattributes)`,
        );
      }
    }
    const style = git(opts, ['config', '--get', 'merge.conflictStyle']).stdout.trim() || 'merge';
    add('conflict-style', 'ok', `merge.conflictStyle = ${style}${style === 'zdiff3' ? ' (the driver writes diff3 markers)' : ''}`);
  } else add('repository', 'warn', 'not inside a git repository: attributes not checked');
  return { healthy: checks.every((c) => c.level !== 'error'), gitVersion, checks };
}
