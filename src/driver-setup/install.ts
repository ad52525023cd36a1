/**
 * Installing the git merge drivers: copies the driver bundle and its launcher to a stable place, sets
 * git config `merge.gcpatch.*` and `merge.gcpatch-manifest.*` to the configured line (line.ts), adds
 * the attribute lines (attributes.ts) and runs the line once as git would (run-line.ts). Used by
 * `gcpatch driver install` (src/cli/driver.ts).
 *
 * Everything goes through the `git` executable in `cwd` (docs/reference/git-merge-driver.md "Wiring"): config is
 * never written in-tree.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { writeFileAtomic } from '../util/atomic.js';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stopService } from '../driver-service/lifecycle.js';
import { ExitCode, GcError } from '../util/errors.js';
import { VERSION } from '../util/version.js';
import { ATTRIBUTE_LINES, attributesFile, readAttributeLines } from './attributes.js';
import { labelsExpanded } from './git-version.js';
import { driverCommand, driverDirExpression, serviceLineOptions, shQuote } from './line.js';
import { installDirectory, requireRepository, serviceFolderOf, setupGitOutput, type DriverSetupOptions } from './options.js';
import { runConfiguredLine, type DoctorCheck } from './run-line.js';

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

/** Absolute path of this package's bundled driver, `<package root>/driver/dist/index.js`. */
export function defaultDriverPath(): string {
  // src/driver-setup/*.ts, dist/driver-setup/*.js and driver/dist/*.js are all two levels below the package root.
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
  return join(root, 'driver', 'dist', 'index.js');
}

/** The files an install copies, in the order they are replaced (the bundle before its launcher). */
export const DRIVER_FILES = ['index.js', 'launch.cjs'] as const;

/**
 * Copies the driver bundle and its launcher to `dir` ({@link DRIVER_FILES}), each with
 * `writeFileAtomic` (src/util/atomic.ts: a synced temporary file and a rename, removed on failure),
 * so a merge running meanwhile sees the old or the new file, never a part; drops the old code
 * cache. Returns `dir`.
 */
function copyDriver(from: string, dir: string): string {
  mkdirSync(dir, { recursive: true });
  for (const name of DRIVER_FILES) writeFileAtomic(join(dir, name), readFileSync(join(from, name)));
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
  for (const { key, value } of config) setupGitOutput(opts, ['config', scope, key, value]);
  const file = attributesFile(opts);
  const lines = readAttributeLines(file);
  const present = new Set(lines.map((l) => l.trim()));
  const added = ATTRIBUTE_LINES.filter((l) => !present.has(l));
  if (added.length > 0) {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, [...lines, ...added].join('\n') + '\n'); // through a link: a dotfiles repository's attributes file stays one
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
  return m ? m[1]! : VERSION;
}
