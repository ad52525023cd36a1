// End-to-end: the CLI plans, verifies and applies rename, move and extract on the 25-module
// fixture package fixtures/refactor/ledger (comments, CRLF, tabs, Unicode), then the package audits
// clean; the exported edit plan, applied with `gcpatch edit-plan apply`, gives the same modules.
// The commands run in-process (test/helpers/run-cli.ts); the conflicted plan (exit 10) and the
// tampered report (exit 50) go through the built CLI, bin/gcpatch.js (`npm test` builds first).
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { canonicalizeSource } from '../../src/coreform/canon.js';
import { printModule, printTerm } from '../../src/coreform/print.js';
import { readTerm } from '../../src/coreform/read.js';
import { mapGetKw, type MapTerm, type Term } from '../../src/coreform/term.js';
import { rewriteTerm } from '../../src/patch/ops/rewrite.js';
import { auditPackage } from '../../src/package-audit/audit.js';
import { EvidenceStore } from '../../src/store/store.js';
import { loadPackage } from '../../src/workspace/package.js';
import { copyFixture, gcpatch, tempDir, ROOT } from '../helpers/cli.js';
import { runCli } from '../helpers/run-cli.js';
import { git, initRepo } from '../helpers/git.js';

const FROM = 'ledger/money::add-amounts';
const TO = 'ledger/money::sum-amounts';

/** The fields of the `--json` outputs of `refactor plan`, `verify`, `apply` and `evidence` that these tests read. */
interface RefactorJson {
  safe: boolean;
  replacementCount: number;
  moduleCount: number;
  affectedModules: string[];
  opCount: number;
  stored: boolean;
  requestH: string;
  requestAddress: string;
  reportAddress: string;
  patchH: string;
  changedPaths: string[];
  evidence: { request: string; report: string; applyReport: string };
  conflicts: { detail: string }[];
  error: { code: string };
  source: { commit: string };
}

function json(stdout: string): RefactorJson {
  return JSON.parse(stdout) as RefactorJson;
}

/** How often the symbol `name` occurs in the package's modules (strings that spell it do not count). */
function symbolCount(dir: string, name: string): number {
  let n = 0;
  const count = (t: Term): undefined => {
    if (t.kind === 'sym' && t.name === name) n++;
    return undefined;
  };
  for (const m of loadPackage(dir).modules) for (const form of m.forms) rewriteTerm(form, undefined, count);
  return n;
}

function canonicalModules(dir: string): Record<string, string> {
  return Object.fromEntries(loadPackage(dir).modules.map((m) => [m.path, printModule(m.forms)]));
}

// Each test runs the CLI several times on 25 modules; allow for a loaded machine.
describe('refactor on the ledger fixture (25 modules)', { timeout: 240_000 }, () => {
  test('rename: plan → verify → apply → audit; edit-plan route gives the same modules', async () => {
    const pkg = copyFixture('refactor/ledger');
    expect(loadPackage(pkg).modules.length).toBe(25);
    expect(symbolCount(pkg, FROM)).toBe(12);
    const out = join(tempDir(), 'plan.gc');
    const editPlan = join(tempDir(), 'edits.json');
    const planned = await runCli([
      'refactor',
      'plan',
      '--kind',
      'rename',
      '--from',
      FROM,
      '--to',
      TO,
      '--pkg',
      pkg,
      '--out',
      out,
      '--edit-plan',
      editPlan,
      '--json',
    ]);
    expect(planned.status, planned.stderr).toBe(0);
    const p = json(planned.stdout);
    expect(p.safe).toBe(true);
    expect(p.replacementCount).toBe(12);
    expect(p.moduleCount).toBe(25);
    expect(p.affectedModules).toEqual([
      'money/amount.gc',
      'account/balance.gc',
      'journal/validate.gc',
      'report/trial-balance.gc',
      'report/income.gc',
      'report/summary.gc',
      'text/unicode.gc',
      'cli/commands.gc',
      'tests/amount-test.gc',
    ]);
    expect(p.opCount).toBe(9);
    expect(p.stored).toBe(true);

    // The request and the report are in the store; verify finds the request there.
    const store = EvidenceStore.forPackage(pkg);
    expect(store.has(p.requestAddress)).toBe(true);
    expect(store.has(p.reportAddress)).toBe(true);
    const verified = await runCli(['refactor', 'verify', out, '--pkg', pkg, '--json']);
    expect(verified.status, verified.stderr).toBe(0);
    expect(json(verified.stdout).patchH).toBe(p.patchH);
    expect((await runCli(['refactor', 'verify', p.reportAddress, '--pkg', pkg])).status).toBe(0);

    // The edit-plan route, on a second copy.
    const viaEdits = copyFixture('refactor/ledger');
    const edited = await runCli(['edit-plan', 'apply', editPlan, '--root', viaEdits]);
    expect(edited.status, edited.stderr).toBe(0);
    // Comments survive the edit-plan route.
    expect(readFileSync(join(viaEdits, 'money/amount.gc'), 'utf8')).toContain('; add-amounts assumes both amounts share a currency');

    const applied = await runCli(['refactor', 'apply', out, '--pkg', pkg, '--json']);
    expect(applied.status, applied.stderr).toBe(0);
    const a = json(applied.stdout);
    expect(a.changedPaths).toHaveLength(9);
    expect(symbolCount(pkg, FROM)).toBe(0);
    expect(symbolCount(pkg, TO)).toBe(12);
    // Strings, bytes and test names that spell the old name are untouched.
    expect(readFileSync(join(pkg, 'text/unicode.gc'), 'utf8')).toContain('"💶 ledger/money::add-amounts 💶"');

    expect(canonicalModules(viaEdits)).toEqual(canonicalModules(pkg));

    const audit = auditPackage(pkg);
    expect(audit.findings).toEqual([]);
    expect(audit.ok).toBe(true);
    const audited = await runCli(['audit', '--pkg', pkg]);
    expect(audited.status, audited.stdout + audited.stderr).toBe(0);

    // Evidence linkage: by identities, not provenance. The apply report carries the reference's
    // header (naming no request) and the plan's :patch-h; each artifact finds the others.
    const applyReport = store.getTerm(a.evidence.applyReport);
    expect(readTerm(new TextDecoder().decode(store.get(a.evidence.request))).kind).toBe('map');
    expect(printTerm(mapGetKw(applyReport as MapTerm, 'provenance')!)).toBe(
      printTerm(readTerm(`{:from "${FROM}" :kind :rename :to "${TO}" :tool "genesis semantic-edit refactor-plan"}`)),
    );
    expect(printTerm(mapGetKw(applyReport as MapTerm, 'patch-h')!)).toBe(JSON.stringify(p.patchH));
    for (const address of [a.evidence.request, a.evidence.report, a.evidence.applyReport]) {
      const ev = await runCli(['refactor', 'evidence', address, '--pkg', pkg, '--json']);
      expect(ev.status, ev.stderr).toBe(0);
      expect(json(ev.stdout)).toMatchObject({ request: a.evidence.request, report: a.evidence.report, applyReports: [a.evidence.applyReport] });
    }

    // Applying the same plan again is stale now.
    const again = await runCli(['refactor', 'apply', out, '--pkg', pkg]);
    expect(again.status, again.stderr + again.stdout).toBe(50);
    expect(again.stderr).toContain('refactor/stale-plan');
  });

  test('move: the target module is inserted before the source module and pinned', async () => {
    const pkg = copyFixture('refactor/ledger');
    const out = join(tempDir(), 'plan.gc');
    const planned = await runCli([
      'refactor',
      'plan',
      '--kind',
      'move',
      '--from',
      'ledger/int::clamp',
      '--to',
      'ledger/ord::clamp',
      '--target',
      'core/ord.gc',
      '--pkg',
      pkg,
      '--out',
      out,
    ]);
    expect(planned.status, planned.stderr).toBe(0);
    expect(planned.stdout).toContain('split-module    core/int.gc -> core/ord.gc [ledger/ord::clamp]');
    const applied = await runCli(['refactor', 'apply', out, '--pkg', pkg]);
    expect(applied.status, applied.stderr).toBe(0);
    const after = loadPackage(pkg);
    expect(after.modules.map((m) => m.path).slice(0, 3)).toEqual(['meta/profile.gc', 'core/ord.gc', 'core/int.gc']);
    expect(after.modules).toHaveLength(26);
    expect(printModule(after.modules[1]!.forms)).toMatch(/^\(def ledger\/ord::clamp/);
    expect(symbolCount(pkg, 'ledger/int::clamp')).toBe(0);
    expect((await runCli(['audit', '--pkg', pkg])).status).toBe(0);
  });

  test('extract: a recursive helper cannot move (order dependency on itself); a plain one is extracted', async () => {
    const pkg = copyFixture('refactor/ledger');
    const out = join(tempDir(), 'plan.gc');
    const recursive = await runCli([
      'refactor',
      'plan',
      '--kind',
      'extract',
      '--from',
      'ledger/format::pad-left',
      '--to',
      'ledger/text::pad-left',
      '--target',
      'text/pad.gc',
      '--pkg',
      pkg,
      '--json',
    ]);
    expect(recursive.status, recursive.stderr).toBe(10);
    const c = json(recursive.stdout).conflicts;
    expect(c).toEqual([
      expect.objectContaining({
        code: 'refactor/target-order-dependency',
        message: 'moved definition depends on a definition unavailable before the source module',
        modulePath: 'report/format.gc',
        pathRepr: '',
        where: 'report/format.gc form 2',
      }),
    ]);
    expect(c[0].detail).toContain('ledger/format::pad-left refers to itself');

    const planned = await runCli([
      'refactor',
      'plan',
      '--kind',
      'extract',
      '--from',
      'ledger/money-format::render',
      '--to',
      'ledger/render::render',
      '--target',
      'money/render.gc',
      '--pkg',
      pkg,
      '--out',
      out,
      '--json',
    ]);
    expect(planned.status, planned.stderr).toBe(0);
    expect(json(planned.stdout).replacementCount).toBe(3);
    const applied = await runCli(['refactor', 'apply', out, '--pkg', pkg]);
    expect(applied.status, applied.stderr).toBe(0);
    const paths = loadPackage(pkg).modules.map((m) => m.path);
    expect(paths.indexOf('money/render.gc')).toBe(paths.indexOf('money/format.gc') - 1);
    expect(auditPackage(pkg).ok).toBe(true);
  });

  test('conflicts are listed with their codes, exit 10, and nothing is applied', async () => {
    const pkg = copyFixture('refactor/ledger');
    const r = gcpatch([
      'refactor',
      'plan',
      '--kind',
      'move',
      '--from',
      'ledger/account::debit',
      '--to',
      'ledger/money::units',
      '--target',
      'money/amount.gc',
      '--pkg',
      pkg,
      '--out',
      join(pkg, '..', 'c.gc'),
    ]);
    expect(r.status).toBe(10);
    expect(r.stdout).toContain('CONFLICTED');
    // Human output names the forms; the report itself has the reference's fixed messages only.
    expect(r.stdout).toContain(
      'refactor/destination-symbol-exists  money/amount.gc form 3\n      ledger/money::units is already defined (money/amount.gc form 3)',
    );
    expect(r.stdout).toContain('refactor/target-module-exists  money/amount.gc');
    // The order dependency is checked only when nothing else conflicts.
    expect(r.stdout).not.toContain('refactor/target-order-dependency');
    expect(readFileSync(join(pkg, '..', 'c.gc'), 'utf8')).toContain(':message "destination symbol already has a workspace definition"');
    const applied = await runCli(['refactor', 'apply', join(pkg, '..', 'c.gc'), '--pkg', pkg]);
    expect(applied.status).toBe(10);
    expect(applied.stderr).toContain('refactor/plan-conflicted');
  });

  test('a tampered report fails verification with exit 50 and is not applied', async () => {
    const pkg = copyFixture('refactor/ledger');
    const out = join(tempDir(), 'plan.gc');
    expect((await runCli(['refactor', 'plan', '--kind', 'rename', '--from', FROM, '--to', TO, '--pkg', pkg, '--out', out, '--no-store'])).status).toBe(0);
    const requestFile = join(tempDir(), 'request.gc');
    expect(
      (await runCli(['refactor', 'plan', '--kind', 'rename', '--from', FROM, '--to', TO, '--pkg', pkg, '--request-out', requestFile, '--no-store'])).status,
    ).toBe(0);
    writeFileSync(out, readFileSync(out, 'utf8').replace(':replacement-count 12', ':replacement-count 11'));
    const v = gcpatch(['refactor', 'verify', out, '--request', requestFile, '--pkg', pkg, '--json']);
    expect(v.status).toBe(50);
    expect(json(v.stdout).error.code).toBe('refactor/verification-failed');
    const before = canonicalModules(pkg);
    expect((await runCli(['refactor', 'apply', out, '--request', requestFile, '--pkg', pkg])).status).toBe(50);
    expect(canonicalModules(pkg)).toEqual(before);
  });

  test('--rev plans on a git revision, not the work tree', async () => {
    const repo = tempDir();
    cpSync(join(ROOT, 'fixtures/refactor/ledger'), join(repo, 'ledger'), { recursive: true });
    initRepo(repo);
    git(repo, 'add', '.');
    git(repo, 'commit', '-q', '-m', 'ledger');
    const fromDisk = json(
      (await runCli(['refactor', 'plan', '--kind', 'rename', '--from', FROM, '--to', TO, '--pkg', join(repo, 'ledger'), '--no-store', '--json'])).stdout,
    );
    // Change the work tree: the revision's plan must not see it.
    writeFileSync(join(repo, 'ledger/core/pair.gc'), `(def x ${FROM})\n`);
    const r = await runCli(['refactor', 'plan', '--kind', 'rename', '--from', FROM, '--to', TO, '--rev', 'HEAD', '--pkg', 'ledger', '--no-store', '--json'], {
      cwd: repo,
    });
    expect(r.status, r.stderr).toBe(0);
    const atRev = json(r.stdout);
    expect(atRev.requestH).toBe(fromDisk.requestH);
    expect(atRev.reportAddress).toBe(fromDisk.reportAddress);
    expect(atRev.source.commit).toMatch(/^[0-9a-f]{40}$/);
  });
});

test('the fixture is pinned (gcpatch verify-pins) and its canonical modules read back', async () => {
  const pkg = join(ROOT, 'fixtures/refactor/ledger');
  expect((await runCli(['verify-pins', '--pkg', pkg])).status).toBe(0);
  for (const m of loadPackage(pkg).modules) expect(canonicalizeSource(printModule(m.forms)).length).toBe(m.forms.length);
});
