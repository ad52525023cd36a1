// One request served in this process, as the service's loop serves it (src/driver-service/request.ts):
// the request file and reply FIFO as the line leaves them, the reply read back from the FIFO.
// The real service process and the line, with faults, are test/e2e/driver-service.test.ts.
import { spawnSync } from 'node:child_process';
import { chmodSync, closeSync, constants, existsSync, mkdirSync, openSync, readFileSync, readSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseDriverArgs } from '../../src/textmerge/driver.js';
import { FORWARDED_ENV, formatReply, formatRequest, requestPaths, type ServiceRequest } from '../../src/driver-service/protocol.js';
import { serveRequest, type ServiceIdentity } from '../../src/driver-service/request.js';
import { mergeInvocation } from '../../src/driver-service/run.js';
import { tmp } from '../driver/helpers.js';
import { BASE, C_OURS, C_THEIRS, MERGED, OURS, THEIRS } from './cases.js';

const TOKEN = '4242';
const SELF: ServiceIdentity = { version: '0.1.0', current: () => true };

let root = '';
let folder = '';
let work = '';
beforeEach(() => {
  root = tmp('gcpatch-service-request-');
  folder = join(root, 'service');
  work = join(root, 'work');
  mkdirSync(folder, { mode: 0o700 });
  mkdirSync(work);
  spawnSync('git', ['init', '-q', work], { env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' } });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** The request of a merge of `ours` and `theirs` in `work`, with git isolated from the user's config. */
function request(ours: string, theirs: string, version = '0.1.0'): ServiceRequest {
  writeFileSync(join(work, '.merge_file_O'), BASE);
  writeFileSync(join(work, '.merge_file_A'), ours);
  writeFileSync(join(work, '.merge_file_B'), theirs);
  const env: Record<string, string | undefined> = Object.fromEntries(FORWARDED_ENV.map((n) => [n, undefined]));
  Object.assign(env, { PATH: process.env.PATH, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' });
  return { version, cwd: work, args: ['.merge_file_O', '.merge_file_A', '.merge_file_B', '7', 'm.gc', 'base', 'ours', 'theirs'], env };
}

/** Leaves `req` as the line does: `q.<token>` (0600) and the reply FIFO `r.<token>` (0600). */
function leave(req: ServiceRequest | Uint8Array, mode = 0o600): void {
  const paths = requestPaths(folder, TOKEN);
  writeFileSync(paths.request, req instanceof Uint8Array ? req : formatRequest(req), { mode });
  chmodSync(paths.request, mode);
  expect(spawnSync('mkfifo', ['-m', '600', paths.reply]).status).toBe(0);
}

/** Serves the token while this process reads the reply FIFO (opened first, as the line's `sleep` holds it); returns the outcome and the reply. */
function serve(self = SELF): { outcome: string; reply: string } {
  const fd = openSync(requestPaths(folder, TOKEN).reply, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const outcome = serveRequest(folder, TOKEN, self);
    const chunks: Buffer[] = [];
    const buf = Buffer.alloc(65536);
    for (let n; (n = readSync(fd, buf)) > 0;) chunks.push(Buffer.from(buf.subarray(0, n)));
    return { outcome, reply: Buffer.concat(chunks).toString('utf8') };
  } finally {
    closeSync(fd);
  }
}

/** What the direct driver makes of the same files: its result and exit status, messages as the reply carries them. */
function directly(req: ServiceRequest): { status: 0 | 1; result: string; messages: string } {
  const copy = join(root, 'direct');
  writeFileSync(copy, readFileSync(join(work, '.merge_file_A')));
  const inv = parseDriverArgs(req.args);
  const cwd = process.cwd();
  let stderr = '';
  process.chdir(work);
  try {
    const status = mergeInvocation({ ...inv, ours: copy }, { ...process.env, ...req.env }, (t) => void (stderr += t));
    return { status, result: readFileSync(copy, 'utf8'), messages: formatReply(status, stderr) };
  } finally {
    process.chdir(cwd);
  }
}

/** Nothing of the request is left: no `q.`/`r.` in the folder, no result copy next to %A. */
function expectClean(): void {
  expect(readdirSync(folder)).toEqual([]);
  expect(existsSync(join(work, '.merge_file_A.gcpatch'))).toBe(false);
}

describe('serveRequest', () => {
  it("a clean merge: ok, the status, the result renamed over %A, done; the process's cwd and environment put back", () => {
    const req = request(OURS, THEIRS);
    const expected = directly(req);
    leave(req);
    const env = { ...process.env };
    const cwd = process.cwd();
    expect(serve()).toEqual({ outcome: 'merged', reply: `ok\n${expected.messages}!\n` });
    expect(expected.status).toBe(0);
    expect(expected.result).toBe(MERGED);
    expect(readFileSync(join(work, '.merge_file_A'), 'utf8')).toBe(expected.result);
    expect(process.cwd()).toBe(cwd);
    expect(process.env).toEqual(env);
    expectClean();
  });

  it('a conflict: status 1 and the direct driver\'s messages, one ":" line each; its markers in %A', () => {
    const req = request(C_OURS, C_THEIRS);
    const expected = directly(req);
    leave(req);
    expect(expected.status).toBe(1);
    expect(expected.messages).toMatch(/^=1\n:gcpatch: m\.gc: conflict/);
    expect(serve()).toEqual({ outcome: 'merged', reply: `ok\n${expected.messages}!\n` });
    expect(readFileSync(join(work, '.merge_file_A'), 'utf8')).toBe(expected.result);
    expectClean();
  });

  it('another version, or a bundle replaced on disk: stale, %A untouched', () => {
    for (const [req, self] of [
      [request(OURS, THEIRS, '0.0.9'), SELF],
      [request(OURS, THEIRS), { version: '0.1.0', current: () => false }],
    ] as const) {
      leave(req);
      expect(serve(self)).toEqual({ outcome: 'stale', reply: 'stale\n' });
      expect(readFileSync(join(work, '.merge_file_A'), 'utf8')).toBe(OURS);
      expectClean();
    }
  });

  it('a cut or foreign request file: no answer at all (the line merges directly), %A untouched', () => {
    const cut = formatRequest(request(OURS, THEIRS));
    leave(cut.subarray(0, cut.length - 1));
    expect(serve()).toEqual({ outcome: 'skipped', reply: '' });
    expect(readFileSync(join(work, '.merge_file_A'), 'utf8')).toBe(OURS);
    expectClean();
  });

  it('a request file others could write (mode 0644) is removed unread; the line removes its FIFO', () => {
    leave(request(OURS, THEIRS), 0o644);
    expect(serve()).toEqual({ outcome: 'skipped', reply: '' });
    expect(readdirSync(folder)).toEqual([`r.${TOKEN}`]);
    expect(readFileSync(join(work, '.merge_file_A'), 'utf8')).toBe(OURS);
  });

  it('no reader on the reply FIFO (the line gave up waiting): dropped, %A untouched', () => {
    leave(request(OURS, THEIRS));
    expect(serveRequest(folder, TOKEN, SELF)).toBe('skipped');
    expect(readFileSync(join(work, '.merge_file_A'), 'utf8')).toBe(OURS);
    expectClean();
  });

  it('a token that is not a process id is ignored', () => {
    leave(request(OURS, THEIRS));
    expect(serveRequest(folder, '../4242', SELF)).toBe('skipped');
    expect(readdirSync(folder).sort()).toEqual([`q.${TOKEN}`, `r.${TOKEN}`]);
  });
});
