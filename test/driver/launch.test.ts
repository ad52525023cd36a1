// driver/launch.cjs: the code cache it writes beside the bundle (a `.pre` cache
// from runs that are not representative merges, replaced once by the first merge of a few KB), that
// V8 accepts that cache on the next run although the launcher switches TurboFan off for small
// inputs, that exit codes and output do not depend on the tiering mode, and that the built-ins it
// loads lazily stay unloaded where nothing uses them.
import { spawnSync } from 'node:child_process';
import { cpSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';
import { tmp } from './helpers.js';

/** A copy of driver/dist (bundle + launcher) in a new directory, as an install makes it. */
function installCopy(): string {
  const dir = tmp('gcpatch-launch-');
  for (const f of ['index.js', 'launch.cjs']) cpSync(join(ROOT, 'driver/dist', f), join(dir, f));
  return dir;
}

function launch(dir: string, args: string[], cwd: string, env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [join(dir, 'launch.cjs'), ...args], { cwd, encoding: 'utf8', env: { ...process.env, ...env } });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** A module of `n` definitions; `edit(i)` replaces the body of definition i. */
function module(n: number, edit: (i: number) => string | undefined = () => undefined): string {
  const forms = [];
  for (let i = 0; i < n; i++) forms.push(`;; Step ${i}.\n(def app/t::step${i}\n  (fn (x)\n    ${edit(i) ?? `(prim int/add x ${i})`}))\n`);
  return forms.join('\n');
}

/** Writes O, A, B for a clean merge (ours edits step 1, theirs the second-to-last) of `n` forms. */
function cleanTriple(dir: string, n: number): string {
  writeFileSync(join(dir, 'O'), module(n));
  writeFileSync(
    join(dir, 'A'),
    module(n, (i) => (i === 1 ? '(prim int/mul x 2)' : undefined)),
  );
  writeFileSync(
    join(dir, 'B'),
    module(n, (i) => (i === n - 2 ? '(prim int/sub x 1)' : undefined)),
  );
  return module(n, (i) => (i === 1 ? '(prim int/mul x 2)' : i === n - 2 ? '(prim int/sub x 1)' : undefined));
}

/**
 * Like {@link cleanTriple}, but ours edits every definition but theirs' one, so that the changed
 * windows cover the module and the merge works on every element (no reduced merge): per-element
 * work V8 would optimize.
 */
function wideTriple(dir: string, n: number): string {
  const ours = (i: number): string | undefined => (i !== n - 2 ? '(prim int/mul x 2)' : undefined);
  writeFileSync(join(dir, 'O'), module(n));
  writeFileSync(join(dir, 'A'), module(n, ours));
  writeFileSync(
    join(dir, 'B'),
    module(n, (i) => (i === n - 2 ? '(prim int/sub x 1)' : undefined)),
  );
  return module(n, (i) => ours(i) ?? (i === n - 2 ? '(prim int/sub x 1)' : undefined));
}

const ARGS = ['--wrapped', 'O', 'A', 'B', '7', 'x.gc', 'base', 'ours', 'theirs'];

/** Whether V8 accepts `cache` for `dir`'s bundle, compiled the way the launcher compiles it (a fresh node). */
function cacheAccepted(dir: string, cache: string): boolean {
  const code =
    `const fs=require('fs'),vm=require('vm'),p=require('path');const b=p.join(${JSON.stringify(dir)},'index.js');` +
    "const s=new vm.Script('(function (exports, require, module, __filename, __dirname) {'+fs.readFileSync(b,'utf8')+'\\n})'," +
    `{filename:b,cachedData:fs.readFileSync(${JSON.stringify(cache)})});process.stdout.write(String(s.cachedDataRejected))`;
  return spawnSync(process.execPath, ['-e', code], { encoding: 'utf8' }).stdout === 'false';
}

describe('driver launcher (driver/dist/launch.cjs)', () => {
  it('writes a .pre cache for --version, replaces it once with the cache of a real merge, which V8 accepts', () => {
    const dir = installCopy();
    const work = tmp();
    expect(launch(dir, ['--version'], work).status).toBe(0);
    const cacheDir = join(dir, '.cache');
    expect(readdirSync(cacheDir)).toEqual([expect.stringMatching(/^index\.js\..*\.pre\.v8$/)]);
    // A tiny merge (the install's example size) keeps the .pre cache.
    writeFileSync(join(work, 'O'), '(def a 1)\n(def b 2)\n');
    writeFileSync(join(work, 'A'), '(def a 10)\n(def b 2)\n');
    writeFileSync(join(work, 'B'), '(def a 1)\n(def b 20)\n');
    expect(launch(dir, ARGS, work)).toMatchObject({ status: 0, stderr: '' });
    expect(readdirSync(cacheDir)).toEqual([expect.stringMatching(/\.pre\.v8$/)]);
    // The first merge of a few KB writes the final cache and removes the .pre one.
    const expected = cleanTriple(work, 40);
    expect(launch(dir, ARGS, work)).toMatchObject({ status: 0, stderr: '' });
    expect(readFileSync(join(work, 'A'), 'utf8')).toBe(expected);
    const files = readdirSync(cacheDir);
    expect(files).toEqual([expect.stringMatching(/^index\.js\.v[\d.]+-\w+-\d+-\d+\.v8$/)]);
    const full = join(cacheDir, files[0]!);
    expect(cacheAccepted(dir, full)).toBe(true);
    // Later runs read it and write nothing.
    const before = statSync(full).mtimeMs;
    cleanTriple(work, 40);
    expect(launch(dir, ARGS, work)).toMatchObject({ status: 0, stderr: '' });
    expect(launch(dir, ['--version'], work).status).toBe(0);
    expect(readdirSync(cacheDir)).toEqual(files);
    expect(statSync(full).mtimeMs).toBe(before);
  });

  it('gives the same result and exit code with TurboFan off (small inputs) and on', () => {
    const dir = installCopy();
    const work = tmp();
    for (const optimize of ['0', '1']) {
      const expected = cleanTriple(work, 30);
      expect(launch(dir, ARGS, work, { GCPATCH_DRIVER_OPTIMIZE: optimize })).toMatchObject({ status: 0, stderr: '' });
      expect(readFileSync(join(work, 'A'), 'utf8')).toBe(expected);
      writeFileSync(join(work, 'O'), '(def a 1)\n');
      writeFileSync(join(work, 'A'), '(def a 2)\n');
      writeFileSync(join(work, 'B'), '(def a 3)\n');
      const r = launch(dir, ARGS, work, { GCPATCH_DRIVER_OPTIMIZE: optimize });
      expect(r.status).toBe(3);
      expect(readFileSync(join(work, 'A'), 'utf8')).toMatch(/^<<<<<<< ours\n/);
    }
  });

  it('really switches TurboFan off for a small merge (V8 optimizes nothing), quietly', () => {
    const dir = installCopy();
    const work = tmp();
    const optimized = (env: Record<string, string>): number => {
      const expected = wideTriple(work, 1500); // ~100 KB, every element merged: hot enough for TurboFan when it is on
      const r = spawnSync(process.execPath, ['--trace-opt', join(dir, 'launch.cjs'), ...ARGS], {
        cwd: work,
        encoding: 'utf8',
        env: { ...process.env, ...env },
      });
      expect([r.status, r.stderr]).toEqual([0, '']); // no DEP0111 warning from the flag switch
      expect(readFileSync(join(work, 'A'), 'utf8')).toBe(expected);
      return (r.stdout.match(/completed optimizing/g) ?? []).length;
    };
    expect(optimized({})).toBe(0);
    expect(optimized({ GCPATCH_DRIVER_OPTIMIZE: '1' })).toBeGreaterThan(0);
  });

  it('merges quietly whatever deprecation flags NODE_OPTIONS holds (--no-deprecation makes the switch read-only)', () => {
    const dir = installCopy();
    const work = tmp();
    for (const opts of ['--no-deprecation', '--throw-deprecation', '--pending-deprecation', '--trace-deprecation', '--no-deprecation --throw-deprecation']) {
      const expected = cleanTriple(work, 30);
      expect(launch(dir, ARGS, work, { NODE_OPTIONS: opts }), opts).toMatchObject({ status: 0, stderr: '' });
      expect(readFileSync(join(work, 'A'), 'utf8'), opts).toBe(expected);
      expect(launch(dir, ['--version'], work, { NODE_OPTIONS: opts }), opts).toMatchObject({ status: 0, stderr: '' });
    }
  });

  it('merges an input above 1 MiB (TurboFan kept) cleanly', () => {
    const dir = installCopy();
    const work = tmp();
    const expected = cleanTriple(work, 15_000);
    expect(statSync(join(work, 'O')).size).toBeGreaterThan(1024 * 1024);
    expect(launch(dir, ARGS, work)).toMatchObject({ status: 0, stderr: '' });
    expect(readFileSync(join(work, 'A'), 'utf8')).toBe(expected);
  }, 60_000);

  it('merges without complaint when the cache cannot be read or written', () => {
    const dir = installCopy();
    writeFileSync(join(dir, '.cache'), 'not a directory');
    const work = tmp();
    const expected = cleanTriple(work, 40);
    expect(launch(dir, ARGS, work)).toMatchObject({ status: 0, stderr: '' });
    expect(readFileSync(join(work, 'A'), 'utf8')).toBe(expected);
    expect(readFileSync(join(dir, '.cache'), 'utf8')).toBe('not a directory');
  });

  it('loads child_process neither for --version nor for a structural merge (the lazy built-ins stay lazy)', () => {
    const dir = installCopy();
    cpSync(join(ROOT, 'driver/launch.cjs'), join(dir, 'launch.cjs'));
    const probe = join(dir, 'probe.cjs');
    writeFileSync(
      probe,
      "process.on('exit', () => process.stderr.write(process.moduleLoadList.filter((m) => m.endsWith(' child_process')).join(',') + '|'));\n",
    );
    const work = tmp();
    writeFileSync(join(work, 'O.gc'), module(40));
    writeFileSync(
      join(work, 'A.gc'),
      module(40, (i) => (i === 1 ? '(prim int/sub x 1)' : undefined)),
    );
    writeFileSync(
      join(work, 'B.gc'),
      module(40, (i) => (i === 38 ? '(prim int/mul x 38)' : undefined)),
    );
    const run = (args: string[]) =>
      spawnSync(process.execPath, ['-r', probe, join(dir, 'launch.cjs'), ...args], {
        cwd: work,
        encoding: 'utf8',
        env: { ...process.env, GCPATCH_DRIVER_SERVICE: '0' },
      });
    const version = run(['--version']);
    expect([version.status, version.stderr]).toEqual([0, '|']);
    const merge = run(['--wrapped', 'O.gc', 'A.gc', 'B.gc', '7', 'x.gc', 'base', 'ours', 'theirs']);
    expect([merge.status, merge.stderr]).toEqual([0, '|']);
    expect(readFileSync(join(work, 'A.gc'), 'utf8')).toBe(module(40, (i) => (i === 1 ? '(prim int/sub x 1)' : i === 38 ? '(prim int/mul x 38)' : undefined)));
  });
});
