/**
 * `gcpatch audit`: re-verify a package from its files and its evidence store (docs/reference/evidence-store.md §5
 * "Audit"): every module hash against its pin, dependency pins, the last acceptance and every
 * artifact it references, and a whole-store re-hash.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { kw, mapGet, type Term } from '../coreform/term.js';
import { isHex64 } from '../util/bytes.js';
import { isGcError } from '../util/errors.js';
import { loadPackage, pinFindings, resolveManifestPath, type LoadedPackage } from '../workspace/package.js';
import type { ManifestDependency } from '../workspace/manifest.js';
import { EvidenceStore, type StoreLimits, type StoreVerifyResult } from '../store/store.js';
import { APPLY_REPORT_KIND } from '../patch/apply/apply-report.js';
import { acceptanceBinding, rerun, type AcceptanceBinding } from './binding.js';
import type { AuditFinding } from './finding.js';
import { auditSigning, type AuditSigning } from './signers.js';

export { acceptanceBinding, type AcceptanceBinding } from './binding.js';

export type { AuditFinding } from './finding.js';

/** The result of {@link auditPackage}. `ok` is true exactly when there are no findings. */
export interface AuditResult {
  ok: boolean;
  packageDir: string;
  findings: AuditFinding[];
  modulesChecked: number;
  /** The acceptance artifact named by `.genesis/last_acceptance`, if readable. */
  acceptanceArtifact: string | undefined;
  /** Artifacts referenced by the acceptance that were re-hashed. */
  referencedArtifacts: string[];
  /** Whether the last acceptance was produced for the package as it is (see {@link AcceptanceBinding}). */
  binding: AcceptanceBinding;
  /** What verified, one phrase each (for people): "4 module pins", "acceptance … for the package as it is", … */
  verified: string[];
  /** What to do about the findings, one sentence each, in order (empty when ok). */
  nextSteps: string[];
  /** The transparency chain and the signers of the last acceptance (src/package-audit/signers.ts). */
  signing: AuditSigning;
  store: StoreVerifyResult;
}

/** Options of {@link auditPackage}. */
export interface AuditOptions {
  /** Computes a dependency's package artifact (the CLI passes `dependencyArtifactOnDisk`). Without it, dependency pins are only checked for presence. */
  dependencyArtifact?: (packageDir: string, dependency: ManifestDependency) => string;
  /**
   * Computes the address of the package record of the package as it is on disk (the CLI passes
   * `dependencyArtifactOnDisk(dir, { path: 'package.toml' })`). Without it the acceptance's binding
   * is `not-checked`.
   */
  packageArtifact?: (manifestFile: string) => string;
  storeLimits?: Partial<StoreLimits>;
}

/**
 * Audits a package. Never throws for a verification problem (each becomes a finding); throws only
 * when the manifest itself cannot be read or parsed (`io/*`, `manifest/*`).
 * Finding codes: `audit/missing-pin`, `audit/empty-pin`, `audit/pin-mismatch`,
 * `audit/module-unreadable`, `audit/dependency-pin`, `audit/no-acceptance`,
 * `audit/acceptance-malformed`, `audit/acceptance-not-ok`, `audit/acceptance-package`,
 * `audit/acceptance-obligations`, the signing state's `audit/transparency-head`, `audit/transparency-chain`,
 * `audit/signature-set`, `audit/signature-invalid` (src/package-audit/signers.ts), and the store's `core/store/not-found`, `core/store/corruption`
 * (also every symlink, directory or junk-named file in the store), `core/store/io-error`,
 * `core/caps/resource-limit`.
 *
 * The last acceptance must be for the package as it is now: its `:package`
 * names this `name` and `version` (`audit/acceptance-package`), it has one record for every
 * obligation `package.toml` declares (`audit/acceptance-obligations`, naming the missing ones),
 * and its `:ok` is true exactly when every record is `:ok true` (else `audit/acceptance-malformed`).
 * With `packageArtifact`, it must also have been produced for the package record of the package as
 * it is ({@link AcceptanceBinding}): `audit/acceptance-stale` names the modules changed since the
 * record it was produced for; `audit/acceptance-unbound` when no store entry links it to any.
 */
export function auditPackage(manifestArg: string, options: AuditOptions = {}): AuditResult {
  const findings: AuditFinding[] = [];
  let pkg: LoadedPackage | undefined;
  try {
    pkg = loadPackage(manifestArg);
  } catch (error) {
    if (!isGcError(error) || error.code.startsWith('manifest/')) throw error;
    findings.push({ code: 'audit/module-unreadable', subject: error.location.file ?? 'module', message: error.message });
  }
  const packageDir = pkg?.dir ?? dirname(resolveManifestPath(manifestArg));
  if (pkg !== undefined) findings.push(...pinAndDependencyFindings(pkg, options));
  const store = EvidenceStore.forPackage(packageDir, { limits: options.storeLimits ?? {} });
  const { acceptanceArtifact, referencedArtifacts } = lastAcceptanceFindings(packageDir, store, pkg, findings);
  let binding: AcceptanceBinding = { status: 'not-checked', currentPackageArtifact: undefined, links: [], changedModules: [] };
  if (pkg !== undefined && acceptanceArtifact !== undefined && options.packageArtifact !== undefined) {
    let current: string | undefined;
    try {
      current = options.packageArtifact(pkg.manifestFile);
    } catch {
      current = undefined; // an unreadable module or dependency is a finding of its own above
    }
    if (current !== undefined) {
      binding = acceptanceBinding(store, acceptanceArtifact, current, pkg);
      const finding = bindingFinding(binding, acceptanceArtifact, pkg);
      if (finding !== undefined) findings.push(finding);
    }
  }
  const signing = auditSigning(packageDir, store, acceptanceArtifact, binding.currentPackageArtifact, findings);
  const storeResult = store.verify();
  for (const f of storeResult.failures) findings.push({ code: f.code, subject: f.hex ?? '.genesis/store', message: f.message });
  const summary = describeAudit(pkg, findings, acceptanceArtifact, binding, referencedArtifacts, storeResult);
  return {
    ok: findings.length === 0,
    packageDir,
    findings,
    modulesChecked: pkg?.modules.length ?? 0,
    acceptanceArtifact,
    referencedArtifacts,
    binding,
    ...summary,
    signing,
    store: storeResult,
  };
}

/** The findings of the pins: each module's hash against its pin, each dependency's pinned artifact. */
function pinAndDependencyFindings(pkg: LoadedPackage, options: AuditOptions): AuditFinding[] {
  const findings: AuditFinding[] = [];
  for (const f of pinFindings(pkg)) {
    if (f.status === 'ok') continue;
    findings.push({
      code: `audit/${f.status}`,
      subject: f.path,
      message:
        f.status === 'mismatch' ? `module hash ${f.computed} does not match its pin ${f.pin}` : `module has no pin (computed ${f.computed}); run gcpatch pack`,
    });
  }
  for (const dep of pkg.manifest.dependencies) {
    if (dep.hash === undefined || dep.hash === '') {
      findings.push({ code: 'audit/dependency-pin', subject: dep.name, message: 'dependency has no pinned package artifact' });
    } else if (options.dependencyArtifact !== undefined) {
      try {
        const actual = options.dependencyArtifact(pkg.dir, dep);
        if (actual !== dep.hash)
          findings.push({ code: 'audit/dependency-pin', subject: dep.name, message: `dependency artifact ${actual} does not match its pin ${dep.hash}` });
      } catch (error) {
        findings.push({ code: 'audit/dependency-pin', subject: dep.name, message: error instanceof Error ? error.message : String(error) });
      }
    }
  }
  return findings;
}

/**
 * Reads `.genesis/last_acceptance` and checks the acceptance it names and the obligation artifacts
 * that acceptance references, pushing a finding for each problem onto `findings`.
 * @returns the acceptance's store address (undefined when there is none or it is malformed) and
 *   the obligation artifacts it references.
 */
function lastAcceptanceFindings(
  packageDir: string,
  store: EvidenceStore,
  pkg: LoadedPackage | undefined,
  findings: AuditFinding[],
): { acceptanceArtifact: string | undefined; referencedArtifacts: string[] } {
  let acceptanceArtifact: string | undefined;
  const referencedArtifacts: string[] = [];
  const lastFile = join(packageDir, '.genesis', 'last_acceptance');
  let last: string | undefined;
  try {
    last = readFileSync(lastFile, 'utf8');
  } catch {
    findings.push({
      code: 'audit/no-acceptance',
      subject: '.genesis/last_acceptance',
      message: 'no last acceptance recorded (apply a patch or run the obligations first)',
    });
  }
  if (last !== undefined) {
    const hex = last.endsWith('\n') ? last.slice(0, -1) : last;
    if (!isHex64(hex)) {
      findings.push({ code: 'audit/acceptance-malformed', subject: '.genesis/last_acceptance', message: 'must hold 64 lowercase hex digits and a newline' });
    } else {
      acceptanceArtifact = hex;
      try {
        const acceptance = store.getTerm(hex);
        checkAcceptance(acceptance, pkg, findings, hex);
        const obligations = acceptance.kind === 'map' ? mapGet(acceptance, kw('obligations')) : undefined;
        for (const r of obligations?.kind === 'vec' ? obligations.items : []) {
          const artifact = r.kind === 'map' ? mapGet(r, kw('artifact')) : undefined;
          if (artifact === undefined) continue;
          if (artifact.kind !== 'str' || !isHex64(artifact.value)) {
            findings.push({ code: 'audit/acceptance-malformed', subject: hex, message: 'an obligation :artifact is not hex64' });
            continue;
          }
          referencedArtifacts.push(artifact.value);
          try {
            store.get(artifact.value);
          } catch (error) {
            if (!isGcError(error)) throw error;
            findings.push({ code: error.code, subject: artifact.value, message: error.message });
          }
        }
      } catch (error) {
        if (!isGcError(error)) throw error;
        findings.push({ code: error.code, subject: hex, message: error.message });
      }
    }
  }
  return { acceptanceArtifact, referencedArtifacts };
}

/** The finding for a stale or unbound acceptance (`audit/acceptance-stale`, `audit/acceptance-unbound`); none when bound. */
function bindingFinding(b: AcceptanceBinding, acceptance: string, pkg: LoadedPackage): AuditFinding | undefined {
  if (b.status === 'stale') {
    const link = b.links[0]!;
    const what =
      b.changedModules.length > 0
        ? b.changedModules.map((m) => `${m.path} (${m.change})`).join(', ')
        : 'the manifest (name, version, obligations, tests or dependencies)';
    return {
      code: 'audit/acceptance-stale',
      subject: acceptance,
      message:
        `the last acceptance was produced for package record ${link.packageArtifact} (${link.kind === APPLY_REPORT_KIND ? 'apply report' : 'transparency entry'} ${link.via}), ` +
        `not for the package as it is now (record ${b.currentPackageArtifact}); changed since: ${what}. It does not count for this package: ${rerun(pkg)}`,
    };
  }
  if (b.status === 'unbound') {
    return {
      code: 'audit/acceptance-unbound',
      subject: acceptance,
      message:
        'no apply report or transparency entry in the store links the last acceptance to a package record, so it cannot be shown to be for the package as it is ' +
        `(an acceptance names only the package's name and version): ${rerun(pkg)}`,
    };
  }
  return undefined;
}

/** The human summary of an audit: what verified, and the next steps for its findings. */
function describeAudit(
  pkg: LoadedPackage | undefined,
  findings: readonly AuditFinding[],
  acceptance: string | undefined,
  binding: AcceptanceBinding,
  referenced: readonly string[],
  store: StoreVerifyResult,
): { verified: string[]; nextSteps: string[] } {
  const codes = new Set(findings.map((f) => f.code));
  const verified: string[] = [];
  if (
    pkg !== undefined &&
    ![...codes].some((c) => c === 'audit/missing-pin' || c === 'audit/empty-pin' || c === 'audit/pin-mismatch' || c === 'audit/module-unreadable')
  ) {
    verified.push(`${pkg.modules.length} module pin${pkg.modules.length === 1 ? ' matches its module' : 's match the modules'}`);
  }
  if (pkg !== undefined && pkg.manifest.dependencies.length > 0 && !codes.has('audit/dependency-pin')) {
    verified.push(`${pkg.manifest.dependencies.length} dependency pin${pkg.manifest.dependencies.length === 1 ? '' : 's'}`);
  }
  if (acceptance !== undefined && ![...codes].some((c) => c.startsWith('audit/acceptance') || c.startsWith('core/store/'))) {
    verified.push(
      `acceptance ${acceptance}${binding.status === 'bound' ? ' for the package as it is' : ''}${referenced.length > 0 ? ` and its ${referenced.length} referenced artifact(s)` : ''}`,
    );
  }
  if (store.failures.length === 0) verified.push(`${store.checked} store entr${store.checked === 1 ? 'y' : 'ies'} re-hashed`);
  const nextSteps: string[] = [];
  if (codes.has('audit/no-acceptance')) {
    const obligations = pkg?.manifest.obligations ?? [];
    nextSteps.push(
      obligations.length > 0
        ? `missing: an acceptance (no .genesis/last_acceptance). The package declares ${obligations.length} obligation${obligations.length === 1 ? '' : 's'} (${obligations.join(', ')}): ` +
            'produce it with the GenesisCode CLI on PATH: `gcpatch accept --obligation-runner genesis` (or `genesis test --pkg package.toml` then `genesis sign`)'
        : 'missing: an acceptance (no .genesis/last_acceptance). The package declares no obligations: `gcpatch accept` records one (gcpatch checks the pins itself)',
    );
  }
  if (codes.has('audit/acceptance-stale') || codes.has('audit/acceptance-unbound'))
    nextSteps.push(`the acceptance does not count for the package as it is: ${rerun(pkg)}`);
  return { verified, nextSteps };
}

function checkAcceptance(acceptance: Term, pkg: LoadedPackage | undefined, findings: AuditFinding[], hex: string): void {
  const get = (k: string) => (acceptance.kind === 'map' ? mapGet(acceptance, kw(k)) : undefined);
  const kind = get('kind');
  const ok = get('ok');
  if (kind?.kind !== 'str' || kind.value !== 'genesis/acceptance-v0.2' || ok?.kind !== 'bool') {
    findings.push({
      code: 'audit/acceptance-malformed',
      subject: hex,
      message: 'the last acceptance is not a genesis/acceptance-v0.2 term with a boolean :ok',
    });
    return;
  }
  if (!ok.value) findings.push({ code: 'audit/acceptance-not-ok', subject: hex, message: 'the last acceptance is :ok false' });
  const p = get('package');
  const name = p?.kind === 'map' ? mapGet(p, kw('name')) : undefined;
  const version = p?.kind === 'map' ? mapGet(p, kw('version')) : undefined;
  if (pkg !== undefined && (name?.kind !== 'str' || name.value !== pkg.manifest.name || version?.kind !== 'str' || version.value !== pkg.manifest.version)) {
    const was = name?.kind === 'str' && version?.kind === 'str' ? ` (it is for ${name.value} ${version.value})` : '';
    findings.push({
      code: 'audit/acceptance-package',
      subject: hex,
      message: `the last acceptance is not for ${pkg.manifest.name} ${pkg.manifest.version}${was}: run the obligations again (\`gcpatch accept\`, with --obligation-runner when obligations are declared)`,
    });
  }
  const records = get('obligations');
  if (records?.kind !== 'vec') {
    findings.push({ code: 'audit/acceptance-malformed', subject: hex, message: 'the last acceptance has no :obligations vector' });
    return;
  }
  const covered = new Set<string>();
  let allOk = true;
  for (const r of records.items) {
    const rName = r.kind === 'map' ? mapGet(r, kw('name')) : undefined;
    const rOk = r.kind === 'map' ? mapGet(r, kw('ok')) : undefined;
    if (rName?.kind !== 'sym' || rOk?.kind !== 'bool') {
      findings.push({
        code: 'audit/acceptance-malformed',
        subject: hex,
        message: 'an obligation record of the last acceptance lacks a symbol :name or a boolean :ok',
      });
      return;
    }
    covered.add(rName.name);
    allOk &&= rOk.value;
  }
  if (ok.value !== allOk) {
    findings.push({
      code: 'audit/acceptance-malformed',
      subject: hex,
      message: `the last acceptance says :ok ${ok.value} but its obligation records say ${allOk}`,
    });
  }
  const missing = pkg?.manifest.obligations.filter((o) => !covered.has(o)) ?? [];
  if (missing.length > 0) {
    findings.push({
      code: 'audit/acceptance-obligations',
      subject: hex,
      message: `the last acceptance does not cover the declared obligation(s) ${missing.join(', ')}: run them (\`gcpatch accept --obligation-runner genesis\`, or another runner) so that a new acceptance records them`,
    });
  }
}
