'use strict';
// Test-only preload (`node --require test/helpers/kill-preload.cjs bin/gcpatch.js …`): counts the
// calls of this process that change the file system (writes, fsyncs, renames, links, unlinks,
// creates and removes of directories, opens for writing) and, with GCPATCH_TEST_KILL_AT=n, sends
// itself SIGKILL just before the n-th one, as `kill -9` at that point would; with
// GCPATCH_TEST_ENOSPC_AT=n the n-th one fails with ENOSPC instead, as on a full disk (only calls
// that can run out of space: writes, fsyncs, creates, links, renames, copies). With
// GCPATCH_TEST_KILL_COUNT=<file> it writes the calls into <file> at exit, one line each (op, path). `node:fs` is patched
// and `syncBuiltinESMExports` carries the patch into the ES modules' named imports.
const fs = require('node:fs');
const { syncBuiltinESMExports } = require('node:module');

const OPS = [
  'writeSync',
  'writeFileSync',
  'appendFileSync',
  'fsyncSync',
  'fdatasyncSync',
  'renameSync',
  'linkSync',
  'symlinkSync',
  'unlinkSync',
  'rmSync',
  'rmdirSync',
  'mkdirSync',
  'copyFileSync',
  'ftruncateSync',
  'truncateSync',
  'chmodSync',
  'openSync',
];
const at = Number(process.env.GCPATCH_TEST_KILL_AT ?? '0');
const fullAt = Number(process.env.GCPATCH_TEST_ENOSPC_AT ?? '0');
const NO_SPACE_FREE = new Set(['unlinkSync', 'rmSync', 'rmdirSync', 'chmodSync']);
const countFile = process.env.GCPATCH_TEST_KILL_COUNT;
const realWrite = fs.writeFileSync;
let n = 0;
const seen = [];

/** Whether open flags create or write (a read-only open changes nothing). */
function writes(flags) {
  if (flags === undefined) return false;
  if (typeof flags === 'string') return /[wa+]/.test(flags);
  return (flags & (fs.constants.O_WRONLY | fs.constants.O_RDWR | fs.constants.O_CREAT)) !== 0;
}

for (const op of OPS) {
  const real = fs[op];
  if (typeof real !== 'function') continue;
  fs[op] = function (...args) {
    // Writes to stdout and stderr are output, not the file system.
    const output = (op === 'writeSync' || op === 'fsyncSync') && (args[0] === 1 || args[0] === 2);
    if (!output && (op !== 'openSync' || writes(args[1]))) {
      n++;
      if (countFile) seen.push(`${op} ${String(args[0]).replace(/.*\/(\.gcpatch|\.genesis)\//, '$1/')}`);
      if (n === at) process.kill(process.pid, 'SIGKILL');
      if (n === fullAt && !NO_SPACE_FREE.has(op)) {
        const e = new Error(`ENOSPC: no space left on device, ${op.replace(/Sync$/, '')}`);
        e.code = 'ENOSPC';
        e.errno = -28;
        e.syscall = op.replace(/Sync$/, '');
        throw e;
      }
    }
    return real.apply(this, args);
  };
}
syncBuiltinESMExports();
if (countFile) process.on('exit', () => realWrite(countFile, seen.join('\n') + '\n'));
