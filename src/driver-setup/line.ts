/**
 * The configured line: the guarded `sh` command set-up writes to `merge.<name>.driver`, its quoting
 * and %-escaping, git's %-expansion of it, and the unguarded line of gcpatch 0.1 it replaces.
 */
import { serviceHandOverPart, serviceStartPart, type ServiceLineOptions } from '../driver-service/line.js';
import { VERSION } from '../util/version.js';
import { wrappedStatusShell } from './exit-status.js';

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
 * The `merge.<name>.driver` line: a guarded `sh` command that runs
 * `node <dir>/launch.cjs --wrapped [--manifest] %O %A %B %L %P %S %X %Y` when the driver is there
 * and `node` is on PATH, and otherwise, or when Node cannot start it (any exit but 0 and the
 * wrapped conflict status, exit-status.ts), prints one line naming the file, the reason and the fix, runs
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
  const handOver =
    service === false
      ? ''
      : serviceHandOverPart(service, mode)
          .map((piece, i) => (i % 2 === 0 ? lit(piece) : piece))
          .join('');
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
    lit(`s=$?; ${service === false ? '' : serviceStartPart()}${wrappedStatusShell()}w="the merge driver stopped (exit $s)"; `) +
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
export function serviceLineOptions(scope: 'local' | 'global', version = VERSION): ServiceLineOptions {
  return {
    folderExpression:
      scope === 'local'
        ? '"$d/../service"'
        : '"$([ -z "$GIT_DIR$GIT_COMMON_DIR" ] && [ -d .git ] && echo .git || git rev-parse --git-common-dir 2>/dev/null)/gcpatch/service"',
    version,
  };
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

/**
 * The driver entry of an unguarded gcpatch 0.1 line (`node '<entry>' %O %A %B ...`), which keeps
 * ours without markers when the entry is gone; undefined for the guarded line and anything else.
 */
export function entryFromCommand(command: string): string | undefined {
  const m = /^\s*node\s+(?:'((?:[^']|'\\'')*)'|(\S+))/.exec(command);
  if (!m) return undefined;
  return m[1] !== undefined ? m[1].replace(/'\\''/g, "'") : m[2];
}
