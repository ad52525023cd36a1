/**
 * Crash safety and the package lock through the built CLI (bin/gcpatch.js): a real `kill -9` of `gcpatch
 * apply` while its obligation runner runs (files already replaced, not committed), then the next
 * command restores the package; and two concurrent applies (the second refused, or serialized
 * with --lock-wait), both outcomes consistent.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, watch, writeFileSync, type FSWatcher } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { snapshotTree } from '../patch/helpers.js';
import { BIN, copyFixture, gcpatch, ROOT } from '../helpers/cli.js';

const PATCH = join(ROOT, 'fixtures/patches/patchdemo-refactor.gcpatch');
const OBLIGATION = 'core/obligation::unit-tests';

function withObligation(pkg: string): void {
  const toml = join(pkg, 'package.toml');
  writeFileSync(toml, readFileSync(toml, 'utf8').replace('obligations = []', `obligations = ["${OBLIGATION}"]`));
  expect(gcpatch(['pack', '--pkg', pkg]).status).toBe(0);
}

/** A runner that touches `marker`, waits until `gate` exists (or `seconds`), then prints an acceptance with `ok`. */
function runner(marker: string, ok: boolean, seconds: number, gate = '/nonexistent'): string {
  const acceptance = `{:kind "genesis/acceptance-v0.2" :ok ${ok} :package {:name "patchdemo" :version "0.1.0"} :obligations [{:name ${OBLIGATION} :ok ${ok}}]}`;
  const script =
    `const fs=require('fs');fs.writeFileSync(${JSON.stringify(marker)},'');const end=Date.now()+${seconds * 1000};` +
    `(function w(){if(Date.now()<end&&!fs.existsSync(${JSON.stringify(gate)}))return setTimeout(w,50);process.stdout.write(${JSON.stringify(acceptance)})})()`;
  return `${JSON.stringify(process.execPath)} -e ${JSON.stringify(script)}`;
}

function start(args: string[]): { child: ChildProcess; done: Promise<{ status: number | null; signal: string | null; stdout: string; stderr: string }> } {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  const done = new Promise<{ status: number | null; signal: string | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (status, signal) => resolve({ status, signal, stdout, stderr })),
  );
  return { child, done };
}

async function waitFor(file: string, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!existsSync(file)) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${file}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const leftovers = (tree: Record<string, string>) => Object.keys(tree).filter((p) => /gcpatch-(stage|backup|tmp)|^\.gcpatch\//.test(p));

/**
 * A copy of patchdemo (with an obligation) whose `gcpatch apply` was killed (-9, with its runner)
 * while in its obligation runner, and the package's tree before the apply.
 */
async function killedApply(): Promise<{ pkg: string; before: Record<string, string> }> {
  const pkg = copyFixture('packages/patchdemo');
  withObligation(pkg);
  const before = snapshotTree(pkg);
  const marker = join(pkg, '..', 'runner-started');
  const run = start(['apply', '--patch', PATCH, '--pkg', pkg, '--obligation-runner', runner(marker, true, 60)]);
  await waitFor(marker);
  // the modules and package.toml are already replaced, the journal is open, the lock is held
  expect(existsSync(join(pkg, '.gcpatch', 'apply-journal.json'))).toBe(true);
  expect(existsSync(join(pkg, '.gcpatch', 'package.lock'))).toBe(true);
  expect(snapshotTree(pkg)['lib/utils.gc']).toBeDefined();
  process.kill(-run.child.pid!, 'SIGKILL'); // the apply and its runner
  const killed = await run.done;
  expect(killed.signal).toBe('SIGKILL');
  return { pkg, before };
}

/** After the next command: nothing of the transaction is left and the pins match. */
function expectSettled(pkg: string): void {
  const tree = snapshotTree(pkg);
  expect(leftovers(tree)).toEqual([]);
  expect(gcpatch(['verify-pins', '--pkg', pkg]).status).toBe(0);
}

describe('kill -9 during apply, then the next command (built CLI)', () => {
  it('then `gcpatch verify-pins`: the package is all-old (or all-new after the re-apply), pins match, nothing left', async () => {
    const { pkg, before } = await killedApply();
    const r = gcpatch(['verify-pins', '--pkg', pkg, '--json']);
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout).ok).toBe(true);
    expect(r.stderr).toMatch(/rolled back an interrupted apply \(\d+ of \d+ files restored\)/);
    expect(snapshotTree(pkg)).toEqual(before);
    expectSettled(pkg);
  });

  it('then `gcpatch recover`: the package is all-old (or all-new after the re-apply), pins match, nothing left', async () => {
    const { pkg, before } = await killedApply();
    const r = gcpatch(['recover', '--pkg', pkg, '--json']);
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ ok: true, kind: 'gcpatch/recover-v1', action: 'rolled-back', command: 'apply' });
    expect(out.files.map((f: { path: string }) => f.path)).toContain('package.toml');
    expect(snapshotTree(pkg)).toEqual(before);
    const again = gcpatch(['recover', '--pkg', pkg, '--json']);
    expect(JSON.parse(again.stdout).action).toBe('none');
    expectSettled(pkg);
  });

  it('then `gcpatch apply`: the package is all-old (or all-new after the re-apply), pins match, nothing left', async () => {
    const { pkg } = await killedApply();
    const r = gcpatch(['apply', '--patch', PATCH, '--pkg', pkg, '--obligation-runner', runner(join(pkg, '..', 'm2'), true, 0)]);
    expect(r.stdout).toContain('applied'); // apply says what it changed and stored on stdout
    expect(r.status).toBe(0);
    expect(gcpatch(['audit', '--pkg', pkg]).status).toBe(0);
    expectSettled(pkg);
  });
});

describe('two concurrent applies (built CLI)', () => {
  it('B is in its obligation runner: A is refused at once (exit 70, --json); B fails and rolls back; the package is all-old', async () => {
    const pkg = copyFixture('packages/patchdemo');
    withObligation(pkg);
    const before = snapshotTree(pkg);
    const marker = join(pkg, '..', 'b-started');
    const gate = join(pkg, '..', 'b-go');
    const b = start(['apply', '--patch', PATCH, '--pkg', pkg, '--obligation-runner', runner(marker, false, 60, gate)]);
    await waitFor(marker);
    const a = gcpatch(['apply', '--patch', PATCH, '--pkg', pkg, '--json', '--obligation-runner', runner(join(pkg, '..', 'a'), true, 0)]);
    expect(a.status).toBe(70);
    const out = JSON.parse(a.stdout);
    expect(out).toMatchObject({ ok: false, error: { code: 'patch/package-locked', exitCode: 70 } });
    expect(out.data.owner.pid).toBe(b.child.pid);
    writeFileSync(gate, '');
    const rb = await b.done;
    expect(rb.status).toBe(30);
    expect(snapshotTree(pkg)).toEqual(before);
    expect(gcpatch(['verify-pins', '--pkg', pkg]).status).toBe(0);
  });

  it('with --lock-wait A waits for B (serialized): B fails and rolls back, then A applies; audit passes, A is pinned', async () => {
    const pkg = copyFixture('packages/patchdemo');
    withObligation(pkg);
    const marker = join(pkg, '..', 'b-started');
    const gate = join(pkg, '..', 'b-go');
    const b = start(['apply', '--patch', PATCH, '--pkg', pkg, '--obligation-runner', runner(marker, false, 60, gate)]);
    await waitFor(marker);
    // A is waiting once it tries to take the lock: its temp file `package.lock.new-<token>` appears.
    const control = join(pkg, '.gcpatch');
    let watcher: FSWatcher | undefined;
    const attempted = new Promise<void>((resolve) => {
      watcher = watch(control, (_event, name) => {
        if (String(name).startsWith('package.lock.new-')) resolve();
      });
    });
    const a = start(['apply', '--patch', PATCH, '--pkg', pkg, '--lock-wait', '60000', '--json', '--obligation-runner', runner(join(pkg, '..', 'a'), true, 0)]);
    await attempted;
    watcher!.close();
    writeFileSync(gate, '');
    const [rb, ra] = await Promise.all([b.done, a.done]);
    expect(rb.status).toBe(30);
    expect(ra.status).toBe(0);
    expect(JSON.parse(ra.stdout).ok).toBe(true);
    const audit = gcpatch(['audit', '--pkg', pkg]);
    expect(audit.status).toBe(0);
    expect(leftovers(snapshotTree(pkg))).toEqual([]);
    expect(readFileSync(join(pkg, '.genesis/last_acceptance'), 'utf8').trim()).toBe(JSON.parse(ra.stdout).data.acceptance_artifact);
  });
});
