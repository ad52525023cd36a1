/** The hand-over between the configured driver line (POSIX `sh`) and the warm merge service: files, request, reply. */
import { join } from 'node:path';

/**
 * The service's folder holds (docs/driver.md "The warm merge service"), all created 0700/0600:
 * - `pid`: the service's process id, written by the line that started it (`set -C`: one starter wins);
 * - `requests`: the FIFO the service reads tokens from (one line per request: the client's `$$`);
 * - `q.<token>`: a request file (fields, {@link parseRequest}); `r.<token>`: the request's reply FIFO;
 * - `info`: what the running service is (JSON, {@link ServiceInfo}), for `gcpatch driver doctor`;
 * - `burst`: the `$PPID` of the line that merged directly last (the git process running it): the
 *   next direct merge of that process starts a service (src/driver-service/line.ts); after a
 *   service's abnormal death also the burst's deaths and the files still to merge without a start
 *   (`$PPID c u`, the restart back-off `RESTART_BACK_OFF` in src/driver-service/line.ts).
 */
export const SERVICE_FILES = { pid: 'pid', requests: 'requests', info: 'info', burst: 'burst' } as const;

/** The first field of every request: the protocol this line and service speak. */
export const PROTOCOL = 'gcpatch-service-2';

/** Default idle time (ms) after which the service exits; `GCPATCH_DRIVER_SERVICE_IDLE_MS`, `gcpatch.driverServiceIdleSeconds`. */
export const DEFAULT_IDLE_MS = 5000;

/** Default bound (whole seconds, `sleep`'s unit) the line waits for the service to take a request; `GCPATCH_DRIVER_SERVICE_WAIT`. */
export const DEFAULT_WAIT_SECONDS = 2;

/** The reply's first line when the service took the request (it then holds the reply FIFO open until it answers). */
export const REPLY_ACCEPTED = 'ok';
/** The reply's first line when the service is not the one the line expects (version, or its bundle changed on disk). */
export const REPLY_STALE = 'stale';

/**
 * The environment a merge reads, forwarded by the line with every request (a service started by
 * an earlier call has that call's environment): git's config lookup for `merge.conflictStyle`
 * (`git -c` arrives as `GIT_CONFIG_PARAMETERS`), `git merge-file` for the line merge, and the
 * driver's own switches. The line does not hand over when `GIT_CONFIG_COUNT` is set (its
 * `GIT_CONFIG_KEY_<n>` names cannot be listed in advance).
 */
export const FORWARDED_ENV = [
  'PATH',
  'HOME',
  'XDG_CONFIG_HOME',
  'TMPDIR',
  'GIT_DIR',
  'GIT_COMMON_DIR',
  'GIT_WORK_TREE',
  'GIT_CONFIG',
  'GIT_CONFIG_PARAMETERS',
  'GIT_CONFIG_GLOBAL',
  'GIT_CONFIG_SYSTEM',
  'GIT_CONFIG_NOSYSTEM',
  'GCPATCH_DRIVER',
  'GCPATCH_DRIVER_TIMEOUT_MS',
  'GCPATCH_DEBUG',
] as const;

/** One request as the line writes it into `q.<token>`. */
export interface ServiceRequest {
  /** The gcpatch version the line was installed with. */
  version: string;
  /** The line's working directory (git runs drivers in the work tree's top); relative paths resolve against it. */
  cwd: string;
  /** The driver arguments after `--wrapped`: `[--manifest] %O %A %B %L %P %S %X %Y` (labels already defaulted by the line). */
  args: string[];
  /** {@link FORWARDED_ENV} as the line saw it: a name maps to its value, or to undefined when unset. */
  env: Record<string, string | undefined>;
}

/**
 * Parses a request file: NUL-terminated fields `PROTOCOL, version, cwd, mode, %O, %A, %B, %L, %P,
 * %S, %X, %Y`, then one field per {@link FORWARDED_ENV} name, `NAME=value` when set or `NAME`
 * when unset (the line's `"NAME${NAME+=$NAME}"`). `mode` is `gc` or `manifest`.
 * @returns undefined for anything else (another protocol, a cut file): the service then does not
 *   take the request and the line merges directly.
 */
export function parseRequest(bytes: Uint8Array): ServiceRequest | undefined {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('utf8');
  if (!text.endsWith('\0')) return undefined;
  const fields = text.slice(0, -1).split('\0');
  if (fields.length !== 12 + FORWARDED_ENV.length || fields[0] !== PROTOCOL) return undefined;
  const mode = fields[3];
  if (mode !== 'gc' && mode !== 'manifest') return undefined;
  const env: Record<string, string | undefined> = {};
  for (let i = 0; i < FORWARDED_ENV.length; i++) {
    const name = FORWARDED_ENV[i]!;
    const field = fields[12 + i]!;
    if (field === name) env[name] = undefined;
    else if (field.startsWith(`${name}=`)) env[name] = field.slice(name.length + 1);
    else return undefined;
  }
  return {
    version: fields[1]!,
    cwd: fields[2]!,
    args: [...(mode === 'manifest' ? ['--manifest'] : []), ...fields.slice(4, 12)],
    env,
  };
}

/** Writes a request the way the line does (for tests and the bench). */
export function formatRequest(req: ServiceRequest): Uint8Array {
  const mode = req.args[0] === '--manifest' ? 'manifest' : 'gc';
  const args = mode === 'manifest' ? req.args.slice(1) : req.args;
  const env = FORWARDED_ENV.map((name) => (req.env[name] === undefined ? name : `${name}=${req.env[name]}`));
  return Buffer.from([PROTOCOL, req.version, req.cwd, mode, ...args, ...env].map((f) => `${f}\0`).join(''), 'utf8');
}

/** The reply's last line: the service has renamed `<%A>.gcpatch` over %A. */
export const REPLY_DONE = '!';

/**
 * The reply after {@link REPLY_ACCEPTED}: `=<status>` (0 merged, 1 conflicts; the result is then
 * complete in `<%A>.gcpatch`), then the driver's stderr, one line each prefixed with `:`. The
 * service then renames the result over %A and writes {@link REPLY_DONE}. At most `maxBytes` of
 * messages (a FIFO holds 16–64 KiB); the rest is cut with a note.
 */
export function formatReply(status: 0 | 1, stderr: string, maxBytes = 8192): string {
  let text = stderr.endsWith('\n') ? stderr.slice(0, -1) : stderr;
  if (Buffer.byteLength(text) > maxBytes) {
    text = `${Buffer.from(text)
      .subarray(0, maxBytes)
      .toString('utf8')
      .replace(/\n[^\n]*$/, '')}\ngcpatch: (further messages cut)`;
  }
  const lines = text === '' ? [] : text.split('\n').map((l) => `:${l}\n`);
  return `=${status}\n${lines.join('')}`;
}

/** The request file, reply FIFO and result file names of `token` in `folder`, and the result file next to %A. */
export function requestPaths(folder: string, token: string): { request: string; reply: string } {
  return { request: join(folder, `q.${token}`), reply: join(folder, `r.${token}`) };
}

/** Where the service writes the merged result of %A `ours` before it renames it over %A. */
export function resultPath(ours: string): string {
  return `${ours}.gcpatch`;
}

/** What a running service writes into `info` (JSON) for `gcpatch driver doctor`. */
export interface ServiceInfo {
  pid: number;
  version: string;
  /** Start time, ISO 8601. */
  started: string;
  /** Idle time (ms) after which it exits. */
  idleMs: number;
  /** The driver bundle it runs (its identity is checked before each request). */
  bundle: string;
}
