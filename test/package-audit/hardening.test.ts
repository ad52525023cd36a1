/**
 * Whole-store `store verify` and `audit` check every name in the store, and `audit` fails
 * when the last acceptance is not for the package as it is (docs/patches.md "Evidence layout":
 * name, version, every declared obligation covered). Library and the built CLI (`npm run build`).
 */
import { cpSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bool, kwMap, NIL, str, sym, vec } from '../../src/coreform/term.js';
import { dependencyArtifactOnDisk } from '../../src/patch/apply/host.js';
import { acceptanceTerm, CANONICAL_PINS_OBLIGATION } from '../../src/patch/acceptance/acceptance.js';
import { applyPatch, readPatchFile } from '../../src/patch/apply/apply.js';
import { auditPackage } from '../../src/package-audit/audit.js';
import { EvidenceStore } from '../../src/store/store.js';
import { utf8 } from '../../src/util/bytes.js';
import { loadPackage } from '../../src/workspace/package.js';
import { gcpatch, ROOT, tempDir } from '../helpers/cli.js';

/** patchdemo after an apply: pins match, an acceptance recorded (no declared obligations). */
function applied(): string {
  const pkg = join(tempDir('gcpatch-audit-'), 'pkg');
  cpSync(join(ROOT, 'fixtures/packages/patchdemo'), pkg, { recursive: true });
  applyPatch({ pkg, patch: readPatchFile(join(ROOT, 'fixtures/patches/patchdemo-refactor.gcpatch')) });
  return pkg;
}
const codes = (pkg: string) => auditPackage(pkg).findings.map((f) => f.code);
const cli = (args: string[]) => {
  const r = gcpatch(args);
  return { ...r, json: r.stdout.trim() === '' ? undefined : (JSON.parse(r.stdout) as Record<string, unknown>) };
};

describe('whole-store verify and audit check every name in the store', () => {
  const cases: [string, (dir: string, s: EvidenceStore) => string][] = [
    [
      'a symlink with an entry name (to a valid entry)',
      (dir, s) => {
        const target = s.put(utf8('target'));
        const name = 'a'.repeat(64);
        symlinkSync(join(dir, target), join(dir, name));
        return name;
      },
    ],
    [
      'a symlink to outside the store',
      (dir) => {
        const outside = join(tempDir(), 'x');
        writeFileSync(outside, 'outside');
        symlinkSync(outside, join(dir, 'b'.repeat(64)));
        return 'b'.repeat(64);
      },
    ],
    [
      'a dangling symlink',
      (dir) => {
        symlinkSync(join(dir, 'nowhere'), join(dir, 'c'.repeat(64)));
        return 'c'.repeat(64);
      },
    ],
    [
      'a directory with an entry name',
      (dir) => {
        mkdirSync(join(dir, 'd'.repeat(64)));
        return 'd'.repeat(64);
      },
    ],
    [
      'a directory with another name',
      (dir) => {
        mkdirSync(join(dir, 'sub'));
        return 'sub';
      },
    ],
    [
      'a junk-named file',
      (dir) => {
        writeFileSync(join(dir, 'README'), 'junk');
        return 'README';
      },
    ],
    [
      'an upper-case hex name',
      (dir, s) => {
        const hex = s.put(utf8('upper'));
        writeFileSync(join(dir, hex.toUpperCase()), 'upper');
        return hex.toUpperCase();
      },
    ],
    [
      'a 63-digit name',
      (dir) => {
        writeFileSync(join(dir, 'e'.repeat(63)), 'short');
        return 'e'.repeat(63);
      },
    ],
    [
      'a symlink named like a temp file',
      (dir) => {
        const name = `.tmp-${'f'.repeat(64)}-1-0`;
        symlinkSync('/etc/passwd', join(dir, name));
        return name;
      },
    ],
  ];
  const throughCli = new Set([0, 3, 5, 8]); // the built CLI for a symlink, a directory, a junk name, a temp-named symlink
  for (const [i, [what, make]] of cases.entries()) {
    it(`${what}: store verify and audit report it (exit 50), and go on checking`, () => {
      const pkg = applied();
      const store = EvidenceStore.forPackage(pkg);
      const before = store.verify();
      expect(before.ok).toBe(true);
      const name = make(store.dir, store);
      const r = store.verify();
      expect(r.ok).toBe(false);
      expect(r.failures.map((f) => [f.code, f.hex])).toContainEqual(['core/store/corruption', name]);
      expect(r.checked).toBeGreaterThanOrEqual(before.checked); // every entry still re-hashed
      expect(codes(pkg)).toContain('core/store/corruption');
      if (!throughCli.has(i)) return;
      const v = cli(['store', 'verify', '--pkg', pkg, '--json']);
      expect(v.status).toBe(50);
      expect((v.json!['failures'] as { hex: string }[]).map((f) => f.hex)).toContain(name);
      const a = cli(['audit', '--pkg', pkg, '--json']);
      expect(a.status).toBe(50);
      expect(a.json!['findings'] as { subject: string; code: string }[]).toContainEqual(
        expect.objectContaining({ subject: name, code: 'core/store/corruption' }),
      );
      const text = gcpatch(['store', 'verify', '--pkg', pkg]);
      expect(text.status).toBe(50);
      expect(text.stderr).toContain(JSON.stringify(name));
      expect(text.stderr).toMatch(/remove it/);
    });
  }

  it('verifying a symlinked entry by its address and by the whole store agree', () => {
    const pkg = applied();
    const store = EvidenceStore.forPackage(pkg);
    const target = store.put(utf8('target'));
    symlinkSync(join(store.dir, target), join(store.dir, 'a'.repeat(64)));
    expect(store.verify('a'.repeat(64)).failure?.code).toBe('core/store/corruption');
    expect(store.verify().failures.find((f) => f.hex === 'a'.repeat(64))?.code).toBe('core/store/corruption');
  });

  it('reports every failure, in name order, not just the first', () => {
    const pkg = applied();
    const store = EvidenceStore.forPackage(pkg);
    mkdirSync(join(store.dir, '0'.repeat(64)));
    writeFileSync(join(store.dir, 'zz-junk'), 'x');
    const hex = store.put(utf8('will be corrupted'));
    writeFileSync(join(store.dir, `${hex}`), 'changed', { flag: 'w', mode: 0o644 }); // write-once broken
    const r = store.verify();
    expect(r.failures.map((f) => f.hex)).toEqual(['0'.repeat(64), ...(hex < 'zz-junk' ? [hex, 'zz-junk'] : ['zz-junk', hex])].sort());
    expect(r.failure).toEqual(r.failures[0]);
  });

  it("the put's own temporary files are not entries and not findings (a concurrent put)", () => {
    const pkg = applied();
    const store = EvidenceStore.forPackage(pkg);
    writeFileSync(join(store.dir, `.tmp-${'a'.repeat(64)}-123-0`), 'partial');
    const r = store.verify();
    expect(r).toMatchObject({ ok: true, skippedTemp: 1 });
  });
});

describe('audit: the last acceptance is for the package as it is', () => {
  const OBLIGATION = 'patchdemo/obligation::unit-tests';
  function declare(pkg: string): void {
    const toml = join(pkg, 'package.toml');
    writeFileSync(toml, readFileSync(toml, 'utf8').replace('obligations = []', `obligations = [\n    "${OBLIGATION}",\n]`));
  }
  /** Records an acceptance for the package as it is, linked to its package record as `genesis sign` links them. */
  function record(pkg: string, records: ReturnType<typeof kwMap>[]): string {
    const store = EvidenceStore.forPackage(pkg);
    const hex = store.putTerm(acceptanceTerm(loadPackage(pkg).manifest, records));
    const packageArtifact = dependencyArtifactOnDisk(pkg, { path: 'package.toml' });
    store.putTerm(
      kwMap({ kind: str('genesis/transparency-entry-v0.2'), 'prev-h': NIL, 'package-artifact': str(packageArtifact), 'acceptance-artifact': str(hex) }),
    );
    writeFileSync(join(pkg, '.genesis', 'last_acceptance'), `${hex}\n`);
    return hex;
  }

  it('an acceptance that does not cover a declared obligation fails audit (exit 50, audit/acceptance-obligations)', () => {
    const pkg = applied();
    expect(auditPackage(pkg).ok).toBe(true);
    declare(pkg); // the acceptance recorded by apply knows nothing of the new obligation
    expect(codes(pkg)).toEqual(['audit/acceptance-obligations']);
    const a = cli(['audit', '--pkg', pkg, '--json']);
    expect(a.status).toBe(50);
    // the CLI also binds the acceptance to the package record: declaring an obligation changed the record
    expect(a.json!['findings']).toEqual([
      expect.objectContaining({ code: 'audit/acceptance-obligations', message: expect.stringContaining(OBLIGATION) }),
      expect.objectContaining({ code: 'audit/acceptance-stale', message: expect.stringContaining('changed since: the manifest') }),
    ]);
    const text = gcpatch(['audit', '--pkg', pkg]);
    expect(text.status).toBe(50);
    expect(text.stderr).toContain('audit/acceptance-obligations');
    // Recorded, but only the builtin check: still not covered.
    record(pkg, [kwMap({ name: sym(CANONICAL_PINS_OBLIGATION), ok: bool(true) })]);
    expect(codes(pkg)).toEqual(['audit/acceptance-obligations']);
  });

  it('an honest acceptance covering every declared obligation passes', () => {
    const pkg = applied();
    declare(pkg);
    const store = EvidenceStore.forPackage(pkg);
    const artifact = store.putTerm(kwMap({ kind: str('demo/test-log'), lines: vec([str('2 tests passed')]) }));
    record(pkg, [kwMap({ name: sym(CANONICAL_PINS_OBLIGATION), ok: bool(true) }), kwMap({ name: sym(OBLIGATION), ok: bool(true), artifact: str(artifact) })]);
    expect(auditPackage(pkg)).toMatchObject({ ok: true, findings: [], referencedArtifacts: [artifact] });
    expect(cli(['audit', '--pkg', pkg, '--json']).status).toBe(0);
  });

  it('a covered obligation that failed is acceptance-not-ok; a claimed :ok true over a failed record is malformed', () => {
    const pkg = applied();
    declare(pkg);
    record(pkg, [kwMap({ name: sym(CANONICAL_PINS_OBLIGATION), ok: bool(true) }), kwMap({ name: sym(OBLIGATION), ok: bool(false) })]);
    expect(codes(pkg)).toEqual(['audit/acceptance-not-ok']);
    // Hand-made: :ok true while a record is :ok false.
    const store = EvidenceStore.forPackage(pkg);
    const m = loadPackage(pkg).manifest;
    const lying = kwMap({
      kind: str('genesis/acceptance-v0.2'),
      ok: bool(true),
      package: kwMap({ name: str(m.name), version: str(m.version) }),
      obligations: vec([kwMap({ name: sym(OBLIGATION), ok: bool(false) })]),
    });
    writeFileSync(join(pkg, '.genesis', 'last_acceptance'), `${store.putTerm(lying)}\n`);
    expect(codes(pkg)).toEqual(['audit/acceptance-malformed']);
  });

  it('an acceptance for another version of the package fails (audit/acceptance-package)', () => {
    const pkg = applied();
    const toml = join(pkg, 'package.toml');
    writeFileSync(toml, readFileSync(toml, 'utf8').replace('version = "0.1.0"', 'version = "0.2.0"'));
    const f = auditPackage(pkg).findings;
    expect(f.map((x) => x.code)).toEqual(['audit/acceptance-package']);
    expect(f[0]!.message).toContain('it is for patchdemo 0.1.0');
  });
});
