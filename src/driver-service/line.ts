/** The configured driver line's part for the warm merge service, in POSIX `sh` plus `mkfifo`, `sleep`, `mv` and `rm`: hand over, or mark a burst and start one. */
import { DEFAULT_WAIT_SECONDS, FORWARDED_ENV, PROTOCOL, REPLY_ACCEPTED, REPLY_DONE, REPLY_STALE, SERVICE_FILES } from './protocol.js';

/** How the line finds the service folder and which version it speaks. */
export interface ServiceLineOptions {
  /**
   * An `sh` word for the service folder, evaluated after `d` (the driver directory) is set: a local
   * install uses `"$d/../service"` (`<git common dir>/gcpatch/service`).
   */
  folderExpression: string;
  /** The gcpatch version written into the line; a service of another version answers stale. */
  version: string;
}

/**
 * The hand-over, run before the direct driver (docs/driver.md "The hand-over"). Variables the line
 * has set: `d` (driver directory), `p b o t` (path and labels). Sets `z=1` when the service is
 * enabled, so that {@link serviceStartPart} starts one after a direct merge. Only builtins on the
 * way to the service except `mkfifo` (the reply FIFO) and `sleep` (the bounded wait: it holds the
 * reply FIFO open until the service takes the request, so the line's read ends at the answer or
 * when `sleep` exits). After a status without the done line (the service died at the rename) `mv`
 * finishes the rename if it did not happen; `rm` runs only when the service did not answer.
 *
 * Placeholders `%O %A %B %L` are left for git; everything else is literal (the caller %-escapes it).
 * @returns a pair: the literal text before and after the `%`-placeholders are spliced in, as
 *   pieces `[literal, placeholder, literal, …]`.
 */
export function serviceHandOverPart(opts: ServiceLineOptions, mode: 'gc' | 'manifest'): string[] {
  const env = FORWARDED_ENV.map((name) => `"${name}\${${name}+=$${name}}"`).join(' ');
  const wait = `"\${GCPATCH_DRIVER_SERVICE_WAIT:-${DEFAULT_WAIT_SECONDS}}"`;
  return [
    `z=; v='${opts.version.replace(/'/g, '')}'; ` +
      'if [ "${GCPATCH_DRIVER_SERVICE-}" != 0 ] && [ -z "${GIT_CONFIG_COUNT-}" ] && [ -r "$d/index.js" ] && [ -r "$d/launch.cjs" ]; then ' +
      `z=1; k=${opts.folderExpression}; umask 077; ` +
      'if [ -p "$k/requests" ] && [ -s "$k/pid" ] && read -r n <"$k/pid" && kill -0 "$n" 2>/dev/null && a=',
    '%A',
    ` && q="$k/q.$$" r="$k/r.$$" s= x= e= && mkfifo "$r" 2>/dev/null; then ` +
      `if printf '%s\\0' ${PROTOCOL} "$v" "$PWD" ${mode} `,
    '%O',
    ' "$a" ',
    '%B',
    ' ',
    '%L',
    ` "$p" "$b" "$o" "$t" ${env} >"$q" 2>/dev/null; then ` +
      `sleep ${wait} >"$r" 2>/dev/null </dev/null & j=$!; ` +
      `{ printf '%s\\n' $$ >&3; IFS= read -r x; if [ "$x" = ${REPLY_ACCEPTED} ]; then kill $j 2>/dev/null; ` +
      `while IFS= read -r l; do case $l in =*) s=\${l#=};; :*) printf '%s\\n' "\${l#:}" >&2;; ${REPLY_DONE}) e=1;; esac; done; fi; } <"$r" 3<>"$k/requests"; ` +
      'kill $j 2>/dev/null; case $s in 0|1) [ "$e" = 1 ] || [ ! -e "$a.gcpatch" ] || mv -f "$a.gcpatch" "$a" && exit $s;; esac; ' +
      `[ "$x" = ${REPLY_ACCEPTED} ] || [ "$x" = ${REPLY_STALE} ] || rm -f "$k/pid"; fi; rm -f "$q" "$r" "$a.gcpatch"; fi; fi; `,
  ];
}

/**
 * After a direct merge when `z=1` (docs/driver.md "The warm merge service", "Start"): the first file
 * a git command merges only leaves a marker, `burst` in the folder holding the line's `$PPID` (the
 * git process that runs the line for every file of a merge or rebase), so that a merge of one file
 * pays two builtins and starts nothing. A later file of the same git process (the marker names its
 * `$PPID`) starts a service in the background: creates the folder (`mkdir -m 700`) and the
 * `requests` FIFO (`mkfifo -m 600`) when missing, unless the folder is not ours or not writable;
 * removes a `pid` file naming a dead process; runs `node launch.cjs --serve` with its standard
 * streams on /dev/null (git does not wait for it) unless git config `gcpatch.driverService` is
 * false (read in that background shell, not on the merge's path); and writes its pid with `set -C`
 * (O_EXCL: of two lines starting one at once, one wins and the other stops its own). A marker
 * naming another process (an earlier git command, a pid reused since) is overwritten: at worst a
 * service starts one file early or late, never a wrong merge.
 */
export function serviceStartPart(): string {
  return (
    '[ "$z" = 1 ] && { [ -d "$k" ] || mkdir -m 700 "$k"; } 2>/dev/null && [ -O "$k" ] && [ -w "$k" ] && ' +
    `{ m=; [ ! -s "$k/${SERVICE_FILES.burst}" ] || read -r m <"$k/${SERVICE_FILES.burst}"; [ "$m" = "$PPID" ] || { echo "$PPID" >"$k/${SERVICE_FILES.burst}"; false; }; } 2>/dev/null && ` +
    '{ [ -p "$k/requests" ] || mkfifo -m 600 "$k/requests"; } 2>/dev/null && ' +
    '! { [ -s "$k/pid" ] && read -r n <"$k/pid" && kill -0 "$n"; } 2>/dev/null && { ' +
    '[ ! -e "$k/pid" ] || rm -f "$k/pid"; ' +
    '( [ "$(git config --bool --get gcpatch.driverService 2>/dev/null)" = false ] && exit 0; exec node "$d/launch.cjs" --serve "$k" "$v" ) </dev/null >/dev/null 2>&1 & ' +
    'set -C; { echo $! >"$k/pid"; } 2>/dev/null || kill $! 2>/dev/null; set +C; }; '
  );
}
