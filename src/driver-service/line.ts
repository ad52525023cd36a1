/** The configured driver line's part for the warm merge service, in POSIX `sh` plus `mkfifo`, `sleep`, `mv` and `rm`: hand over (or notice at once that the service is gone), or mark a burst and start one. */
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
 * The `sh` function `y <pid>` the line defines: true when process `pid` exists, this user may
 * signal it (`kill -0`) and, where `/proc` has it (Linux), it is neither a zombie (a killed
 * service nobody reaped yet: `kill -0` still succeeds on it), stopped nor dead (`Z`, `T`, `t`,
 * `X`: the state after the command name in `/proc/<pid>/stat`). A killed or stopped service
 * cannot pass it; only builtins run.
 */
export const LIVENESS_FUNCTION =
  'y() { kill -0 "$1" 2>/dev/null && { [ ! -r "/proc/$1/stat" ] || { read -r w <"/proc/$1/stat" && w=${w##*) } && case $w in [ZTtX]*) false;; esac; }; }; }; ';

/**
 * The hand-over, run before the direct driver (docs/driver.md "The hand-over"). Variables the line
 * has set: `d` (driver directory), `p b o t` (path and labels). Sets `z=1` when the service is
 * enabled, so that {@link serviceStartPart} starts one after a direct merge. Only builtins on the
 * way to the service except `mkfifo` (the reply FIFO) and `sleep`: a watcher, in the background,
 * holds the reply FIFO open while the service process stays alive ({@link LIVENESS_FUNCTION},
 * checked every 50 ms) and at most `GCPATCH_DRIVER_SERVICE_WAIT` seconds, so the line's read ends
 * at the answer, at once when the service dies or stops before it took the request, or at the cap.
 * After a status without the done line (the service died at the rename) `mv` finishes the rename
 * if it did not happen; `rm` runs only when the service did not answer (and then removes a `pid`
 * and `info` that still name the dead service, and sets `g=1`: an abnormal death for the restart
 * back-off of {@link serviceStartPart}). The shell's own messages of the whole part go to
 * /dev/null (a folder that vanished or turned read-only mid-hand-over prints nothing); the
 * service's messages go to the line's stderr (fd 4).
 *
 * Placeholders `%O %A %B %L` are left for git; everything else is literal (the caller %-escapes it).
 * @returns a pair: the literal text before and after the `%`-placeholders are spliced in, as
 *   pieces `[literal, placeholder, literal, …]`.
 */
export function serviceHandOverPart(opts: ServiceLineOptions, mode: 'gc' | 'manifest'): string[] {
  const env = FORWARDED_ENV.map((name) => `"${name}\${${name}+=$${name}}"`).join(' ');
  const ticks = `$((\${GCPATCH_DRIVER_SERVICE_WAIT:-${DEFAULT_WAIT_SECONDS}}*20))`;
  return [
    `z= g=; v='${opts.version.replace(/'/g, '')}'; ${LIVENESS_FUNCTION}` +
      'if [ "${GCPATCH_DRIVER_SERVICE-}" != 0 ] && [ -z "${GIT_CONFIG_COUNT-}" ] && [ -r "$d/index.js" ] && [ -r "$d/launch.cjs" ]; then ' +
      `z=1; k=${opts.folderExpression}; umask 077; ` +
      '{ if [ -p "$k/requests" ] && [ -s "$k/pid" ] && read -r n <"$k/pid" && y "$n" && a=',
    '%A',
    ` && q="$k/q.$$" r="$k/r.$$" s= x= e= && mkfifo "$r"; then ` + `if printf '%s\\0' ${PROTOCOL} "$v" "$PWD" ${mode} `,
    '%O',
    ' "$a" ',
    '%B',
    ' ',
    '%L',
    ` "$p" "$b" "$o" "$t" ${env} >"$q"; then ` +
      `( i=0; while [ $i -lt ${ticks} ] && y "$n"; do sleep 0.05 >/dev/null 2>&1 || { sleep 1 >/dev/null 2>&1; i=$((i+19)); }; i=$((i+1)); done ) >"$r" </dev/null & j=$!; ` +
      `{ printf '%s\\n' $$ >&3; IFS= read -r x; if [ "$x" = ${REPLY_ACCEPTED} ]; then kill $j; ` +
      `while IFS= read -r l; do case $l in =*) s=\${l#=};; :*) printf '%s\\n' "\${l#:}" >&4;; ${REPLY_DONE}) e=1;; esac; done; fi; } <"$r" 3<>"$k/requests"; ` +
      'kill $j; case $s in 0|1) [ "$e" = 1 ] || [ ! -e "$a.gcpatch" ] || mv -f "$a.gcpatch" "$a" && exit $s;; esac; ' +
      `[ "$x" = ${REPLY_ACCEPTED} ] || [ "$x" = ${REPLY_STALE} ] || { g=1; read -r m <"$k/pid" && [ "$m" = "$n" ] && rm -f "$k/pid" "$k/info"; }; fi; rm -f "$q" "$r" "$a.gcpatch"; fi; } 4>&2 2>/dev/null; fi; `,
  ];
}

/**
 * The restart back-off (docs/driver.md "The warm merge service", "Back-off"): after the burst's n-th
 * abnormal service death, entry n-1 (the last entry for every later death) is how many files,
 * counting the one that found the death, merge directly without starting a service; the file after
 * them starts one. The first death restarts at once (a service killed once, e.g. by a user, comes
 * back for the next file); repeated deaths back off, because a service killed again and again costs
 * a Node start-up per file, competing with git's own driver runs, and a request handed to it while
 * it starts waits for it. An abnormal death is a `pid` file naming a process that is gone, a zombie
 * or stopped, or a hand-over that got no answer (`g=1`); a service that exits by itself (idle,
 * stale, replaced bundle) removes its `pid` and is restarted without counting. The count lives in
 * the burst marker; a new git command starts from none. The line's `case` patterns need at most 10
 * entries of at most 99 (test/driver-service/restart-back-off.test.ts checks it).
 */
export const RESTART_BACK_OFF = [0, 1, 4, 16, 64] as const;

/** The line's `case $c in …` arms: with `c` deaths so far, the next death sets `c` to the new count and `u` to the files that start nothing. */
const BACK_OFF_CASES = RESTART_BACK_OFF.map((skip, i) => (i < RESTART_BACK_OFF.length - 1 ? `${i}) c=${i + 1} u=${skip};;` : `*) u=${skip};;`)).join(' ');

/**
 * After a direct merge when `z=1` (docs/driver.md "The warm merge service", "Start"): the first file
 * a git command merges only leaves a marker, `burst` in the folder holding the line's `$PPID` (the
 * git process that runs the line for every file of a merge or rebase), so that a merge of one file
 * pays two builtins and starts nothing. A later file of the same git process (the marker names its
 * `$PPID`) starts a service in the background: creates the folder (`mkdir -m 700`) and the
 * `requests` FIFO (`mkfifo -m 600`) when missing, unless the folder is not ours or not writable;
 * removes a `pid` (and `info`) naming a process that is gone, a zombie or stopped
 * ({@link LIVENESS_FUNCTION}); then, in a background shell with its standard streams on /dev/null
 * (git does not wait for it), reads git config `gcpatch.driverService` (false: nothing more
 * happens, and no `pid` file is written, so later files never wait on a service that is not
 * coming) and otherwise becomes a `sh` that writes its own pid with `set -C` (O_EXCL: of two lines
 * starting one at once, one wins and the other exits) and execs `node launch.cjs --serve` (the
 * same process: the `pid` file names the service).
 *
 * Deaths back off ({@link RESTART_BACK_OFF}): the marker then reads `$PPID c u`, `c` the burst's
 * abnormal deaths so far and `u` the files still to merge without a start; each such file writes
 * `u-1`, the one that reads `u` = 0 starts. In a marker of the older form (`$PPID` alone) both
 * counts read as 0, and so does a field that is no such count (`c` not 1 to the table's last
 * index, `u` with a leading zero or followed by more fields). A marker naming another process (an earlier git command, a pid reused since) is
 * overwritten: at worst a service starts one file early or late (or, after a reused pid inherits
 * a back-off, up to the last entry's files late), never a wrong merge. The shell's own messages go
 * to /dev/null.
 */
export function serviceStartPart(): string {
  const { burst, info } = SERVICE_FILES;
  return (
    '[ "$z" = 1 ] && { { [ -d "$k" ] || mkdir -m 700 "$k"; } && [ -O "$k" ] && [ -w "$k" ] && ' +
    `{ m= c= u=; [ ! -s "$k/${burst}" ] || read -r m c u <"$k/${burst}"; [ "$m" = "$PPID" ] || { echo "$PPID" >"$k/${burst}"; false; }; } && ` +
    '{ [ -p "$k/requests" ] || mkfifo -m 600 "$k/requests"; } && ' +
    '! { [ -s "$k/pid" ] && read -r n <"$k/pid" && y "$n"; } && { ' +
    `{ [ ! -e "$k/pid" ] && [ ! -e "$k/${info}" ]; } || { [ ! -s "$k/pid" ] || g=1; rm -f "$k/pid" "$k/${info}"; }; ` +
    `case $c in [1-${RESTART_BACK_OFF.length - 1}]) ;; *) c=0;; esac; case $u in [1-9]|[1-9][0-9]) ;; *) u=0;; esac; ` +
    `[ "$g" != 1 ] || case $c in ${BACK_OFF_CASES} esac; ` +
    `if [ $u -gt 0 ]; then echo "$PPID $c $((u-1))" >"$k/${burst}"; else { [ "$g" != 1 ] || echo "$PPID $c 0" >"$k/${burst}"; }; ` +
    '( [ "$(git config --bool --get gcpatch.driverService)" = false ] && exit 0; ' +
    `exec sh -c 'set -C; echo $$ >"$1/pid" && exec node "$2/launch.cjs" --serve "$1" "$3"' sh "$k" "$d" "$v" ) </dev/null >/dev/null 2>&1 & fi; ` +
    '}; } 2>/dev/null; '
  );
}
