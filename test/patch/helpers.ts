/** Test helpers: temp copies of fixture packages and byte-exact snapshots of a package tree. */
import { cpSync, lstatSync, mkdtempSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { isGcError, type GcError } from '../../src/util/errors.js';

export const FIXTURES = join(__dirname, '..', '..', 'fixtures');
export const DEMO_PKG = join(FIXTURES, 'packages', 'patchdemo');
export const DEMO_PATCH = join(FIXTURES, 'patches', 'patchdemo-refactor.gcpatch');

/** Copies a fixture package into a fresh temp directory and returns the copy's path. */
export function copyPackage(src = DEMO_PKG): string {
  const dir = mkdtempSync(join(tmpdir(), 'gcpatch-test-'));
  const dest = join(dir, 'pkg');
  cpSync(src, dest, { recursive: true });
  return dest;
}

/**
 * Every file (with its bytes, base64) and directory under `root`, excluding the evidence store
 * `.genesis/store` and the `.genesis` directory entry itself.
 * @param skip package-relative paths left out, with everything below them (a directory another
 *   process is writing into while the snapshot is taken).
 */
export function snapshotTree(root: string, skip: (rel: string) => boolean = () => false): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const abs = join(dir, name);
      const rel = relative(root, abs).split('\\').join('/');
      if (rel === '.genesis/store' || skip(rel)) continue;
      const st = lstatSync(abs);
      if (st.isSymbolicLink()) out[rel] = `symlink -> ${readlinkSync(abs)}`;
      else if (st.isDirectory()) {
        if (rel !== '.genesis') out[rel + '/'] = 'dir';
        walk(abs);
      } else out[rel] = readFileSync(abs).toString('base64');
    }
  };
  walk(root);
  return out;
}

/** What `describe` says of the GcError thrown by `fn`, or 'no error'; any other throw passes through. */
function describeThrown(fn: () => unknown, describe: (error: GcError) => string): string {
  try {
    fn();
  } catch (error) {
    if (isGcError(error)) return describe(error);
    throw error;
  }
  return 'no error';
}

/** The `code` of the GcError thrown by `fn` (or 'no error'). */
export function codeOf(fn: () => unknown): string {
  return describeThrown(fn, (error) => error.code);
}

/** `code/exitCode` of the GcError thrown by `fn`, e.g. `pkg/not-found/10` (or 'no error'). */
export function codeAndExitOf(fn: () => unknown): string {
  return describeThrown(fn, (error) => `${error.code}/${error.exitCode}`);
}

/** The GcError thrown by `fn`. */
export function errorOf(fn: () => unknown): GcError {
  try {
    fn();
  } catch (error) {
    if (isGcError(error)) return error;
    throw error;
  }
  throw new Error('expected an error');
}
