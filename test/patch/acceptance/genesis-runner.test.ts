// `--obligation-runner genesis` against the stand-in GenesisCode CLI (fixtures/genesis), in-process:
// apply and refactor apply commit when it passes and roll back when it fails or breaks the contract
// of docs/reference/genesis-cli.md; verify-pr's library call re-runs it.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditPullRequest } from '../../../src/verify-pr/verify-pr.js';
import { printTerm } from '../../../src/coreform/print.js';
import { readTerm } from '../../../src/coreform/read.js';
import { kw, mapGet } from '../../../src/coreform/term.js';
import { applyPatch, readPatchFile } from '../../../src/patch/apply/apply.js';
import { resolveRunner } from '../../../src/patch/acceptance/acceptance.js';
import { recoverPackage, SimulatedCrash } from '../../../src/patch/transaction.js';
import { verifyStoredApplyReport } from '../../../src/patch/apply/apply-report-verify.js';
import { applyRefactorPlan } from '../../../src/refactor/apply-plan.js';
import { loadRefactorFromDisk } from '../../../src/refactor/load.js';
import { planRefactor } from '../../../src/refactor/plan.js';
import { EvidenceStore } from '../../../src/store/store.js';
import { honestRenamePr } from '../../action/helpers.js';
import { copyPackage, DEMO_PATCH, errorOf, FIXTURES, snapshotTree } from '../helpers.js';

const STAND_IN_BIN = join(FIXTURES, 'genesis', 'bin');
const OBLIGATIONS = ['core/obligation::unit-tests', 'core/obligation::lint'];
const PRIOR_POINTER = `${'ab'.repeat(32)}\n`;

const saved = { path: process.env.PATH, mode: process.env.GENESIS_STAND_IN, log: process.env.GENESIS_STAND_IN_LOG };
beforeAll(() => {
  process.env.PATH = `${STAND_IN_BIN}:${saved.path ?? ''}`;
});
afterAll(() => {
  process.env.PATH = saved.path;
  for (const [k, v] of [
    ['GENESIS_STAND_IN', saved.mode],
    ['GENESIS_STAND_IN_LOG', saved.log],
  ] as const) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

function standIn(mode: string | undefined): void {
  if (mode === undefined) delete process.env.GENESIS_STAND_IN;
  else process.env.GENESIS_STAND_IN = mode;
}

/** A copy of the demo package declaring two obligations, with a previous acceptance pointer. */
function packageWithObligations(): string {
  const pkg = copyPackage();
  const file = join(pkg, 'package.toml');
  writeFileSync(file, readFileSync(file, 'utf8').replace('obligations = []', `obligations = [\n${OBLIGATIONS.map((o) => `    "${o}",\n`).join('')}]`));
  mkdirSync(join(pkg, '.genesis'));
  writeFileSync(join(pkg, '.genesis/last_acceptance'), PRIOR_POINTER);
  return pkg;
}

const patch = () => readPatchFile(DEMO_PATCH);

describe('gcpatch apply --obligation-runner genesis', () => {
  it('resolves `genesis` from the option or GCPATCH_OBLIGATION_RUNNER', () => {
    expect(resolveRunner(' genesis ', {})).toBe('genesis');
    expect(resolveRunner(undefined, { GCPATCH_OBLIGATION_RUNNER: 'genesis' })).toBe('genesis');
    expect(resolveRunner(undefined, { GCPATCH_OBLIGATION_RUNNER: '' })).toBeUndefined();
    expect(resolveRunner('make acceptance', {})).toBe('make acceptance');
  });

  it('commits when genesis test passes; the acceptance genesis stored is the one the report names', () => {
    standIn('pass');
    const pkg = packageWithObligations();
    const r = applyPatch({ pkg, patch: patch(), obligationRunner: 'genesis' });
    const pointer = readFileSync(join(pkg, '.genesis/last_acceptance'), 'utf8');
    expect(pointer).toBe(`${r.acceptanceArtifact}\n`);
    const store = EvidenceStore.forPackage(pkg);
    const bytes = store.get(r.acceptanceArtifact);
    // the stand-in stores the canonical print, as genesis does
    expect(printTerm(readTerm(bytes))).toBe(Buffer.from(bytes).toString('utf8'));
    expect(mapGet(r.acceptance, kw('ok'))).toEqual({ kind: 'bool', value: true });
    const names = (mapGet(r.acceptance, kw('obligations')) as unknown as { items: never[] }).items.map((o) => (mapGet(o, kw('name')) as { name: string }).name);
    expect(names).toEqual(OBLIGATIONS);
    const fields = verifyStoredApplyReport(store, r.reportArtifact);
    expect([fields.ok, fields.acceptanceArtifact]).toEqual([true, r.acceptanceArtifact]);
    expect(existsSync(join(pkg, '.gcpatch'))).toBe(false);
  });

  it('rolls back with exit 30 when an obligation fails: modules, package.toml and last_acceptance as before', () => {
    standIn('fail');
    const pkg = packageWithObligations();
    const before = snapshotTree(pkg);
    const error = errorOf(() => applyPatch({ pkg, patch: patch(), obligationRunner: 'genesis' }));
    expect([error.code, error.exitCode]).toEqual(['patch/obligations-failed', 30]);
    expect(error.message).toContain('failed: core/obligation::unit-tests');
    expect(error.message).toContain('do not commit it');
    expect(error.message).not.toContain('No obligation runner was given');
    expect(snapshotTree(pkg)).toEqual(before);
    // the failing acceptance genesis stored stays as evidence
    const acceptance = EvidenceStore.forPackage(pkg).getTerm(error.details!.acceptanceArtifact as string);
    expect(mapGet(acceptance as never, kw('ok'))).toEqual({ kind: 'bool', value: false });
  });

  const contractBreaks: [mode: string, code: string, says: string][] = [
    ['pointer-missing', 'patch/genesis-contract', 'wrote no .genesis/last_acceptance'],
    ['pointer-malformed', 'patch/genesis-contract', 'not one store address'],
    ['pointer-stale', 'patch/genesis-contract', 'did not rewrite .genesis/last_acceptance'],
    ['not-in-store', 'patch/genesis-contract', 'no store entry'],
    ['bad-hash', 'patch/genesis-contract', 'is corrupt'],
    ['ok-mismatch', 'patch/genesis-contract', 'exited 0 but its acceptance'],
    ['wrong-package', 'patch/acceptance-invalid', ':package must be {:name "patchdemo"'],
    ['error', 'patch/obligation-runner-failed', 'exited 70 (I/O error)'],
  ];
  it.each(contractBreaks)('stand-in mode %s: %s (exit 30), rolled back', (mode, code, says) => {
    standIn(mode);
    const pkg = packageWithObligations();
    if (mode === 'pointer-missing') rmSync(join(pkg, '.genesis/last_acceptance'));
    const before = snapshotTree(pkg);
    const error = errorOf(() => applyPatch({ pkg, patch: patch(), obligationRunner: 'genesis' }));
    expect([error.code, error.exitCode]).toEqual([code, 30]);
    expect(error.message).toContain(says);
    expect(error.message).toContain('genesis test --pkg');
    expect(snapshotTree(pkg)).toEqual(before);
  });

  it('says how to install genesis when it is not on PATH, and rolls back', () => {
    standIn('pass');
    const pkg = packageWithObligations();
    const before = snapshotTree(pkg);
    const path = process.env.PATH;
    process.env.PATH = '/nonexistent-bin';
    try {
      const error = errorOf(() => applyPatch({ pkg, patch: patch(), obligationRunner: 'genesis' }));
      expect([error.code, error.exitCode]).toEqual(['patch/genesis-not-found', 30]);
      expect(error.message).toContain('Install the GenesisCode CLI');
    } finally {
      process.env.PATH = path;
    }
    expect(snapshotTree(pkg)).toEqual(before);
  });

  it.each(['runner:genesis', 'store:apply-report', 'after-report-stored'])('a crash at %s is rolled back by recovery, last_acceptance included', (step) => {
    standIn('pass');
    const pkg = packageWithObligations();
    const before = snapshotTree(pkg);
    const crash = (s: string) => {
      if (s === step) throw new SimulatedCrash(s);
    };
    expect(() => applyPatch({ pkg, patch: patch(), obligationRunner: 'genesis', faults: crash })).toThrow(SimulatedCrash);
    expect(existsSync(join(pkg, '.gcpatch/apply-journal.json'))).toBe(true);
    expect(recoverPackage(pkg).action).toBe('rolled-back');
    expect(snapshotTree(pkg)).toEqual(before);
  });

  it('a crash after the commit point is finished by recovery, keeping the pointer genesis wrote', () => {
    standIn('pass');
    const pkg = packageWithObligations();
    const crash = (s: string) => {
      if (s === 'cleanup') throw new SimulatedCrash(s);
    };
    expect(() => applyPatch({ pkg, patch: patch(), obligationRunner: 'genesis', faults: crash })).toThrow(SimulatedCrash);
    const pointer = readFileSync(join(pkg, '.genesis/last_acceptance'), 'utf8');
    expect(pointer).not.toBe(PRIOR_POINTER);
    expect(recoverPackage(pkg).action).toBe('completed');
    expect(readFileSync(join(pkg, '.genesis/last_acceptance'), 'utf8')).toBe(pointer);
    expect(existsSync(join(pkg, '.gcpatch'))).toBe(false);
  });

  it('without a previous last_acceptance, a rollback removes the one genesis wrote', () => {
    standIn('fail');
    const pkg = packageWithObligations();
    rmSync(join(pkg, '.genesis/last_acceptance'));
    const before = snapshotTree(pkg);
    expect(errorOf(() => applyPatch({ pkg, patch: patch(), obligationRunner: 'genesis' })).code).toBe('patch/obligations-failed');
    expect(snapshotTree(pkg)).toEqual(before);
  });
});

describe('gcpatch refactor apply --obligation-runner genesis', () => {
  const plan = () => {
    const pkg = packageWithObligations();
    const { request } = loadRefactorFromDisk({ refactorKind: 'rename', fromSymbol: 'demo/math::double', toSymbol: 'demo/math::twice' }, pkg);
    return { pkg, request, report: planRefactor(request).report };
  };

  it('commits when the stand-in passes', () => {
    standIn('pass');
    const { pkg, request, report } = plan();
    const r = applyRefactorPlan({ pkg, report, request, obligationRunner: 'genesis' });
    expect(readFileSync(join(pkg, '.genesis/last_acceptance'), 'utf8')).toBe(`${r.evidence.acceptanceArtifact}\n`);
    expect(readFileSync(join(pkg, 'lib/math.gc'), 'utf8')).toContain('demo/math::twice');
  });

  it('rolls back when it fails', () => {
    standIn('fail');
    const { pkg, request, report } = plan();
    const before = snapshotTree(pkg);
    const error = errorOf(() => applyRefactorPlan({ pkg, report, request, obligationRunner: 'genesis' }));
    expect([error.code, error.exitCode]).toEqual(['patch/obligations-failed', 30]);
    expect(snapshotTree(pkg)).toEqual(before);
  });
});

describe('verify-pr (auditPullRequest) with obligationRunner: genesis', () => {
  it('re-runs genesis test on the head package and reports its verdict', async () => {
    const { repo, base, head } = honestRenamePr();
    const log = join(repo, '..', 'genesis-calls.jsonl');
    process.env.GENESIS_STAND_IN_LOG = log;
    try {
      standIn('pass');
      const ok = await auditPullRequest({ dir: repo, base, head, obligationRunner: 'genesis' });
      expect(ok.ok).toBe(true);
      expect(ok.findings.map((f) => f.code)).not.toContain('audit/obligations-failed');
      const calls = readFileSync(log, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { argv: string[]; cwd: string });
      expect(calls).toEqual([{ argv: ['test', '--pkg', join(repo, 'pkgs/shop/package.toml')], cwd: join(repo, 'pkgs/shop') }]);
      standIn('fail');
      const failed = await auditPullRequest({ dir: repo, base, head, obligationRunner: 'genesis' });
      expect(failed.ok).toBe(false);
      const finding = failed.findings.find((f) => f.code === 'audit/obligations-failed');
      expect(finding?.message).toContain('core/obligation::unit-tests');
      standIn('pointer-missing');
      const broken = await auditPullRequest({ dir: repo, base, head, obligationRunner: 'genesis' });
      expect(broken.findings.find((f) => f.code === 'audit/obligations-failed')?.message).toContain('patch/genesis-contract');
    } finally {
      delete process.env.GENESIS_STAND_IN_LOG;
    }
  });
});
