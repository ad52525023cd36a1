// End-to-end: the bundled Action (action/dist/index.js) run as a separate Node process, as GitHub
// runs it, against real temporary git repositories with pull_request event payloads.
import { cpSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hashModule } from '../../src/coreform/hash.js';
import { canonicalizeSource } from '../../src/coreform/canon.js';
import { applyPatch } from '../../src/patch/apply/apply.js';
import { readTerm } from '../../src/coreform/read.js';
import { addShopPackage, commitAll, git, honestRenamePr, initRepo, pullRequestEvent, runAction, tempDir } from '../action/helpers.js';

/** Rewrites the pin of `modulePath` in `<pkg>/package.toml` to the module's current hash (a careful hand edit). */
function repin(pkg: string, modulePath: string): void {
  const hash = hashModule(canonicalizeSource(readFileSync(join(pkg, modulePath))));
  const file = join(pkg, 'package.toml');
  const lines = readFileSync(file, 'utf8').split('\n');
  const at = lines.findIndex((l) => l === `path = "${modulePath}"`);
  lines[at - 1] = `hash = "${hash}"`;
  writeFileSync(file, lines.join('\n'));
}

describe('the bundled Action on a pull request', () => {
  it('passes an honest rename PR and reports every check', () => {
    const { repo, base, head, evidence } = honestRenamePr();
    const run = runAction(repo, { event: pullRequestEvent(base, head) });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.annotations.filter((a) => a.kind === 'error')).toEqual([]);

    // outputs
    expect(Number(run.outputs.verified)).toBeGreaterThan(10);
    expect(run.outputs.failed).toBe('0');
    expect(run.outputs['report-path']).toMatch(/gcpatch-pr-audit\.json$/);

    // the JSON report
    const report = run.report!;
    expect(report.ok).toBe(true);
    expect(report.base).toBe(base);
    expect(report.head).toBe(head);
    expect(report.packages.map((p) => p.dir)).toEqual(['pkgs/shop']);
    const pkg = report.packages[0]!;
    expect(pkg.name).toBe('shop');
    expect(pkg.evidence).toEqual({
      acceptance: 1,
      'apply-report': 1,
      package: 1,
      patch: 1,
      'refactor-plan': 1,
      'refactor-plan-request': 1,
    });
    expect(pkg.replay.status).toBe('reproduced');
    expect(pkg.replay.applied).toEqual([evidence.evidence.applyReport]);
    expect(pkg.replay.modulesChanged).toBe(3);
    expect(pkg.changedModules).toEqual(['app/cart.gc', 'app/report.gc', 'lib/price.gc']);
    expect(pkg.unexplainedModules).toEqual([]);
    const checks = pkg.rows.map((r) => `${r.kind}/${r.check}/${r.result}`);
    for (const c of [
      'pins/head pins/pass',
      'refactor-plan/request present/pass',
      'refactor-plan/host verifier/pass',
      'refactor-plan/re-plan/pass',
      'apply-report/patch present/pass',
      'apply-report/op identities/pass',
      'apply-report/artifacts/pass',
      'apply-report/request-h/pass',
      'apply-report/replay edits/pass',
      'apply-report/replay package/pass',
      'module/replay/pass',
    ]) {
      expect(checks).toContain(c);
    }
    expect(pkg.rows.every((r) => r.result === 'pass' || r.result === 'skip')).toBe(true);
    // the shop package declares no obligation: nothing to re-run, no notice (and the acceptance is never a pass)
    expect(report.findings.map((f) => [f.severity, f.code])).toEqual([]);
    expect(pkg.rows.filter((r) => r.check === 'accepted').map((r) => r.result)).toEqual(['skip']);
    expect(run.summary).toContain('What explained each commit:');
    expect(run.summary).toContain('its evidence, checked on the state it was made on (its parent)');

    // the job summary
    expect(run.summary).toContain('<h2>gcpatch: pull request evidence</h2>');
    expect(run.summary).toContain('✅ Evidence verified');
    expect(run.summary).toContain(`<code>${base.slice(0, 12)}</code>`);
    expect(run.summary).toContain('from pull_request.base.sha');
    expect(run.summary).toContain('<h3>shop — pkgs/shop</h3>');
    expect(run.summary).toContain('Replay: ✅ 1 apply report replayed commit by commit; 3 changed modules reproduced exactly');
    expect(run.summary).toContain('<th>Evidence</th><th>Kind</th><th>Check</th><th>Result</th><th>Detail</th>');
    expect(run.summary).toContain('<td>re-plan</td><td>✅ pass</td>');
    expect(run.summary).toContain(`<code>${evidence.evidence.applyReport.slice(0, 12)}</code>`);
  });

  it('fails when a hand edit hides in a renamed module, with an annotation on that file and line', () => {
    const { repo, pkg, base } = honestRenamePr();
    const file = join(pkg, 'app/report.gc');
    const text = readFileSync(file, 'utf8');
    expect(text).toContain('"daily report"');
    writeFileSync(file, text.replace('"daily report"', '"nightly report"'));
    repin(pkg, 'app/report.gc'); // the pins agree: only the replay can tell
    const head = commitAll(repo, 'rename (and a small fix)');
    const run = runAction(repo, { event: pullRequestEvent(base, head) });
    expect(run.status).toBe(1);
    const errors = run.annotations.filter((a) => a.kind === 'error');
    const mismatch = errors.find((a) => a.properties.title === 'gcpatch: replay differs');
    expect(mismatch).toBeDefined();
    expect(mismatch!.properties.file).toBe('pkgs/shop/app/report.gc');
    const lines = readFileSync(file, 'utf8').split('\n');
    expect(lines[Number(mismatch!.properties.line) - 1]).toContain('"nightly report"');
    expect(mismatch!.message).toContain('[audit/replay-module-mismatch]');
    // setFailed's own annotation
    expect(errors.some((a) => a.message.startsWith('gcpatch: 1 finding failed verification'))).toBe(true);

    expect(Number(run.outputs.failed)).toBeGreaterThanOrEqual(1);
    const report = run.report!;
    expect(report.ok).toBe(false);
    expect(report.findings.filter((f) => f.severity !== 'notice').map((f) => f.code)).toEqual(['audit/replay-module-mismatch']);
    expect(report.packages[0]!.replay.status).toBe('differs');
    expect(report.packages[0]!.replay.mismatches).toEqual(['app/report.gc']);
    expect(run.summary).toContain('❌ Evidence verification failed');
    expect(run.summary).toContain('Replay: ❌ the head differs from the replayed evidence in app/report.gc.');
    expect(run.summary).toContain('<td>app/report.gc</td><td>module</td><td>replay</td><td>❌ fail</td>');
  });

  it('warns about an unexplained edit in a module the evidence does not touch; fail-on: warning fails', () => {
    const { repo, pkg, base } = honestRenamePr();
    const file = join(pkg, 'util/text.gc');
    writeFileSync(file, readFileSync(file, 'utf8').replace('Welcome to the shop', 'Welcome!'));
    repin(pkg, 'util/text.gc');
    const head = commitAll(repo, 'rename plus an unrelated banner change');

    const lenient = runAction(repo, { event: pullRequestEvent(base, head) });
    expect(lenient.status).toBe(0);
    const warning = lenient.annotations.find((a) => a.kind === 'warning')!;
    expect(warning.properties.file).toBe('pkgs/shop/util/text.gc');
    expect(warning.properties.line).toBe('4');
    expect(warning.message).toContain('no evidence in this pull request explains the change');
    expect(lenient.outputs.failed).toBe('0');
    expect(lenient.report!.packages[0]!.unexplainedModules).toEqual(['util/text.gc']);
    expect(lenient.summary).toContain('⚠️ Changes no evidence explains: <code>util/text.gc</code>');

    const strict = runAction(repo, { event: pullRequestEvent(base, head), inputs: { 'fail-on': 'warning' } });
    expect(strict.status).toBe(1);
    expect(strict.outputs.failed).toBe('1');
    expect(strict.report!.ok).toBe(false);
    expect(strict.report!.failOn).toBe('warning');
  });

  it('fails on a tampered evidence-store entry', () => {
    const { repo, pkg, base, evidence } = honestRenamePr();
    const entry = join(pkg, '.genesis/store', evidence.evidence.report);
    const text = readFileSync(entry, 'utf8');
    expect(text).toMatch(/:replacement-count \d+/);
    writeFileSync(
      entry,
      text.replace(/:replacement-count (\d+)/, (_, n: string) => `:replacement-count ${Number(n) + 1}`),
    );
    const head = commitAll(repo, 'rename, with an edited plan report');
    const run = runAction(repo, { event: pullRequestEvent(base, head) });
    expect(run.status).toBe(1);
    const tampered = run.annotations.find((a) => a.properties.title === 'gcpatch: evidence tampered')!;
    expect(tampered.kind).toBe('error');
    expect(tampered.properties.file).toBe(`pkgs/shop/.genesis/store/${evidence.evidence.report}`);
    expect(tampered.message).toContain('does not hash to its name');
    expect(run.report!.findings.map((f) => f.code)).toContain('audit/store-hash-mismatch');
    expect(run.summary).toContain('<td>store</td><td>hash</td><td>❌ fail</td>');
  });

  it('fails when an apply report replays to something other than the head', () => {
    // main: the shop package. Branch: the head carries the evidence of patch P (tax-rate 20 → 25),
    // but its modules are the result of patch P' (20 → 30), re-pinned and packed properly.
    const repo = initRepo();
    const pkg = addShopPackage(repo);
    const base = commitAll(repo, 'shop package');
    git(repo, 'checkout', '-q', '-b', 'tax');
    const scratch = join(tempDir(), 'shop');
    cpSync(pkg, scratch, { recursive: true });
    const patch = (rate: number) =>
      readTerm(`{:version 1 :intent "raise the tax rate" :provenance {}
                 :ops [{:op :replace-node :module-path "lib/price.gc" :path [[:form 1] [:pair-cdr] [:pair-cdr] [:pair-car]] :new ${rate}}]}`);
    const recorded = applyPatch({ pkg: scratch, patch: patch(25) });
    applyPatch({ pkg, patch: patch(30) });
    rmSync(join(pkg, '.genesis'), { recursive: true });
    cpSync(join(scratch, '.genesis'), join(pkg, '.genesis'), { recursive: true });
    expect(readdirSync(join(pkg, '.genesis/store'))).toContain(recorded.reportArtifact);
    const head = commitAll(repo, 'raise the tax rate');

    const run = runAction(repo, { event: pullRequestEvent(base, head) });
    expect(run.status).toBe(1);
    // The recorded evidence itself is consistent (it replays to its own package record); the head
    // is not what it produces.
    expect(run.report!.findings.filter((f) => f.severity !== 'notice').map((f) => f.code)).toEqual(['audit/replay-module-mismatch']);
    // [:form 1] is the module's second top-level form; messages count forms from 1
    expect(run.report!.findings[0]!.message).toContain('top-level form 2 differs');
    const mismatch = run.annotations.find((a) => a.properties.title === 'gcpatch: replay differs')!;
    expect(mismatch.properties.file).toBe('pkgs/shop/lib/price.gc');
    expect(run.report!.packages[0]!.replay.status).toBe('differs');
    expect(run.summary).toContain('Replay: ❌');
  });

  it('explains fetch-depth: 0 when the base commit is missing from a shallow clone', () => {
    const { repo, base, head } = honestRenamePr();
    const clone = join(tempDir(), 'clone');
    git(tempDir(), 'clone', '-q', '--depth', '1', '--branch', 'rename-total', `file://${repo}`, clone);
    const run = runAction(clone, { event: pullRequestEvent(base, head) });
    expect(run.status).toBe(1);
    const error = run.annotations.find((a) => a.kind === 'error')!;
    expect(error.message).toContain('git/missing-commit');
    expect(error.message).toContain(base);
    expect(error.message).toContain('fetch-depth: 0');
    expect(error.message.split('fetch-depth').length).toBe(2); // the advice is given once
    expect(run.outputs.verified).toBe('0');
    expect(run.outputs.failed).toBe('1');
    expect(run.summary).toContain('❌ Could not verify');
    expect(run.summary).toContain('fetch-depth: 0');
  });

  it('never dies with a stack trace: a missing GITHUB_OUTPUT file, a bad input, an unknown revision each end in one setFailed line', () => {
    const { repo, base, head } = honestRenamePr();
    const missing = join(tempDir(), 'no-such-dir', 'github_output');
    const cases: { env: Record<string, string>; inputs: Record<string, string>; failed: boolean; says: string }[] = [
      { env: { GITHUB_OUTPUT: missing }, inputs: {}, failed: false, says: 'cannot write output verified' },
      { env: { GITHUB_OUTPUT: missing }, inputs: { 'base-ref': 'no-such-branch' }, failed: true, says: 'git/unknown-revision' },
      { env: {}, inputs: { shard: 'three' }, failed: true, says: 'input shard must be i/n' },
      { env: {}, inputs: { 'fail-on': 'sometimes' }, failed: true, says: 'input fail-on must be' },
    ];
    for (const c of cases) {
      const run = runAction(repo, { event: pullRequestEvent(base, head), env: c.env, inputs: c.inputs });
      const all = run.stdout + run.stderr;
      expect(all, c.says).not.toMatch(/\n\s+at .+:\d+:\d+\)?\n/); // no stack frame
      expect(all, c.says).toContain(c.says);
      expect(run.status, c.says).toBe(c.failed ? 1 : 0);
      const errors = run.annotations.filter((a) => a.kind === 'error');
      // A failure is one error annotation of one line.
      expect(
        errors.map((a) => a.message.split('\n').length),
        c.says,
      ).toEqual(c.failed ? [1] : []);
    }
  });
});
