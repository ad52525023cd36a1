// `gcpatch apply`, `patch …`, `pack`, `store …` and `audit` through the CLI: in-process (test/helpers/run-cli.ts),
// and the built CLI (bin/gcpatch.js) for the exit codes 30 and 10 and their messages.
import { chmodSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { copyFixture, gcpatch, ROOT } from '../helpers/cli.js';
import { runCli } from '../helpers/run-cli.js';

const PATCH = join(ROOT, 'fixtures/patches/patchdemo-refactor.gcpatch');

function flipByte(file: string): void {
  chmodSync(file, 0o644);
  const bytes = readFileSync(file);
  bytes[Math.floor(bytes.length / 2)] = bytes[Math.floor(bytes.length / 2)]! ^ 0x20;
  writeFileSync(file, bytes);
}

describe('gcpatch apply / audit / store (e2e)', () => {
  it('applies a real patch; audit passes; a flipped byte in ANY store entry fails store verify and audit with 50', async () => {
    const pkg = copyFixture('packages/patchdemo');
    const applied = await runCli(['apply', '--patch', PATCH, '--pkg', join(pkg, 'package.toml')]);
    expect(applied.status).toBe(0);
    // One line per stored entry: role, address, kind and summary.
    const reportHex = /^stored apply report ([0-9a-f]{64}) {2}genesis\/patch-apply-v0\.3 {2}intent ".*"( \(.*\))? ok true$/m.exec(applied.stdout)![1]!;
    expect(applied.stdout).toMatch(/^stored acceptance {3}[0-9a-f]{64} {2}genesis\/acceptance-v0\.2 {2}package patchdemo \S+ ok true$/m);
    expect(applied.stdout).toMatch(/^stored package {6}[0-9a-f]{64} {2}genesis\/package-v0\.2 {2}package patchdemo \S+$/m);
    expect(applied.stdout).toMatch(/^stored patch {8}[0-9a-f]{64} {2}patch {2}intent ".*"$/m);
    expect(applied.stdout).toContain('changed app.gc, legacy.gc, lib/double.gc, lib/math.gc, lib/utils.gc');

    const audit = await runCli(['audit', '--pkg', pkg]);
    expect(audit.stderr).toBe('');
    expect(audit.status).toBe(0);
    expect(audit.stdout).toMatch(/^ok: 4 modules, acceptance [0-9a-f]{64}, 0 referenced artifacts, 4 store entries re-hashed$/m);

    const show = await runCli(['store', 'show', reportHex, '--pkg', pkg]);
    expect(show.stdout).toContain(':kind "genesis/patch-apply-v0.3"');
    const ls = await runCli(['store', 'ls', '--pkg', pkg, '--json']);
    const entries = JSON.parse(ls.stdout).entries as { hex: string }[];
    expect(entries.length).toBe(4);
    expect((await runCli(['store', 'verify', '--pkg', pkg])).status).toBe(0);

    for (const { hex } of entries) {
      const copy = copyFixture('packages/patchdemo');
      expect((await runCli(['apply', '--patch', PATCH, '--pkg', copy])).status).toBe(0);
      flipByte(join(copy, '.genesis/store', hex));
      const verify = await runCli(['store', 'verify', '--pkg', copy]);
      expect(verify.status).toBe(50);
      expect(verify.stderr).toContain('core/store/corruption');
      expect((await runCli(['store', 'verify', hex, '--pkg', copy])).status).toBe(50);
      const bad = await runCli(['audit', '--pkg', copy, '--json']);
      expect(bad.status).toBe(50);
      expect(JSON.parse(bad.stdout).findings.map((f: { code: string }) => f.code)).toContain('core/store/corruption');
    }
  });

  it('--json output, exit 30 for unevaluated obligations, exit 10 with file:line:col for a bad patch', async () => {
    const pkg = copyFixture('packages/patchdemo');
    const toml = join(pkg, 'package.toml');
    writeFileSync(toml, readFileSync(toml, 'utf8').replace('obligations = []', 'obligations = ["core/obligation::unit-tests"]'));
    const before = readFileSync(toml, 'utf8');
    const failed = gcpatch(['apply', '--patch', PATCH, '--pkg', pkg, '--json'], { env: { GCPATCH_OBLIGATION_RUNNER: '' } });
    expect(failed.status).toBe(30);
    const out = JSON.parse(failed.stdout);
    expect(out).toMatchObject({ ok: false, kind: 'genesis/apply-patch-v0.2', error: { code: 'patch/obligations-failed', exitCode: 30 } });
    expect(out.data.failedObligations[0].name).toBe('core/obligation::unit-tests');
    expect(failed.stderr).toContain('--obligation-runner');
    expect(readFileSync(toml, 'utf8')).toBe(before);

    const runner = `node -e 'process.stdout.write(${JSON.stringify(
      '{:kind "genesis/acceptance-v0.2" :ok true :package {:name "patchdemo" :version "0.1.0"} :obligations [{:name core/obligation::unit-tests :ok true}]}',
    )})'`;
    const ok = await runCli(['apply', '--patch', PATCH, '--pkg', pkg, '--json', '--obligation-runner', runner]);
    expect(ok.status).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ ok: true, data: { changed_paths: ['app.gc', 'legacy.gc', 'lib/double.gc', 'lib/math.gc', 'lib/utils.gc'] } });
    expect((await runCli(['audit', '--pkg', pkg])).status).toBe(0);

    const badPatch = join(pkg, 'bad.gcpatch');
    writeFileSync(badPatch, '{:version 1\n :intent "x"\n :provenance {}\n :ops [{:op :replace :module-path "a.gc"}]}\n');
    const bad = gcpatch(['apply', '--patch', badPatch, '--pkg', pkg]);
    expect(bad.status).toBe(10);
    expect(bad.stderr).toMatch(/bad\.gcpatch: patch\/unknown-op: op 0 has unknown op :replace/);
    writeFileSync(badPatch, '{:version 1\n :ops [\n');
    const unparsable = await runCli(['patch', 'normalize', '--patch', badPatch]);
    expect(unparsable.status).toBe(10);
    expect(unparsable.stderr).toMatch(/bad\.gcpatch:2:7: core\/parse\/unexpected: /);
  });

  it('patch normalize | preflight | node-index, pack', async () => {
    const pkg = copyFixture('packages/patchdemo');
    const norm = await runCli(['patch', 'normalize', '--patch', PATCH, '--json']);
    expect(norm.status).toBe(0);
    expect(JSON.parse(norm.stdout).report).toMatchObject({ kind: 'genesis/patch-normalize-v0.1', ok: true });
    const pre = await runCli(['patch', 'preflight', '--patch', PATCH, '--pkg', pkg]);
    expect(pre.status).toBe(0);
    expect(pre.stdout).toContain(':ok true');
    writeFileSync(join(pkg, 'lib/util.gc'), '1\n');
    const conflict = await runCli(['patch', 'preflight', '--patch', PATCH, '--pkg', pkg]);
    expect(conflict.status).toBe(10);
    expect(conflict.stderr).toContain('patch/path-state-conflict: op 0 (:add-module) needs lib/util.gc to be absent, but it is file');
    const index = await runCli(['patch', 'node-index', '--pkg', pkg, '--module', 'app.gc', '--json']);
    expect(index.status).toBe(0);
    const nodes = JSON.parse(index.stdout).report.nodes as { 'node-id': string; 'path-repr': string }[];
    expect(nodes.find((n) => n['path-repr'] === '[\n  [:form 2]\n  [:pair-cdr]\n  [:pair-cdr]\n  [:pair-car]]')!['node-id']).toBe(
      'af9c3a8f01467a960e9bdbe9e153280b4bb6463222cdebed44581dcea43ecb81',
    );
    const pack = await runCli(['pack', '--pkg', pkg]);
    expect(pack.status).toBe(0);
    const packed = /^stored package ([0-9a-f]{64}) {2}genesis\/package-v0\.2/m.exec(pack.stdout)![1]!;
    expect(readdirSync(join(pkg, '.genesis/store'))).toEqual([packed]);
  });
});
