// The package as npm publishes it: `npm pack` (the built dist/, the bundles, bin/), installed offline
// into an empty project together with its production dependencies (each packed from this checkout's
// node_modules, so no registry and no cache is needed: a dependency the tarballs do not hold fails
// the install). The project then runs every example of docs/library.md against `gcpatch` and compares
// the output byte for byte, runs the installed CLI, and is refused a deep import.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** The examples of docs/library.md: each `js example=NAME` block and the `text output=NAME` block after it. */
function libraryExamples(): { name: string; code: string; output: string }[] {
  const text = readFileSync(join(root, 'docs', 'library.md'), 'utf8');
  const blocks = new Map<string, { code?: string; output?: string }>();
  for (const m of text.matchAll(/^```(js example|text output)=([\w-]+)\n([\s\S]*?)^```$/gm)) {
    const entry = blocks.get(m[2]!) ?? {};
    if (m[1] === 'js example') entry.code = m[3]!;
    else entry.output = m[3]!;
    blocks.set(m[2]!, entry);
  }
  return [...blocks].map(([name, { code, output }]) => ({ name, code: code ?? '', output: output ?? '' }));
}

/** The folders (under node_modules/) of the production dependency tree, as `npm ls` lists them. */
function productionDependencies(): string[] {
  const out = execFileSync(NPM, ['ls', '--omit=dev', '--all', '--parseable'], { cwd: root, encoding: 'utf8' });
  return out.split('\n').filter((line) => line !== '' && line !== root);
}

let work: string;
let project: string;

function run(command: string, args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(command, args, { cwd: project, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'gcpatch-packed-'));
  const tarballs = join(work, 'tarballs');
  project = join(work, 'project');
  mkdirSync(tarballs);
  mkdirSync(project);
  execFileSync(NPM, ['pack', '--ignore-scripts', '--pack-destination', tarballs, '.', ...productionDependencies()], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }) + '\n');
  const files = readdirSync(tarballs).map((f) => join(tarballs, f));
  execFileSync(NPM, ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', '--cache', join(work, 'empty-cache'), ...files], {
    cwd: project,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
}, 300_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the packed package', () => {
  it('holds its dist, bundles and bin, and no @actions package is installed with it', () => {
    const pkg = JSON.parse(readFileSync(join(project, 'node_modules', 'gcpatch', 'package.json'), 'utf8'));
    expect(Object.keys(pkg.dependencies).filter((d: string) => d.startsWith('@actions/'))).toEqual([]);
    expect(readdirSync(join(project, 'node_modules')).filter((d) => d === '@actions')).toEqual([]);
    expect(readdirSync(join(project, 'node_modules', 'gcpatch'))).toEqual(expect.arrayContaining(['bin', 'dist', 'driver', 'action', 'action.yml']));
  });

  const examples = libraryExamples();
  it('docs/library.md has the four examples (read/hash, merge, apply, verify a range)', () => {
    expect(examples.map((e) => e.name)).toEqual(['read-hash', 'merge', 'apply', 'verify-pr']);
    for (const e of examples) expect(e.output, e.name).not.toBe('');
  });

  it.each(examples)('runs the example $name and prints exactly what the doc shows', ({ name, code, output }) => {
    writeFileSync(join(project, `${name}.mjs`), code);
    const r = run(process.execPath, [`${name}.mjs`]);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(output);
    expect(r.status).toBe(0);
  });

  it('runs the installed CLI without @actions/core', () => {
    writeFileSync(join(project, 'm.gc'), '(def demo/m::a   1) ; one\n');
    const r = run(join(project, 'node_modules', '.bin', 'gcpatch'), ['fmt', 'm.gc']);
    expect(r.stdout).toBe('(def demo/m::a 1)\n');
    expect(r.status).toBe(0);
    const version = run(join(project, 'node_modules', '.bin', 'gcpatch'), ['--version']);
    expect(version.stdout.trim()).toBe(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version);
  });

  it('refuses deep imports (exports names the entry point only)', () => {
    const r = run(process.execPath, ['--input-type=module', '-e', "await import('gcpatch/dist/coreform/read.js')"]);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('ERR_PACKAGE_PATH_NOT_EXPORTED');
    const ok = run(process.execPath, [
      '--input-type=module',
      '-e',
      "const m = await import('gcpatch'); console.log(typeof m.readModule, typeof m.editplan.decodeEditPlan)",
    ]);
    expect(ok.stdout).toBe('function function\n');
  });
});
