// `gcpatch audit` binds the last acceptance to the package record it was produced for: an apply
// report (or a transparency entry) links them; after a hand edit and `gcpatch pack` the old
// acceptance no longer counts and audit names the modules changed since; a package with correct
// pins and no acceptance yet gets what verified, what is missing and how to produce it.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bool, kwMap, sym } from '../../src/coreform/term.js';
import { acceptanceTerm } from '../../src/patch/acceptance/acceptance.js';
import { applyPatch, readPatchFile } from '../../src/patch/apply/apply.js';
import { dependencyArtifactOnDisk, packOnDisk } from '../../src/patch/apply/host.js';
import { auditPackage, type AuditOptions } from '../../src/package-audit/audit.js';
import { EvidenceStore } from '../../src/store/store.js';
import { loadPackage } from '../../src/workspace/package.js';
import { copyFixture, gcpatch, ROOT } from '../helpers/cli.js';

const PATCH = join(ROOT, 'fixtures/patches/patchdemo-refactor.gcpatch');
const BIND: AuditOptions = { packageArtifact: (file) => dependencyArtifactOnDisk(join(file, '..'), { path: 'package.toml' }) };

function applied(): { pkg: string; reportArtifact: string; packageArtifact: string; acceptanceArtifact: string } {
  const pkg = copyFixture('packages/patchdemo');
  const r = applyPatch({ pkg, patch: readPatchFile(PATCH), obligationRunner: '' });
  return { pkg, reportArtifact: r.reportArtifact, packageArtifact: r.packageArtifact, acceptanceArtifact: r.acceptanceArtifact };
}

describe('audit binds the acceptance to the package record', () => {
  it('bound: the apply report links the acceptance to the package as it is', () => {
    const { pkg, reportArtifact, packageArtifact } = applied();
    const r = auditPackage(pkg, BIND);
    expect(r.ok).toBe(true);
    expect(r.binding).toEqual({
      status: 'bound',
      currentPackageArtifact: packageArtifact,
      links: [{ packageArtifact, via: reportArtifact, kind: 'genesis/patch-apply-v0.3' }],
      changedModules: [],
    });
    expect(r.verified).toContain(`acceptance ${r.acceptanceArtifact} for the package as it is`);
  });

  it('stale: after a hand edit and gcpatch pack, audit names the module changed since', () => {
    const { pkg, packageArtifact, reportArtifact } = applied();
    const file = join(pkg, 'lib/math.gc');
    writeFileSync(file, `${readFileSync(file, 'utf8')}\n(def demo/math::hand-edit 43)\n`);
    const packed = packOnDisk(pkg);
    const r = auditPackage(pkg, BIND);
    expect(r.findings.map((f) => f.code)).toEqual(['audit/acceptance-stale']);
    expect(r.binding).toMatchObject({
      status: 'stale',
      currentPackageArtifact: packed.packageArtifact,
      changedModules: [{ path: 'lib/math.gc', change: 'changed' }],
    });
    expect(r.findings[0]!.message).toContain(`produced for package record ${packageArtifact} (apply report ${reportArtifact})`);
    expect(r.findings[0]!.message).toContain('changed since: lib/math.gc (changed)');
    // without the binding check (library default) the acceptance still names this package and version
    expect(auditPackage(pkg).ok).toBe(true);
  });

  it('stale: a module added to the manifest and one removed are named as such', () => {
    const { pkg } = applied();
    writeFileSync(join(pkg, 'extra.gc'), '(def demo/extra::x 1)\n');
    const toml = join(pkg, 'package.toml');
    writeFileSync(toml, readFileSync(toml, 'utf8').replace(/\[\[modules\]\]\nhash = "[0-9a-f]+"\npath = "app.gc"\n/, '[[modules]]\npath = "extra.gc"\n'));
    packOnDisk(pkg);
    const r = auditPackage(pkg, BIND);
    expect(r.binding.changedModules).toEqual([
      { path: 'app.gc', change: 'removed' },
      { path: 'extra.gc', change: 'added' },
    ]);
  });

  it('unbound: an acceptance no store entry links to a package record does not count', () => {
    const { pkg } = applied();
    const store = EvidenceStore.forPackage(pkg);
    const manifest = loadPackage(pkg).manifest;
    // an acceptance no apply report names (as a bare `genesis test` run leaves one)
    const hex = store.putTerm(acceptanceTerm(manifest, [kwMap({ name: sym('demo/obligation::extra'), ok: bool(true) })]));
    writeFileSync(join(pkg, '.genesis/last_acceptance'), `${hex}\n`);
    const r = auditPackage(pkg, BIND);
    expect(r.binding.status).toBe('unbound');
    expect(r.findings.map((f) => f.code)).toEqual(['audit/acceptance-unbound']);
    expect(r.nextSteps[0]).toContain('`gcpatch accept`');
  });
});

describe('gcpatch audit (CLI)', () => {
  it('after a hand edit and gcpatch pack: exit 50, the stale acceptance and the changed module named', () => {
    const pkg = copyFixture('packages/patchdemo');
    expect(gcpatch(['apply', '--patch', PATCH, '--pkg', pkg]).status).toBe(0);
    expect(gcpatch(['audit', '--pkg', pkg]).status).toBe(0);
    const file = join(pkg, 'app.gc');
    writeFileSync(file, readFileSync(file, 'utf8').replace('demo/app::main', 'demo/app::main ') + '\n;; a hand edit\n(def demo/app::extra 1)\n');
    expect(gcpatch(['pack', '--pkg', pkg]).status).toBe(0);
    const r = gcpatch(['audit', '--pkg', pkg]);
    expect(r.status).toBe(50);
    expect(r.stderr).toContain('audit/acceptance-stale');
    expect(r.stderr).toContain('changed since: app.gc (changed)');
    expect(r.stdout).toMatch(/^verified: 4 module pins match the modules; \d+ store entries re-hashed$/m);
    expect(r.stderr).toContain('`gcpatch accept`');
    // what audit says to do works: accept records an acceptance linked to the package as it is
    const accepted = gcpatch(['accept', '--pkg', pkg]);
    expect([accepted.status, accepted.stderr]).toEqual([0, '']);
    expect(accepted.stdout).toMatch(/^applied \(accept\): changed nothing$/m);
    expect(gcpatch(['audit', '--pkg', pkg]).status).toBe(0);
  });

  it('a real package with correct pins and no acceptance: what verified, what is missing, how to produce it', () => {
    const pkg = copyFixture('refactor/ledger');
    const r = gcpatch(['audit', '--pkg', pkg]);
    expect(r.status).toBe(50);
    expect(r.stdout).toBe(
      'FAILED: 25 modules, acceptance (none), 0 referenced artifacts, 0 store entries re-hashed\nverified: 25 module pins match the modules; 0 store entries re-hashed\n',
    );
    expect(r.stderr).toBe(
      '.genesis/last_acceptance: audit/no-acceptance: no last acceptance recorded (apply a patch or run the obligations first)\n' +
        'missing: an acceptance (no .genesis/last_acceptance). The package declares no obligations: `gcpatch accept` records one (gcpatch checks the pins itself)\n',
    );
    const json = JSON.parse(gcpatch(['audit', '--pkg', pkg, '--json']).stdout);
    expect(json.verified).toEqual(['25 module pins match the modules', '0 store entries re-hashed']);
    expect(json.nextSteps).toHaveLength(1);
    expect(gcpatch(['accept', '--pkg', pkg]).status).toBe(0);
    expect(gcpatch(['audit', '--pkg', pkg]).stdout).toMatch(/^ok: 25 modules, acceptance [0-9a-f]{64}, 0 referenced artifacts, 4 store entries re-hashed\n$/);
  });
});

describe('what audit says about a package of one module', () => {
  it('counts in the singular: one pin, one obligation', () => {
    const pkg = mkdtempSync(join(tmpdir(), 'gcpatch-audit-one-'));
    writeFileSync(
      join(pkg, 'package.toml'),
      'schema = 1\nname = "one"\nversion = "1.0.0"\nobligations = ["core/obligation::unit-tests"]\n\n[[modules]]\npath = "a.gc"\nhash = ""\n',
    );
    writeFileSync(join(pkg, 'a.gc'), '(def one/a::x 1)\n');
    packOnDisk(pkg);
    const r = auditPackage(pkg, BIND);
    expect(r.verified[0]).toBe('1 module pin matches its module');
    expect(r.nextSteps[0]).toContain('The package declares 1 obligation (core/obligation::unit-tests): ');
  });
});
