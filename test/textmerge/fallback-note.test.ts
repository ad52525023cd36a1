// The driver's notes locate by `line:col` (the side named), never by byte offset: a side that does
// not read, and a form without a definition name in a carried-rename note.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cli.js';
import { runCli } from '../helpers/run-cli.js';

function files(dir: string, o: string, a: string, b: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'o.gc'), o);
  writeFileSync(join(dir, 'a.gc'), a);
  writeFileSync(join(dir, 'b.gc'), b);
}

describe('driver notes give line:col', () => {
  it('a side that does not read: its name and line:col in the fallback note', async () => {
    const dir = tempDir();
    files(dir, '(def a 1)\n\n(def b 2)\n', '(def a 1)\n\n(def b 3)\n', '(def a 1)\n\n  (def b (2)\n');
    const r = await runCli(['merge-file', '-p', 'o.gc', 'a.gc', 'b.gc'], { cwd: dir });
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(
      "gcpatch: a.gc: structural merge not used (core/parse/unexpected in theirs at 3:3: unterminated list: no closing ')' for the '(' opened here); falling back to git merge-file\n",
    );
  });

  it('a form without a definition name: "the form at theirs 5:1", not a byte offset', async () => {
    const dir = tempDir();
    files(dir, '(def m/a::f 1)\n\n(def m/a::x 0)\n', '(def m/a::g 1)\n\n(def m/a::x 0)\n', '(def m/a::f 1)\n\n(def m/a::x 0)\n\n(check (m/a::f 3))\n');
    const r = await runCli(['merge-file', '-p', 'o.gc', 'a.gc', 'b.gc'], { cwd: dir });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('(def m/a::g 1)\n\n(def m/a::x 0)\n\n(check (m/a::g 3))\n');
    expect(r.stderr).toBe("gcpatch: a.gc: carried ours' rename m/a::f → m/a::g into theirs' new reference in the form at theirs 5:1\n");
  });
});
