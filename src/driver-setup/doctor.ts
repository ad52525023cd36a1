/**
 * `gcpatch driver doctor`: checks the git version, both drivers' config and configured lines (run as
 * git would), the attributes, the conflict style and the merge service, and names a fix for each
 * problem. Never throws for a failed check.
 */
import { existsSync } from 'node:fs';
import { idleMs, serviceStatus } from '../driver-service/lifecycle.js';
import { ATTRIBUTE_LINES } from './attributes.js';
import { ABORT_EXIT_GIT_VERSION, LABELS_GIT_VERSION, parseGitVersion, versionAtLeast } from './git-version.js';
import { entryFromCommand, shQuote } from './line.js';
import { afterMergeChecks } from './repin.js';
import { DRIVER_NAMES, runSetupGit, serviceFolderOf, type DriverSetupOptions } from './options.js';
import { runConfiguredLine, type DoctorCheck } from './run-line.js';

/** The result of {@link doctorDriver}: healthy when no check is an `error`. */
export interface DoctorReport {
  healthy: boolean;
  gitVersion: string | undefined;
  checks: DoctorCheck[];
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
    const out = runSetupGit(opts, ['--version']).stdout.trim();
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

  const inRepo = runSetupGit(opts, ['rev-parse', '--git-dir']).status === 0;
  if (!inRepo) {
    add(
      'repository',
      'warn',
      `${opts.cwd ?? process.cwd()} is not inside a git repository: only global settings are checked`,
      'run gcpatch driver doctor inside your repository',
    );
  }
  for (const mode of ['gc', 'manifest'] as const) {
    const name = DRIVER_NAMES[mode];
    const command = runSetupGit(opts, ['config', '--get', `merge.${name}.driver`]).stdout.trim();
    const label = runSetupGit(opts, ['config', '--get', `merge.${name}.name`]).stdout.trim();
    if (command === '') {
      add(
        `config:${name}`,
        'error',
        `merge.${name}.driver is not configured${label ? ' (but merge.' + name + '.name is: git will refuse to merge)' : ''}`,
        'gcpatch driver install',
      );
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
      const out = runSetupGit(opts, ['check-attr', 'merge', '--', file]).stdout.trim();
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
    const style = runSetupGit(opts, ['config', '--get', 'merge.conflictStyle']).stdout.trim() || 'merge';
    add('conflict-style', 'ok', `merge.conflictStyle = ${style}${style === 'zdiff3' ? ' (the driver writes diff3 markers)' : ''}`);
    checks.push(...serviceCheck(opts, v !== undefined && versionAtLeast(v, LABELS_GIT_VERSION)));
  } else add('repository', 'warn', 'not inside a git repository: attributes not checked');
  return { healthy: checks.every((c) => c.level !== 'error'), gitVersion, checks };
}

/**
 * `gcpatch driver doctor` in the process's work tree: {@link doctorDriver} with `opts`, followed by
 * the after-merge checks of the work tree (repin.ts `afterMergeChecks`: empty pins, re-pin hooks);
 * healthy when no check of either is an `error`.
 */
export function doctorWorkTree(opts: DriverSetupOptions = {}): DoctorReport {
  const d = doctorDriver(opts);
  const extra = afterMergeChecks();
  return { ...d, healthy: d.healthy && extra.every((c) => c.level !== 'error'), checks: [...d.checks, ...extra] };
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
  const configured = runSetupGit(opts, ['config', '--bool', '--get', 'gcpatch.driverService']).stdout.trim();
  const off =
    process.env.GCPATCH_DRIVER_SERVICE === '0'
      ? 'off (GCPATCH_DRIVER_SERVICE=0)'
      : configured === 'false'
        ? 'off (git config gcpatch.driverService false; a running service stops at its idle time)'
        : undefined;
  const idle = `${idleMs(process.env, opts.cwd) / 1000} s`;
  const running = status.running
    ? `running (pid ${status.pid}, gcpatch ${status.info?.version ?? 'unknown'}, exits after ${status.info ? status.info.idleMs / 1000 : '?'} s idle)`
    : `not running (the second file of the next merge starts it; exits after ${idle} idle)`;
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
  const line = runSetupGit(opts, ['config', '--get', `merge.${DRIVER_NAMES.gc}.driver`]).stdout.trim();
  if (status.running && off === undefined && line !== '') checks.push(runConfiguredLine(opts, line, 'gc', labels, 'on'));
  return checks;
}
