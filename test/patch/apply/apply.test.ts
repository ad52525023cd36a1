import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readTerm } from '../../../src/coreform/read.js';
import { kw, mapGet } from '../../../src/coreform/term.js';
import { applyPatch, readPatchFile } from '../../../src/patch/apply/apply.js';
import { builtinAcceptance, NOT_EVALUATED_MESSAGE } from '../../../src/patch/acceptance/acceptance.js';
import { canonicalizeSource } from '../../../src/coreform/canon.js';
import { loadPackage } from '../../../src/workspace/package.js';
import { EvidenceStore } from '../../../src/store/store.js';
import { auditPackage } from '../../../src/package-audit/audit.js';
import { verifyStoredApplyReport } from '../../../src/patch/apply/apply-report-verify.js';
import { injectedFault, INJECTED_FAULT } from '../../helpers/faults.js';
import { codeOf, copyPackage, DEMO_PATCH, errorOf, snapshotTree } from '../helpers.js';

const patch = () => readPatchFile(DEMO_PATCH);

describe('apply (transactional, docs/reference/patch-protocols.md §3.7)', () => {
  it('applies the demo patch, writes canonical modules, re-pins, stores evidence; audit passes', () => {
    const pkg = copyPackage();
    const r = applyPatch({ pkg, patch: patch() });
    expect(r.changedPaths).toEqual(['app.gc', 'legacy.gc', 'lib/double.gc', 'lib/math.gc', 'lib/utils.gc']);
    expect(existsSync(join(pkg, 'legacy.gc'))).toBe(false);
    expect(existsSync(join(pkg, 'lib/util.gc'))).toBe(false);
    expect(readFileSync(join(pkg, 'lib/utils.gc'), 'utf8')).toBe('(def demo/util::id (fn (x) x))\n');
    const toml = readFileSync(join(pkg, 'package.toml'), 'utf8');
    expect(toml).toContain('custom_note = "kept by gcpatch"');
    expect(toml).toContain('description = "patched by the demo patch"');
    expect(toml).toContain('[limits]\nstep_limit = 100000');
    expect(readFileSync(join(pkg, '.genesis/last_acceptance'), 'utf8')).toBe(`${r.acceptanceArtifact}\n`);
    const store = EvidenceStore.forPackage(pkg);
    for (const hex of [r.patchArtifact, r.packageArtifact, r.acceptanceArtifact, r.reportArtifact]) expect(store.has(hex)).toBe(true);
    const fields = verifyStoredApplyReport(store, r.reportArtifact);
    expect(fields.ok).toBe(true);
    expect(fields.opsCount).toBe(11);
    expect(fields.semanticEdits.map((e) => (mapGet(e, kw('op')) as { name: string }).name)).toEqual([
      ':replace-node',
      ':rename-symbol',
      ':rewrite-exports',
      ':migrate-contract-signature',
      ':rewrite-imports',
      ':replace-node-id',
      ':split-module',
      ':move-module',
    ]);
    const audit = auditPackage(pkg);
    expect(audit.findings).toEqual([]);
    expect(audit.ok).toBe(true);
  });

  it('is deterministic: the same patch on the same package gives the same artifacts', () => {
    const a = applyPatch({ pkg: copyPackage(), patch: patch() });
    const b = applyPatch({ pkg: copyPackage(), patch: patch() });
    expect([a.reportArtifact, a.packageArtifact, a.acceptanceArtifact, a.patchArtifact]).toEqual([
      b.reportArtifact,
      b.packageArtifact,
      b.acceptanceArtifact,
      b.patchArtifact,
    ]);
  });
});

describe('fault injection: every op and every file write rolls back to the exact prior bytes', () => {
  const steps: string[] = [];
  applyPatch({ pkg: copyPackage(), patch: patch(), faults: (s) => void steps.push(s) });

  it('visits every op, every file write, pack and the report', () => {
    for (let i = 0; i < 11; i++) expect(steps.some((s) => s.startsWith(`op:${i}:`))).toBe(true);
    for (const s of [
      'store:patch',
      'write:app.gc',
      'remove:legacy.gc',
      'write:lib/double.gc',
      'write:lib/math.gc',
      'write:lib/utils.gc',
      'pack:write-manifest',
      'pack:store-package-record',
      'store:acceptance',
      'write:last_acceptance',
      'store:apply-report',
      'after-report-stored',
    ]) {
      expect(steps).toContain(s);
    }
  });

  // Steps after the commit point (the journal rewritten as committed) cannot fail the apply: a
  // failure there leaves clean-up for the next command's recovery (test/patch/crash.test.ts).
  const postCommit = new Set(['cleanup', 'finish:cleanup']);
  it('has clean-up steps after the commit point', () => {
    for (const s of postCommit) expect(steps).toContain(s);
    expect(steps.indexOf('cleanup')).toBeGreaterThan(steps.indexOf('journal:committed'));
  });

  for (const step of steps.filter((s) => !postCommit.has(s))) {
    it(`failure at ${step}`, () => {
      const pkg = copyPackage();
      // a previous acceptance must come back too
      mkdirSync(join(pkg, '.genesis'), { recursive: true });
      writeFileSync(join(pkg, '.genesis/last_acceptance'), 'previous\n');
      const before = snapshotTree(pkg);
      const error = errorOf(() =>
        applyPatch({
          pkg,
          patch: patch(),
          faults: (s) => {
            if (s === step) throw injectedFault(`injected at ${s}`);
          },
        }),
      );
      expect(error.code).toBe(INJECTED_FAULT);
      expect(snapshotTree(pkg)).toEqual(before);
    });
  }

  it('evidence stays in the store after a rollback', () => {
    const pkg = copyPackage();
    const seen: string[] = [];
    expect(
      codeOf(() =>
        applyPatch({
          pkg,
          patch: patch(),
          faults: (s) => {
            seen.push(s);
            if (s === 'after-report-stored') throw injectedFault('late');
          },
        }),
      ),
    ).toBe(INJECTED_FAULT);
    const store = EvidenceStore.forPackage(pkg);
    const kinds = store.list().map((e) => {
      const t = store.getTerm(e.hex);
      return t.kind === 'map' ? ((mapGet(t, kw('kind')) as { value?: string } | undefined)?.value ?? 'patch') : '?';
    });
    expect(kinds.sort()).toEqual(['genesis/acceptance-v0.2', 'genesis/package-v0.2', 'genesis/patch-apply-v0.3', 'patch']);
  });

  it('a rollback that cannot restore is its own hard error (exit 70)', () => {
    const pkg = copyPackage();
    const error = errorOf(() =>
      applyPatch({
        pkg,
        patch: patch(),
        faults: (s) => {
          if (s === 'after-report-stored') {
            // make the manifest impossible to restore: a non-empty directory now sits at its path
            unlinkSync(join(pkg, 'package.toml'));
            mkdirSync(join(pkg, 'package.toml', 'x'), { recursive: true });
            throw injectedFault('late');
          }
        },
      }),
    );
    expect(error.code).toBe('patch/rollback-failed');
    expect(error.exitCode).toBe(70);
    rmSync(join(pkg, 'package.toml'), { recursive: true });
  });
});

describe('acceptance and obligations', () => {
  const withObligations = (pkg: string) => {
    const file = join(pkg, 'package.toml');
    writeFileSync(file, readFileSync(file, 'utf8').replace('obligations = []', 'obligations = [\n    "core/obligation::unit-tests",\n]'));
  };

  it('without a runner, declared obligations are not evaluated: exit 30, rolled back, evidence kept', () => {
    const pkg = copyPackage();
    withObligations(pkg);
    const before = snapshotTree(pkg);
    const error = errorOf(() => applyPatch({ pkg, patch: patch(), obligationRunner: '' }));
    expect(error.code).toBe('patch/obligations-failed');
    expect(error.exitCode).toBe(30);
    expect(error.message).toContain('--obligation-runner');
    expect(snapshotTree(pkg)).toEqual(before);
    const store = EvidenceStore.forPackage(pkg);
    const acceptance = store.getTerm(error.details!.acceptanceArtifact as string);
    expect(mapGet(acceptance as never, kw('ok'))).toEqual({ kind: 'bool', value: false });
    expect(new TextDecoder().decode(store.get(error.details!.acceptanceArtifact as string))).toContain(NOT_EVALUATED_MESSAGE);
  });

  const runner = (pkg: string, body: string) => {
    writeFileSync(join(pkg, 'runner.mjs'), body);
    return 'node runner.mjs';
  };
  const acceptanceText = (ok: boolean, names: string[]) =>
    `{:kind "genesis/acceptance-v0.2" :ok ${ok} :package {:name "patchdemo" :version "0.1.0"} :obligations [${names
      .map((n) => `{:name ${n} :ok ${ok}}`)
      .join(' ')}]}`;

  it('a runner that accepts commits the apply', () => {
    const pkg = copyPackage();
    withObligations(pkg);
    const cmd = runner(pkg, `process.stdout.write(${JSON.stringify(acceptanceText(true, ['core/obligation::unit-tests']))});`);
    const r = applyPatch({ pkg, patch: patch(), obligationRunner: cmd });
    expect(mapGet(r.acceptance, kw('ok'))).toEqual({ kind: 'bool', value: true });
  });

  it('the runner sees the package directory and artifact in its environment', () => {
    const pkg = copyPackage();
    const cmd = runner(
      pkg,
      `if (!/^[0-9a-f]{64}$/.test(process.env.GCPATCH_PACKAGE_ARTIFACT) || process.cwd() !== process.env.GCPATCH_PACKAGE_DIR) process.exit(3);
       process.stdout.write(${JSON.stringify(acceptanceText(true, []))});`,
    );
    expect(applyPatch({ pkg, patch: patch(), obligationRunner: cmd }).ok).toBe(true);
  });

  it('a runner that rejects rolls back with exit 30', () => {
    const pkg = copyPackage();
    withObligations(pkg);
    const before = snapshotTree(pkg);
    const cmd = runner(pkg, `process.stdout.write(${JSON.stringify(acceptanceText(false, ['core/obligation::unit-tests']))});`);
    const error = errorOf(() => applyPatch({ pkg, patch: patch(), obligationRunner: cmd }));
    expect([error.code, error.exitCode]).toEqual(['patch/obligations-failed', 30]);
    delete before['runner.mjs'];
    const after = snapshotTree(pkg);
    delete after['runner.mjs'];
    expect(after).toEqual(before);
  });

  it('a runner that prints no term, or omits a declared obligation, fails with exit 30', () => {
    const pkg = copyPackage();
    withObligations(pkg);
    expect(codeOf(() => applyPatch({ pkg, patch: patch(), obligationRunner: 'echo nonsense )' }))).toBe('patch/obligation-runner-failed');
    const cmd = runner(pkg, `process.stdout.write(${JSON.stringify(acceptanceText(true, []))});`);
    const error = errorOf(() => applyPatch({ pkg, patch: patch(), obligationRunner: cmd }));
    expect([error.code, error.exitCode]).toEqual(['patch/acceptance-invalid', 30]);
    expect(readFileSync(join(pkg, 'app.gc'), 'utf8')).toContain('(fn (req)');
  });
});

describe("gcpatch's own acceptance reads the modules back from disk", () => {
  // Between the module writes and the acceptance (the fault hook's `pack:store-package-record`
  // step), a file is changed on disk behind the apply's back; the pins check must see it.
  const tamper = (pkg: string, path: string, edit: (text: string) => string) => (step: string) => {
    if (step === 'pack:store-package-record') writeFileSync(join(pkg, path), edit(readFileSync(join(pkg, path), 'utf8')));
  };

  it('a known text is used only when the file holds exactly its bytes', () => {
    const pkg = copyPackage();
    const manifest = loadPackage(pkg).manifest;
    const text = readFileSync(join(pkg, 'lib/math.gc'));
    const ok = (a: ReturnType<typeof builtinAcceptance>) => (mapGet(a, kw('ok')) as { value: boolean }).value;
    expect(ok(builtinAcceptance(pkg, manifest))).toBe(true);
    // forms that do not match the pin, offered for the file's exact bytes: used (so the memo is consulted) ...
    const wrong = canonicalizeSource('(def demo/math::answer 0)');
    expect(ok(builtinAcceptance(pkg, manifest, new Map([['lib/math.gc', { bytes: text, forms: wrong }]])))).toBe(false);
    // ... and for other bytes: ignored, the file is read into forms again
    const other = new TextEncoder().encode('(def demo/math::answer 0)\n');
    expect(ok(builtinAcceptance(pkg, manifest, new Map([['lib/math.gc', { bytes: other, forms: wrong }]])))).toBe(true);
    // right forms for stale bytes do not hide a changed file
    writeFileSync(join(pkg, 'lib/math.gc'), '(def demo/math::answer 0)\n');
    const right = canonicalizeSource(text);
    expect(ok(builtinAcceptance(pkg, manifest, new Map([['lib/math.gc', { bytes: text, forms: right }]])))).toBe(false);
  });

  it('a module the apply did not write, changed on disk, fails too', () => {
    const pkg = copyPackage();
    const only = readTerm('{:version 1 :intent "t" :provenance {} :ops [{:op :rename-symbol :module-path "app.gc" :from req :to request}]}');
    const error = errorOf(() => applyPatch({ pkg, patch: only, faults: tamper(pkg, 'lib/math.gc', (t) => t.replace('42', '43')) }));
    expect(error.code).toBe('patch/obligations-failed');
    const acceptance = new TextDecoder().decode(EvidenceStore.forPackage(pkg).get(error.details!.acceptanceArtifact as string));
    expect(acceptance).toContain('lib/math.gc: module hash');
    expect(acceptance).not.toContain('app.gc: module hash');
  });

  it('control: changed bytes with the same forms (a comment added) still match their pins', () => {
    const pkg = copyPackage();
    const r = applyPatch({ pkg, patch: patch(), faults: tamper(pkg, 'lib/math.gc', (t) => `; added on disk\n${t}`) });
    expect(mapGet(r.acceptance, kw('ok'))).toEqual({ kind: 'bool', value: true });
    expect(readFileSync(join(pkg, 'lib/math.gc'), 'utf8')).toMatch(/^; added on disk\n/);
  });
});

describe('rejections before any mutation', () => {
  const source = (ops: string) => readTerm(`{:version 1 :intent "t" :provenance {} :ops [${ops}]}`);
  /** Applies `ops` to a fresh package: it fails with `code` and the package tree is as it was. */
  const rolledBack = (ops: string, code: string, prepare?: (pkg: string) => void): string => {
    const pkg = copyPackage();
    prepare?.(pkg);
    const before = snapshotTree(pkg);
    expect(codeOf(() => applyPatch({ pkg, patch: source(ops) }))).toBe(code);
    expect(snapshotTree(pkg)).toEqual(before);
    return pkg;
  };
  /** {@link rolledBack}, refused before anything was stored (no `.genesis`). */
  const unchanged = (ops: string, code: string, prepare?: (pkg: string) => void) => {
    expect(existsSync(join(rolledBack(ops, code, prepare), '.genesis'))).toBe(false);
  };
  it('path-state conflict: add-module onto an existing file', () =>
    unchanged('{:op :add-module :module-path "app.gc" :content ""}', 'patch/path-state-conflict'));
  it('path-state conflict: edit of a missing module', () =>
    unchanged('{:op :rename-symbol :module-path "nope.gc" :from a :to b}', 'patch/path-state-conflict'));
  it('path-state conflict: a directory is "other"', () => unchanged('{:op :remove-module :module-path "lib"}', 'patch/path-state-conflict'));
  it('path collision: a module and a module under a directory of its name, in either order and with any ops', () => {
    unchanged('{:op :add-module :module-path "x.gc" :content ""} {:op :add-module :module-path "x.gc/y.gc" :content ""}', 'patch/path-collision');
    unchanged('{:op :add-module :module-path "lib/m/y.gc" :content ""} {:op :add-module :module-path "lib/m" :content ""}', 'patch/path-collision');
    unchanged('{:op :remove-module :module-path "app.gc"} {:op :add-module :module-path "app.gc/y.gc" :content ""}', 'patch/path-collision');
  });
  it('control: names that only share a prefix do not collide', () => {
    const pkg = copyPackage();
    const ops =
      '{:op :add-module :module-path "x.gc" :content ""} {:op :add-module :module-path "x.gcz/y.gc" :content ""} {:op :add-module :module-path "x/y.gc" :content ""}';
    expect(applyPatch({ pkg, patch: source(ops) }).changedPaths).toEqual(['x.gc', 'x.gcz/y.gc', 'x/y.gc']);
  });
  it('symlinked path component', () =>
    unchanged('{:op :add-module :module-path "link/new.gc" :content ""}', 'patch/symlink-path', (pkg) => symlinkSync(join(pkg, 'lib'), join(pkg, 'link'))));
  it('symlinked module file', () =>
    unchanged('{:op :rename-symbol :module-path "alias.gc" :from a :to b}', 'patch/symlink-path', (pkg) =>
      symlinkSync(join(pkg, 'app.gc'), join(pkg, 'alias.gc')),
    ));
  it('non-portable path', () => unchanged('{:op :remove-module :module-path "../app.gc"}', 'patch/non-portable-path'));
  it('drive prefix', () => unchanged('{:op :remove-module :module-path "C:/app.gc"}', 'patch/non-portable-path'));
  it('[:form 99] (form index out of range) rolls back', () =>
    rolledBack('{:op :replace-node :module-path "app.gc" :path [[:form 99]] :new 1}', 'patch/form-index-out-of-range'));
  it('rename with zero sites rolls back', () => rolledBack('{:op :rename-symbol :module-path "app.gc" :from no/such::sym :to x}', 'patch/rename-no-sites'));
});
