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
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { idleMs, serviceFolder, serviceStatus, stopService } from '../driver-service/lifecycle.js';
import { serviceHandOverPart, serviceStartPart, type ServiceLineOptions } from '../driver-service/line.js';
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
  /**
   * Absolute path of the driver bundle to install (default: this package's `driver/dist/index.js`);
   * `launch.cjs` must sit next to it. Install copies both to {@link installDirectory}.
   */
  driverPath?: string;
  /** Where install copies the driver (default: {@link installDirectory}); tests only. */
  installDir?: string;
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
  /** The bundle that was copied. */
  driverPath: string;
  /** Where the driver now lives (`launch.cjs`, `index.js`, `.cache/`). */
  installedTo: string;
  /** The configured line run as git would on the built-in example (also warms the code cache). */
  check: DoctorCheck;
  /**
   * The warm merge service of this repository (docs/driver.md "The warm merge service"): its
   * folder (undefined for `--global` outside a repository), the version the line speaks, and the pid
   * of a service of the old driver that the install stopped.
   */
  service: { folder: string | undefined; version: string; stopped: number | undefined };
}

/** What {@link uninstallDriver} did. */
export interface UninstallReport {
  scope: 'local' | 'global';
  /** Config sections removed. */
  removedSections: string[];
  /** Attributes files from which lines were removed, with the lines. */
  attributesRemoved: { file: string; lines: string[] }[];
  /** The service folder removed (with the pid of the service stopped first), when there was one. */
  service: { folder: string; stopped: number | undefined } | undefined;
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

/** Absolute path of this package's bundled driver, `<package root>/driver/dist/index.js`. */
export function defaultDriverPath(): string {
  // src/merge/*.ts, dist/merge/*.js and driver/dist/*.js are all two levels below the package root.
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
  return join(root, 'driver', 'dist', 'index.js');
}

/** The files an install copies, in the order they are replaced (the bundle before its launcher). */
export const DRIVER_FILES = ['index.js', 'launch.cjs'] as const;

/** Quotes `s` for `sh` (single quotes; `'` becomes `'\''`). */
export function shQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * Escapes `s` for a `merge.<name>.driver` value: git expands `%O %A %B %L %P %S %X %Y` and turns
 * `%%` into `%` before it hands the line to `sh -c`, so every literal `%` is doubled.
 */
export function gitDriverEscape(s: string): string {
  return s.replace(/%/g, '%%');
}

/**
 * The `sh` expression of the installed driver directory in the configured line. A local install
 * lives in the repository's git directory and is found at run time (git runs drivers in the work
 * tree's top): `.git/gcpatch/driver` when `.git` there holds it and neither `GIT_DIR` nor
 * `GIT_COMMON_DIR` points elsewhere (a plain repository: no git process per merged file, ≈7 ms of
 * CPU each), else `git rev-parse --git-common-dir` (worktrees and submodules, whose `.git` is a
 * file; worktrees share the common dir). Moving or renaming the repository does not break it. A
 * global install is an absolute path.
 */
export function driverDirExpression(scope: 'local' | 'global', dir: string): string {
  return scope === 'local'
    ? '"$([ -z "$GIT_DIR$GIT_COMMON_DIR" ] && [ -r .git/gcpatch/driver/launch.cjs ] && echo .git || git rev-parse --git-common-dir)/gcpatch/driver"'
    : shQuote(dir);
}

/**
 * The directory an install copies the driver to: `<git common dir>/gcpatch/driver` (local) or
 * `$XDG_DATA_HOME/gcpatch/driver` (default `~/.local/share/gcpatch/driver`, global). Neither moves
 * with, nor disappears with, the gcpatch checkout or global npm install that ran `driver install`.
 */
export function installDirectory(opts: DriverSetupOptions): string {
  if (opts.installDir !== undefined) return resolve(opts.installDir);
  if (opts.global) {
    const xdg = process.env.XDG_DATA_HOME;
    return join(xdg && isAbsolute(xdg) ? xdg : join(homedir(), '.local', 'share'), 'gcpatch', 'driver');
  }
  const p = gitOk(opts, ['rev-parse', '--git-common-dir']).trim();
  return join(isAbsolute(p) ? p : resolve(opts.cwd ?? process.cwd(), p), 'gcpatch', 'driver');
}

/**
 * The `merge.<name>.driver` line (issue #15 item 1): a guarded `sh` command that runs
 * `node <dir>/launch.cjs --wrapped [--manifest] %O %A %B %L %P %S %X %Y` when the driver is there
 * and `node` is on PATH, and otherwise, or when Node cannot start it (any exit but 0 and the
 * wrapped conflict status 3), prints one line naming the file, the reason and the fix, runs
 * `git merge-file` on %A %O %B (markers in %A, labels from %X %S %Y, or ours/base/theirs on
 * git < 2.44, `%L` marker size) and exits 0 if that merge is clean, else 1. Git never sees a status
 * above 1 and never gets ours without markers because the driver was missing.
 *
 * With `service` (the default), the line first hands the merge to a running warm merge service of
 * the repository and exits with its answer, and after a direct merge starts one in the background
 * (src/driver-service/line.ts; docs/driver.md "The warm merge service"); whatever goes wrong there,
 * the line goes on as above. `GCPATCH_DRIVER_SERVICE=0` skips both.
 *
 * The line unsets `NODE_EXTRA_CA_CERTS`: the driver makes no TLS connection, and Node parses
 * that file's certificates at start-up, before any script (≈45 ms per file for a system bundle of
 * ~140 certificates, nearly doubling Node's own start-up, paid once per merged file).
 * @param dirExpression an `sh` word for the driver directory ({@link driverDirExpression}); it is
 *   %-escaped here.
 * @param service the service folder's `sh` word and the version ({@link serviceLineOptions}), or
 *   false for a line without the service.
 */
export function driverCommand(dirExpression: string, mode: 'gc' | 'manifest', service: ServiceLineOptions | false = serviceLineOptions('local')): string {
  const lit = gitDriverEscape;
  const handOver = service === false ? '' : serviceHandOverPart(service, mode).map((piece, i) => (i % 2 === 0 ? lit(piece) : piece)).join('');
  // The local expression as a test instead of a command substitution: no subshell in a plain repository.
  const local = driverDirExpression('local', '');
  const setDir =
    dirExpression === local
      ? 'd=.git/gcpatch/driver; [ -z "$GIT_DIR$GIT_COMMON_DIR" ] && [ -r "$d/launch.cjs" ] || d="$(git rev-parse --git-common-dir)/gcpatch/driver"; '
      : `d=${dirExpression}; `;
  return (
    lit(setDir) +
    'p=%P o=%X b=%S t=%Y; ' +
    lit('case "$o" in %X) o=ours b=base t=theirs;; esac; ') +
    lit('unset NODE_EXTRA_CA_CERTS; ') +
    handOver +
    lit('if [ -r "$d/launch.cjs" ] && [ -r "$d/index.js" ] && command -v node >/dev/null 2>&1; then ') +
    lit(`node "$d/launch.cjs" --wrapped${mode === 'manifest' ? ' --manifest' : ''} `) +
    '%O %A %B %L "$p" "$b" "$o" "$t"; ' +
    lit(`s=$?; ${service === false ? '' : serviceStartPart()}[ $s -eq 0 ] && exit 0; [ $s -eq 3 ] && exit 1; w="the merge driver stopped (exit $s)"; `) +
    lit('else w="the merge driver is missing from $d (or node is not on PATH)"; fi; ') +
    lit('echo "gcpatch: $p: $w; wrote a line merge with conflict markers instead. Fix: gcpatch driver install, then gcpatch driver doctor" >&2; ') +
    'git merge-file --marker-size=%L -L "$o" -L "$b" -L "$t" %A %O %B; ' +
    lit('[ $? -eq 0 ] && exit 0; exit 1')
  );
}

/**
 * The service part of a line ({@link driverCommand}): a local install finds the folder next to
 * the driver directory (`"$d/../service"`, i.e. `<git common dir>/gcpatch/service`); a global
 * one in the repository being merged (`.git/gcpatch/service` in a plain repository, else
 * `git rev-parse --git-common-dir`). `version` defaults to this package's.
 */
export function serviceLineOptions(scope: 'local' | 'global', version = packageVersion()): ServiceLineOptions {
  return {
    folderExpression:
      scope === 'local'
        ? '"$d/../service"'
        : '"$([ -z "$GIT_DIR$GIT_COMMON_DIR" ] && [ -d .git ] && echo .git || git rev-parse --git-common-dir 2>/dev/null)/gcpatch/service"',
    version,
  };
}

/** This package's version (`package.json` two levels above this module, as {@link defaultDriverPath}). */
export function packageVersion(): string {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
  try {
    return (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version?: string }).version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

/**
 * Expands a configured driver line the way git does before `sh -c` (ll-merge.c): `%O %A %B %P`
 * and, on git ≥ 2.44, `%S %X %Y` become single-quoted values, `%L` the marker size, `%%` a `%`;
 * any other `%x` (and `%S %X %Y` before 2.44) stays as it is.
 */
export function expandDriverLine(
  line: string,
  values: { O: string; A: string; B: string; L: number; P: string; S: string; X: string; Y: string },
  labels = true,
): string {
  return line.replace(/%(.)/gs, (whole, key: string) => {
    if (key === '%') return '%';
    if (key === 'L') return String(values.L);
    if (key === 'O' || key === 'A' || key === 'B' || key === 'P') return shQuote(values[key]);
    if ((key === 'S' || key === 'X' || key === 'Y') && labels) return shQuote(values[key]);
    return whole;
  });
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
 * Copies the driver bundle and its launcher to `dir` ({@link DRIVER_FILES}), each through a
 * temporary file and a rename, so a merge running meanwhile sees the old or the new file, never a
 * part; drops the old code cache. Returns `dir`.
 */
function copyDriver(from: string, dir: string): string {
  mkdirSync(dir, { recursive: true });
  for (const name of DRIVER_FILES) {
    const tmp = join(dir, `.${name}.${process.pid}.tmp`);
    copyFileSync(join(from, name), tmp);
    renameSync(tmp, join(dir, name));
  }
  rmSync(join(dir, '.cache'), { recursive: true, force: true });
  return dir;
}

/**
 * Installs both drivers, idempotently: copies the driver to {@link installDirectory}, sets
 * `merge.gcpatch.name`, `merge.gcpatch.driver`, `merge.gcpatch-manifest.name`,
 * `merge.gcpatch-manifest.driver` ({@link driverCommand}), appends the missing
 * {@link ATTRIBUTE_LINES} to the attributes file, and runs the configured line once as git would
 * ({@link runConfiguredLine}; the result is in `check`, it also warms the code cache).
 * @throws GcError `driver/not-a-repository` (exit 10) outside a work tree (without `global`),
 *   `driver/git-failed` / `driver/git-missing` (exit 70), `driver/not-built` (exit 70) when the
 *   driver bundle or its launcher does not exist, `driver/copy-failed` (exit 70).
 */
export function installDriver(opts: DriverSetupOptions = {}): InstallReport {
  const entry = opts.driverPath ?? defaultDriverPath();
  const from = dirname(entry);
  for (const name of DRIVER_FILES) {
    if (!existsSync(join(from, name))) {
      throw new GcError('driver/not-built', `the driver bundle ${join(from, name)} does not exist; run \`npm run build:driver\``, {
        exitCode: ExitCode.io,
      });
    }
  }
  const scope = opts.global ? '--global' : '--local';
  if (!opts.global) requireRepository(opts);
  const dir = installDirectory(opts);
  try {
    copyDriver(from, dir);
  } catch (error) {
    throw new GcError('driver/copy-failed', `cannot copy the driver to ${dir}: ${(error as Error).message}; check that the directory is writable`, {
      exitCode: ExitCode.io,
    });
  }
  const where = opts.installDir !== undefined ? shQuote(dir) : driverDirExpression(opts.global ? 'global' : 'local', dir);
  const version = bundleVersion(dir);
  const service = serviceLineOptions(opts.global ? 'global' : 'local', version);
  // A service still running the old bundle answers "stale" anyway; stopping it spares that round.
  const folder = serviceFolderOf(opts, dir);
  const stopped = folder === undefined ? undefined : stopService(folder);
  if (folder !== undefined && !opts.global) {
    try {
      mkdirSync(folder, { recursive: true, mode: 0o700 });
      chmodSync(folder, 0o700);
    } catch {
      // An unwritable git directory: the line merges directly (docs/driver.md).
    }
  }
  const config = [
    { key: 'merge.gcpatch.name', value: 'gcpatch: GenesisCode .gc modules merged by top-level form' },
    { key: 'merge.gcpatch.driver', value: driverCommand(where, 'gc', service) },
    { key: 'merge.gcpatch-manifest.name', value: 'gcpatch: package.toml merged by key and module path' },
    { key: 'merge.gcpatch-manifest.driver', value: driverCommand(where, 'manifest', service) },
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
  const check = runConfiguredLine(opts, config[1]!.value, 'gc', labelsExpanded(opts));
  return {
    scope: opts.global ? 'global' : 'local',
    config,
    attributesFile: file,
    attributesAdded: [...added],
    driverPath: entry,
    installedTo: dir,
    check,
    service: { folder, version, stopped },
  };
}

/** The version of the installed driver in `dir` (`launch.cjs --version`), or this package's when it does not answer. */
function bundleVersion(dir: string): string {
  const r = spawnSync(process.execPath, [join(dir, 'launch.cjs'), '--version'], { encoding: 'utf8', timeout: 30_000 });
  const m = /^gcpatch-driver (\S+)/.exec(r.stdout ?? '');
  return m ? m[1]! : packageVersion();
}

/**
 * The service folder the configured line uses in `opts.cwd`'s repository: next to an `installDir`
 * (tests), `<git common dir>/gcpatch/service` otherwise; undefined outside a repository.
 */
function serviceFolderOf(opts: DriverSetupOptions, dir?: string): string | undefined {
  if (opts.installDir !== undefined && dir !== undefined) return join(dir, '..', 'service');
  const r = git(opts, ['rev-parse', '--git-common-dir']);
  if (r.status !== 0) return undefined;
  const p = r.stdout.trim();
  return serviceFolder(isAbsolute(p) ? p : resolve(opts.cwd ?? process.cwd(), p));
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
  const folder = serviceFolderOf(opts, opts.installDir !== undefined ? resolve(opts.installDir) : undefined);
  const service = folder !== undefined && existsSync(folder) ? { folder, stopped: stopService(folder, true) } : undefined;
  return { scope: opts.global ? 'global' : 'local', removedSections, attributesRemoved, service };
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

/**
 * The driver entry of an unguarded gcpatch 0.1 line (`node '<entry>' %O %A %B ...`), which keeps
 * ours without markers when the entry is gone; undefined for the guarded line and anything else.
 */
export function entryFromCommand(command: string): string | undefined {
  const m = /^\s*node\s+(?:'((?:[^']|'\\'')*)'|(\S+))/.exec(command);
  if (!m) return undefined;
  return m[1] !== undefined ? m[1].replace(/'\\''/g, "'") : m[2];
}

/** Whether the git in `opts` expands `%S %X %Y` (≥ 2.44). */
function labelsExpanded(opts: DriverSetupOptions): boolean {
  const v = parseGitVersion(git(opts, ['--version']).stdout);
  return v !== undefined && versionAtLeast(v, LABELS_GIT_VERSION);
}

/** The built-in examples: a line merge conflicts on the `.gc` one (adjacent lines), the structural merge does not. */
const EXAMPLES = {
  gc: { base: '(def a 1)\n(def b 2)\n', ours: '(def a 10)\n(def b 2)\n', theirs: '(def a 1)\n(def b 20)\n', expected: '(def a 10)\n(def b 20)\n', path: 'gcpatch-doctor.gc' },
  manifest: { base: 'name = "app"\n', ours: 'name = "app2"\n', theirs: 'name = "app"\n', expected: 'name = "app2"\n', path: 'package.toml' },
} as const;

/**
 * Runs a configured driver line exactly as git would: %-expansion ({@link expandDriverLine}), then
 * `sh -c` in the work tree's top (or `opts.cwd`), on a built-in example written to temporary files
 * under `os.tmpdir()` (removed afterwards). Healthy when it exits 0, prints nothing on stderr and
 * leaves the expected bytes in %A, i.e. the driver itself merged (its fallback prints a line).
 * `service` `off` (default) runs it with `GCPATCH_DRIVER_SERVICE=0` (the direct driver; nothing is
 * started); `on` as git would, through a running warm merge service.
 * @returns a check named `runs:<driver name>` (`runs:<driver name>:service` with `on`).
 */
export function runConfiguredLine(
  opts: DriverSetupOptions,
  line: string,
  mode: 'gc' | 'manifest',
  labels: boolean,
  service: 'off' | 'on' = 'off',
): DoctorCheck {
  const name = `runs:${DRIVER_NAMES[mode]}${service === 'on' ? ':service' : ''}`;
  const ex = EXAMPLES[mode];
  const dir = mkdtempSync(join(tmpdir(), 'gcpatch-doctor-'));
  try {
    const files = { O: join(dir, 'base'), A: join(dir, 'ours'), B: join(dir, 'theirs') };
    writeFileSync(files.O, ex.base);
    writeFileSync(files.A, ex.ours);
    writeFileSync(files.B, ex.theirs);
    const top = git(opts, ['rev-parse', '--show-toplevel']);
    const cwd = top.status === 0 ? top.stdout.trim() : (opts.cwd ?? process.cwd());
    const expanded = expandDriverLine(line, { ...files, L: 7, P: ex.path, S: 'base', X: 'ours', Y: 'theirs' }, labels);
    const env = service === 'off' ? { ...process.env, GCPATCH_DRIVER_SERVICE: '0' } : process.env;
    const r = spawnSync('sh', ['-c', expanded], { cwd, encoding: 'utf8', timeout: 60_000, env });
    const got = readFileSync(files.A, 'utf8');
    const stderr = (r.stderr ?? '').trim();
    if (r.status === 0 && stderr === '' && got === ex.expected) {
      return { name, level: 'ok', message: `the configured line merges the built-in ${ex.path} example as git would run it`, fix: undefined };
    }
    const why = r.error ? r.error.message : stderr !== '' ? stderr.split('\n')[0]! : `exit ${r.status}, %A ${JSON.stringify(got)}`;
    return {
      name,
      level: 'error',
      message: `run as git would, merge.${DRIVER_NAMES[mode]}.driver did not merge the built-in example (exit ${r.status}): ${why}`,
      fix: 'gcpatch driver install   (make `node` ≥ 20.19 available on PATH for git)',
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Checks the installation and prints fixes: git version (labels need ≥ 2.44; exit statuses above
 * 128 abort merges since 2.42), both drivers' config, that neither is gcpatch 0.1's unguarded line,
 * that each configured line merges a built-in example when run exactly as git would
 * ({@link runConfiguredLine}: %-expansion, `sh -c`, PATH), the attributes of `x.gc` and
 * `package.toml` (`git check-attr merge`), and the conflict style. Never throws for a failed check.
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
    if (entry !== undefined) {
      add(
        `line:${name}`,
        'error',
        existsSync(entry)
          ? `merge.${name}.driver is gcpatch 0.1's unguarded line: if ${entry} moves or is deleted, git keeps ours WITHOUT conflict markers`
          : `the driver ${entry} does not exist: git would run it, Node would fail, and git would keep ours WITHOUT conflict markers`,
        'gcpatch driver install   (copies the driver to a stable place and writes a line that falls back to git merge-file)',
      );
    }
    checks.push(runConfiguredLine(opts, command, mode, v !== undefined && versionAtLeast(v, LABELS_GIT_VERSION)));
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
    checks.push(...serviceCheck(opts, v !== undefined && versionAtLeast(v, LABELS_GIT_VERSION)));
  } else add('repository', 'warn', 'not inside a git repository: attributes not checked');
  return { healthy: checks.every((c) => c.level !== 'error'), gitVersion, checks };
}

/**
 * The doctor's `service` check (docs/driver.md "The warm merge service"): whether it is switched
 * off (`GCPATCH_DRIVER_SERVICE=0`, git config `gcpatch.driverService`), running (pid, version,
 * idle time) or not, and its folder. An error only when the folder exists but others can enter it
 * or it is not ours (the service refuses it; the line then merges directly).
 */
function serviceCheck(opts: DriverSetupOptions, labels: boolean): DoctorCheck[] {
  const folder = serviceFolderOf(opts)!;
  const status = serviceStatus(folder);
  const configured = git(opts, ['config', '--bool', '--get', 'gcpatch.driverService']).stdout.trim();
  const off =
    process.env.GCPATCH_DRIVER_SERVICE === '0'
      ? 'off (GCPATCH_DRIVER_SERVICE=0)'
      : configured === 'false'
        ? 'off (git config gcpatch.driverService false; a running service stops at its idle time)'
        : undefined;
  const idle = `${idleMs(process.env, opts.cwd) / 1000} s`;
  const running = status.running
    ? `running (pid ${status.pid}, gcpatch ${status.info?.version ?? 'unknown'}, exits after ${status.info ? status.info.idleMs / 1000 : '?'} s idle)`
    : `not running (the next merge starts it; exits after ${idle} idle)`;
  if (existsSync(folder) && !status.folderOk) {
    return [
      {
        name: 'service',
        level: 'error',
        message: `the merge service folder ${folder} is not private (mode 0700, owned by you): the service refuses it and every merge starts Node`,
        fix: `chmod 700 ${shQuote(folder)}   (or remove it: gcpatch driver install creates it again)`,
      },
    ];
  }
  const checks: DoctorCheck[] = [{ name: 'service', level: 'ok', message: `merge service ${off ?? running}; folder ${folder}`, fix: undefined }];
  const line = git(opts, ['config', '--get', `merge.${DRIVER_NAMES.gc}.driver`]).stdout.trim();
  if (status.running && off === undefined && line !== '') checks.push(runConfiguredLine(opts, line, 'gc', labels, 'on'));
  return checks;
}
