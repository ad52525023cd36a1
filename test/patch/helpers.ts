/** Test helpers: temp copies of fixture packages and byte-exact snapshots of a package tree. */
import { cpSync, lstatSync, mkdtempSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { isGcError } from '../../src/util/errors.js';

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
 */
export function snapshotTree(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const abs = join(dir, name);
      const rel = relative(root, abs).split('\\').join('/');
      if (rel === '.genesis/store') continue;
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

/** The `code` of the GcError thrown by `fn` (or 'no error'). */
export function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    if (isGcError(error)) return error.code;
    throw error;
  }
  return 'no error';
}

/** The GcError thrown by `fn`. */
export function errorOf(fn: () => unknown): import('../../src/util/errors.js').GcError {
  try {
    fn();
  } catch (error) {
    if (isGcError(error)) return error;
    throw error;
  }
  throw new Error('expected an error');
}
