import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyPatch, readPatchFile } from '../../src/patch/apply/apply.js';
import { EvidenceStore } from '../../src/store/store.js';
import { auditPackage } from '../../src/package-audit/audit.js';
import { acceptanceTerm, CANONICAL_PINS_OBLIGATION } from '../../src/patch/acceptance/acceptance.js';
import { bool, kwMap, sym } from '../../src/coreform/term.js';
import { loadPackage } from '../../src/workspace/package.js';

const FIXTURES = join(__dirname, '..', '..', 'fixtures');
function applied(): string {
  const pkg = join(mkdtempSync(join(tmpdir(), 'gcpatch-audit-')), 'pkg');
  cpSync(join(FIXTURES, 'packages/patchdemo'), pkg, { recursive: true });
  applyPatch({ pkg, patch: readPatchFile(join(FIXTURES, 'patches/patchdemo-refactor.gcpatch')) });
  return pkg;
}
const codes = (pkg: string) => auditPackage(pkg).findings.map((f) => f.code);

describe('audit (docs/reference/evidence-store.md §5)', () => {
  it('passes after an apply', () => expect(auditPackage(applied())).toMatchObject({ ok: true, modulesChecked: 4, findings: [] }));
  it('finds a module edited after its pin', () => {
    const pkg = applied();
    writeFileSync(join(pkg, 'app.gc'), readFileSync(join(pkg, 'app.gc'), 'utf8').replace('7', '8'));
    expect(codes(pkg)).toEqual(['audit/mismatch']);
  });
  it('finds a missing pin and a missing acceptance', () => {
    const pkg = join(mkdtempSync(join(tmpdir(), 'gcpatch-audit-')), 'pkg');
    cpSync(join(FIXTURES, 'packages/patchdemo'), pkg, { recursive: true });
    const toml = join(pkg, 'package.toml');
    writeFileSync(toml, readFileSync(toml, 'utf8').replace(/hash = "[0-9a-f]+"\npath = "app.gc"/, 'path = "app.gc"'));
    expect(codes(pkg)).toEqual(['audit/missing-pin', 'audit/no-acceptance']);
  });
  it('finds an acceptance that is :ok false, or that is missing from the store', () => {
    const pkg = applied();
    const store = EvidenceStore.forPackage(pkg);
    // An honest failed acceptance: a record :ok false, and so :ok false.
    const manifest = loadPackage(pkg).manifest;
    const bad = store.putTerm(acceptanceTerm(manifest, [kwMap({ name: sym(CANONICAL_PINS_OBLIGATION), ok: bool(false) })]));
    writeFileSync(join(pkg, '.genesis/last_acceptance'), `${bad}\n`);
    expect(codes(pkg)).toEqual(['audit/acceptance-not-ok']);
    writeFileSync(join(pkg, '.genesis/last_acceptance'), `${'0'.repeat(64)}\n`);
    expect(codes(pkg)).toEqual(['core/store/not-found']);
  });
});
