/**
 * vitest global setup: every test file runs with TMPDIR pointing at one fresh directory of this
 * run, removed when the run ends, so `npm test` leaves nothing in the system temp directory even
 * when a test forgets its own clean-up or fails half-way. Child processes (git, the CLI, the
 * driver, the Action bundle) inherit TMPDIR too.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  const root = mkdtempSync(join(tmpdir(), 'gcpatch-test-run-'));
  const previous = process.env.TMPDIR;
  process.env.TMPDIR = root;
  return () => {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    rmSync(root, { recursive: true, force: true });
  };
}
