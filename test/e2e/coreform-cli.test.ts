// `gcpatch fmt`, `hash`, `parse` and `verify-pins`: in-process (test/helpers/run-cli.ts), and through
// the built CLI (bin/gcpatch.js) for a parse error (exit 10), a missing file (exit 70) and a closed pipe.
import { describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { BIN, copyFixture, gcpatch, tempDir } from '../helpers/cli.js';
import { runCli } from '../helpers/run-cli.js';

/** Writes `text` to a file called `name` in a new temporary folder; returns its path. */
function tempFile(name: string, text: string): string {
  const file = join(tempDir(), name);
  writeFileSync(file, text);
  return file;
}

describe('gcpatch fmt / hash / parse / verify-pins', () => {
  it('hash prints the module hash of the frozen simple-module vector', async () => {
    const file = tempFile('simple.gc', '(def x (prim int/add 1 2))\nx\n');
    const r = await runCli(['hash', file]);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(`2b45b7589484cd1ca94c8c906d726f357ca156eadf12c35a38db191696996c00  ${file}\n`);
  });

  it('hash --term hashes one term as read', async () => {
    const file = tempFile('t.gcpatch', '{:c 3 :b 2 :a 1}\n');
    const r = await runCli(['hash', '--term', '--json', file]);
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout).hashes[0].hash).toBe('06b48c7b6ed15580f01ba425a88d01d96e3c2426c5692ff3dea8add1ac7f8a99');
  });

  it('fmt prints, --check reports with exit 1, --write rewrites to canonical bytes', async () => {
    const file = tempFile('m.gc', '; comment\r\n(fn (x y) (f x y))\r\n');
    expect((await runCli(['fmt', file])).stdout).toBe('(fn (x) (fn (y) ((f x) y)))\n');
    const check = await runCli(['fmt', '--check', file]);
    expect(check.status).toBe(1);
    expect(check.stdout).toBe(`not canonical: ${file}\n`);
    expect((await runCli(['fmt', '--write', file])).status).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe('(fn (x) (fn (y) ((f x) y)))\n');
    expect((await runCli(['fmt', '--check', file])).status).toBe(0);
  });

  it('a parse error prints file:line:col: code: message and exits 10 without a stack trace', async () => {
    const file = tempFile('bad.gc', '(def ok 1)\n(def x "unterminated)\n');
    const r = gcpatch(['fmt', file]);
    expect(r.status).toBe(10);
    expect(r.stderr).toMatch(new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:2:8: core/parse/unexpected: `));
    expect(r.stderr).not.toContain('    at ');
  });

  it('a canonicalization error exits 10 and names the form', async () => {
    const file = tempFile('bad.gc', '(def a 1)\n(fn (x x) x)\n');
    const r = await runCli(['hash', file]);
    expect(r.status).toBe(10);
    expect(r.stderr).toContain('duplicate parameter: x');
    expect(r.stderr.startsWith(`${file}`)).toBe(true);
  });

  it('parse --json prints canonical forms with spans', async () => {
    const file = tempFile('m.gc', '(def x {:b 2 :a 1})\n');
    const out = JSON.parse((await runCli(['parse', '--json', file])).stdout);
    expect(out.forms).toEqual([{ start: 0, end: 19, term: { $list: [{ $sym: 'def' }, { $sym: 'x' }, { a: 1, b: 2 }] } }]);
    // `canonical` agrees with `fmt --check`: not canonical here (map keys out of order) …
    expect(out).toMatchObject({ canonical: false, canonicalized: true });
    expect((await runCli(['fmt', '--check', file])).status).toBe(1);
    // … canonical after `fmt --write`, with or without --raw.
    expect((await runCli(['fmt', '--write', file])).status).toBe(0);
    expect(JSON.parse((await runCli(['parse', '--json', file])).stdout)).toMatchObject({ canonical: true, canonicalized: true });
    expect(JSON.parse((await runCli(['parse', '--json', '--raw', file])).stdout)).toMatchObject({ canonical: true, canonicalized: false });
    expect((await runCli(['fmt', '--check', file])).status).toBe(0);
  });

  it('verify-pins passes on the shipped fixture and fails with 50 after an edit', async () => {
    const pkg = copyFixture('packages/greeter');
    const ok = await runCli(['verify-pins', '--pkg', pkg]);
    expect(ok.stdout).toContain('all 2 module pins verified');
    expect(ok.status).toBe(0);
    const app = join(pkg, 'app.gc');
    writeFileSync(app, readFileSync(app, 'utf8').replace('"Ada"', '"Grace"'));
    const bad = await runCli(['verify-pins', '--pkg', join(pkg, 'package.toml'), '--json']);
    expect(bad.status).toBe(50);
    const findings = JSON.parse(bad.stdout).findings;
    expect(findings.map((f: { status: string }) => f.status)).toEqual(['ok', 'mismatch']);
  });

  it('fmt --write writes nothing when any file fails to read', async () => {
    const dir = tempDir();
    const good = join(dir, 'good.gc');
    const bad = join(dir, 'bad.gc');
    writeFileSync(good, '; c\n(f  x)\n');
    writeFileSync(bad, '(f');
    const r = await runCli(['fmt', '--write', good, bad]);
    expect(r.status).toBe(10);
    expect(readFileSync(good, 'utf8')).toBe('; c\n(f  x)\n');
    expect(r.stderr).toContain(`${bad}:1:1: core/parse/unexpected`);
  });

  it('parse --json --raw prints a 20,000-deep list as compact JSON', async () => {
    const file = tempFile('deep.gc', '('.repeat(20_000) + 'x' + ')'.repeat(20_000));
    const r = await runCli(['parse', '--json', '--raw', file]);
    expect(r.status).toBe(0);
    expect(r.stdout.split('\n').length).toBe(2);
    expect(JSON.parse(r.stdout).forms[0].start).toBe(0);
  });

  it('usage errors are reported as JSON with --json', async () => {
    const r = await runCli(['hash', '--json', '--bogus', 'x.gc']);
    expect(r.status).toBe(10);
    expect(JSON.parse(r.stdout).error.code).toBe('usage/unknownOption');
  });

  it('verify-pins defaults to the package in the current directory', async () => {
    const pkg = copyFixture('packages/greeter');
    const r = await runCli(['verify-pins'], { cwd: pkg });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('all 2 module pins verified');
  });

  it('a closed pipe ends the command quietly', async () => {
    const file = tempFile('big.gc', Array.from({ length: 20_000 }, (_, i) => `(def x${i} [${i} ${i + 1} ${i + 2} ${i + 3}])`).join('\n'));
    const r = spawnSync('sh', ['-c', `node ${JSON.stringify(BIN)} fmt ${JSON.stringify(file)} | head -1`], { encoding: 'utf8' });
    expect(r.stdout).toBe('(def x0\n');
    expect(r.stderr).toBe('');
  });

  it('a missing file is an I/O error with exit 70', async () => {
    const r = gcpatch(['hash', '/nonexistent/x.gc']);
    expect(r.status).toBe(70);
    expect(r.stderr).toContain('io/enoent');
  });

  it('--help lists the commands and exit codes', async () => {
    const r = await runCli(['--help']);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('verify-pins');
    expect(r.stdout).toContain('50 verification failed');
  });
});
