/**
 * `gcpatch apply`: the transactional on-disk apply (PATCH_SCHEMA.md; GENESIS_FACTS.md §3.7).
 *
 * Pipeline, top to bottom in {@link applyPatch}: normalize (producer + verifier) → preflight
 * (host path states, producer + verifier) → snapshot the manifest, every op-touched module path and
 * `.genesis/last_acceptance` → store the normalized patch → apply the ops in memory → write the
 * touched modules → pack (re-pin, write `package.toml`, store the package record) → acceptance
 * (runner or gcpatch's own) stored, `last_acceptance` written → apply report stored → commit.
 * On any failure, or an `:ok false` acceptance, the exact prior bytes are restored, files that did
 * not exist are removed (and directories the apply created), and the evidence stays in the store.
 * A rollback that fails is its own hard error (`patch/rollback-failed`, exit 70).
 */
import { mkdirSync, readdirSync, rmdirSync, statSync, unlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { readTerm } from '../coreform/read.js';
import { kw, mapGet, type MapTerm, type Term } from '../coreform/term.js';
import { writeFileAtomic } from '../util/atomic.js';
import { bytesEqual } from '../util/bytes.js';
import { ExitCode, GcError, ioError, isGcError } from '../util/errors.js';
import { lineColumn } from '../coreform/read.js';
import { resolveManifestPath } from '../workspace/package.js';
import { EvidenceStore, type StoreLimits } from '../store/store.js';
import { builtinAcceptance, resolveRunner, runObligationRunner, validateAcceptance } from './acceptance.js';
import { applyOpsInMemory } from './apply-ops.js';
import { applyReport, applyReportRequest } from './apply-report.js';
import { PatchCode, patchError } from './errors.js';
import { inspectPathStates, loadPackageState, modulePathOnDisk, packStateOnDisk, readIfExists } from './host.js';
import { normalizeReport, normalizeRequest, type NormalizedPatch } from './normalize.js';
import { verifyNormalizeReport } from './normalize-verify.js';
import { opReferencedPaths, preflightReport, preflightRequest } from './preflight.js';
import { ModuleRenderer } from './render.js';
import { verifyPreflightReport } from './preflight-verify.js';

/** Options of {@link applyPatch}. */
export interface ApplyOptions {
  /** `package.toml`, or the package directory. */
  pkg: string;
  /** The `.gcpatch` file to read (or give `patch`). */
  patchFile?: string;
  /** An already-read source patch term. */
  patch?: Term;
  /** Obligation runner command; defaults to `GCPATCH_OBLIGATION_RUNNER`. See `acceptance.ts`. */
  obligationRunner?: string;
  /** Runner timeout in milliseconds (default 10 minutes). */
  runnerTimeoutMs?: number;
  /** Store bounds (defaults of GENESIS_FACTS.md §5). */
  storeLimits?: Partial<StoreLimits>;
  /**
   * Fault-injection hook, called before every step that can fail halfway: `store:patch`,
   * `op:<i>:<name>`, `write:<path>`, `remove:<path>`, `pack:write-manifest`,
   * `pack:store-package-record`, `store:acceptance`, `write:last_acceptance`, `store:apply-report`,
   * `after-report-stored`. Throwing from it fails the apply at that point (tests use this).
   */
  faults?: (step: string) => void;
  /**
   * Write every touched module as the canonical print of its forms (the reference's whole-module
   * rewrite) instead of editing its text in place (default false: keep the author's formatting;
   * see `render.ts`). The forms, hashes and all evidence are the same either way.
   */
  canonical?: boolean;
}

/** A committed apply. Artifacts are store addresses (hex64); hashes are hash-term hex64. */
export interface ApplyResult {
  ok: true;
  packageDir: string;
  manifestFile: string;
  patchH: string;
  sourcePatchH: string;
  patchArtifact: string;
  packageArtifact: string;
  acceptanceArtifact: string;
  reportArtifact: string;
  report: MapTerm;
  acceptance: MapTerm;
  /** Module paths written or removed, sorted. */
  changedPaths: string[];
  /**
   * Modules written in canonical print although their text was to be kept, because the edited text
   * did not read back as the expected forms (`render.ts`): path and reason, sorted by path.
   */
  canonicalFallbacks: { path: string; reason: string }[];
}

/** Reads and parses a `.gcpatch` file (`parse_term`, not canonicalized). @throws GcError `core/parse/*` with file:line:col, `io/*`. */
export function readPatchFile(file: string): Term {
  const bytes = readIfExists(file);
  if (bytes === undefined) throw ioError(Object.assign(new Error('no such file'), { code: 'ENOENT' }), file, 'read patch');
  try {
    return readTerm(bytes);
  } catch (error) {
    if (isGcError(error)) {
      const loc = error.location.offset !== undefined && error.location.line === undefined ? lineColumn(bytes, error.location.offset) : {};
      throw error.withLocation({ file, ...loc });
    }
    throw error;
  }
}

/**
 * Normalizes a source patch through the producer and checks the report with the independent
 * verifier (the host never trusts an unverified plan).
 * @throws GcError `patch/*` (exit 10) or `patch/report-mismatch` (exit 50).
 */
export function normalizeVerified(source: Term): NormalizedPatch {
  const request = normalizeRequest(source);
  return verifyNormalizeReport(request, normalizeReport(request));
}

/**
 * Reads a `.gcpatch` file and normalizes it (verified); errors carry the file name.
 * @throws GcError as {@link readPatchFile} and {@link normalizeVerified}, with `location.file`.
 */
export function normalizePatchFile(file: string): NormalizedPatch {
  const source = readPatchFile(file);
  try {
    return normalizeVerified(source);
  } catch (error) {
    if (isGcError(error) && error.location.file === undefined) throw error.withLocation({ file });
    throw error;
  }
}

interface Snapshot {
  files: Map<string, Uint8Array | undefined>;
  createdDirs: string[];
}

function ensureParentDirs(packageDir: string, file: string, snapshot: Snapshot): void {
  const missing: string[] = [];
  for (let dir = dirname(file); dir.length > packageDir.length && dir.startsWith(packageDir); dir = dirname(dir)) {
    try {
      statSync(dir);
      break;
    } catch {
      missing.push(dir);
    }
  }
  if (missing.length === 0) return;
  try {
    mkdirSync(dirname(file), { recursive: true });
  } catch (error) {
    throw ioError(error, dirname(file), 'create directory');
  }
  snapshot.createdDirs.push(...missing.reverse());
}

/**
 * Restores every snapshotted file to its exact prior bytes (or removes it if it did not exist) and
 * removes directories the apply created (deepest first, only when empty).
 * @throws GcError `patch/rollback-failed` (exit 70) listing every path that could not be restored.
 */
function rollback(snapshot: Snapshot, cause: unknown): void {
  const problems: string[] = [];
  for (const [file, before] of snapshot.files) {
    try {
      const now = readIfExists(file);
      if (before === undefined) {
        if (now !== undefined) unlinkSync(file);
      } else if (now === undefined || !bytesEqual(now, before)) {
        writeFileAtomic(file, before);
      }
    } catch (error) {
      problems.push(`${file}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  for (const dir of [...snapshot.createdDirs].reverse()) {
    try {
      if (readdirSync(dir).length === 0) rmdirSync(dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') problems.push(`${dir}: ${(error as Error).message}`);
    }
  }
  if (problems.length > 0) {
    const original = isGcError(cause) ? `${cause.code}: ${cause.message}` : String(cause);
    throw new GcError(PatchCode.rollbackFailed, `rollback after a failed apply (${original}) could not restore: ${problems.join('; ')}`, {
      exitCode: ExitCode.io,
      cause,
      details: { problems },
    });
  }
}

/**
 * Applies a patch to a package on disk, transactionally.
 * @returns the committed result (report and artifacts).
 * @throws GcError
 *   - `patch/*` schema and op errors, `core/parse/*`, `manifest/*` (exit 10) — package untouched;
 *   - `patch/path-state-conflict` (exit 10) with the conflict record in `details`;
 *   - `patch/symlink-path`, `patch/non-portable-path` (exit 10) before any access to the path;
 *   - `patch/obligations-failed` (exit 30) when acceptance is `:ok false` (rolled back; `details`
 *     carries the report, acceptance, package and patch artifacts); runner errors (exit 30);
 *   - `patch/report-mismatch` (exit 50); `io/*`, `core/store/*` (exit 70/50), rolled back;
 *   - `patch/rollback-failed` (exit 70) when the package could not be restored.
 */
export function applyPatch(options: ApplyOptions): ApplyResult {
  const faults = options.faults ?? (() => {});
  // 1. normalize
  const plan = options.patch !== undefined ? normalizeVerified(options.patch) : normalizePatchFile(options.patchFile ?? '');
  // 2. manifest + preflight (symlinks and non-portable paths are rejected before any mutation)
  const manifestFile = resolveManifestPath(options.pkg);
  const packageDir = dirname(manifestFile);
  const manifestBytes = readIfExists(manifestFile);
  if (manifestBytes === undefined) throw ioError(Object.assign(new Error('no such file'), { code: 'ENOENT' }), manifestFile, 'read');
  const manifestText = Buffer.from(manifestBytes).toString('utf8');
  const paths = opReferencedPaths(plan.ops);
  const request = preflightRequest(plan.normalized, inspectPathStates(packageDir, paths));
  const preflight = verifyPreflightReport(request, preflightReport(request));
  if (!preflight.ok) {
    const c = preflight.conflict!;
    throw patchError(
      PatchCode.pathStateConflict,
      `op ${c.ordinal} (${c.op}) needs ${c.path} to be ${c.expected}, but it is ${c.actual}`,
      { at: `op ${c.ordinal}`, details: { conflict: c } },
    );
  }
  const before = loadPackageState(packageDir, manifestText, manifestFile, paths);
  // 3. snapshot
  const lastAcceptanceFile = join(packageDir, '.genesis', 'last_acceptance');
  const snapshot: Snapshot = { files: new Map(), createdDirs: [] };
  snapshot.files.set(manifestFile, manifestBytes);
  for (const p of paths) {
    const file = modulePathOnDisk(packageDir, p);
    snapshot.files.set(file, readIfExists(file));
  }
  snapshot.files.set(lastAcceptanceFile, readIfExists(lastAcceptanceFile));
  const store = EvidenceStore.forPackage(packageDir, { limits: options.storeLimits ?? {} });
  let committed: ApplyResult | undefined;
  let obligationsFailure: GcError | undefined;
  try {
    // 4. store the normalized patch
    faults('store:patch');
    const patchArtifact = store.putTerm(plan.normalized);
    // 5. ops, in memory, then the touched files
    const { state: after, semanticEdits } = applyOpsInMemory(before, plan, { faults });
    const changedPaths: string[] = [];
    const canonicalFallbacks: { path: string; reason: string }[] = [];
    const renderer = new ModuleRenderer(new Map(paths.map((p) => [p, snapshot.files.get(modulePathOnDisk(packageDir, p))])));
    for (const p of paths) {
      const file = modulePathOnDisk(packageDir, p);
      const forms = after.modules.get(p);
      if (forms !== undefined) {
        faults(`write:${p}`);
        ensureParentDirs(packageDir, file, snapshot);
        const rendered = renderer.render(p, forms, { canonical: options.canonical === true });
        if (rendered.fallback !== undefined) canonicalFallbacks.push({ path: p, reason: rendered.fallback });
        writeFileAtomic(file, rendered.bytes);
        changedPaths.push(p);
      } else if (snapshot.files.get(file) !== undefined) {
        faults(`remove:${p}`);
        try {
          unlinkSync(file);
        } catch (error) {
          throw ioError(error, file, 'remove');
        }
        changedPaths.push(p);
      }
    }
    // 6. pack
    const packed = packStateOnDisk(packageDir, manifestFile, after, { faults, store });
    // 7. acceptance
    const runner = resolveRunner(options.obligationRunner);
    let acceptance: MapTerm;
    if (runner !== undefined) {
      const term = runObligationRunner(
        runner,
        packageDir,
        { manifestFile, packageArtifact: packed.packageArtifact, obligations: packed.manifest.obligations },
        options.runnerTimeoutMs,
      );
      validateAcceptance(term, packed.manifest, store);
      acceptance = term as MapTerm;
    } else {
      acceptance = builtinAcceptance(packageDir, packed.manifest);
    }
    faults('store:acceptance');
    const acceptanceArtifact = store.putTerm(acceptance);
    faults('write:last_acceptance');
    ensureParentDirs(packageDir, lastAcceptanceFile, snapshot);
    writeFileAtomic(lastAcceptanceFile, `${acceptanceArtifact}\n`);
    // 8. apply report
    const reportRequest = applyReportRequest({
      patch: plan.normalized,
      sourcePatchH: plan.sourcePatchH,
      packageArtifact: packed.packageArtifact,
      acceptanceArtifact,
      acceptance,
      semanticEdits,
    });
    const report = applyReport(reportRequest);
    faults('store:apply-report');
    const reportArtifact = store.putTerm(report);
    faults('after-report-stored');
    const ok = mapGet(acceptance, kw('ok'));
    const artifacts = { patchArtifact, packageArtifact: packed.packageArtifact, acceptanceArtifact, reportArtifact };
    if (ok?.kind !== 'bool' || !ok.value) {
      obligationsFailure = new GcError(PatchCode.obligationsFailed, obligationsMessage(acceptance, runner !== undefined, reportArtifact), {
        exitCode: ExitCode.obligationsFailed,
        details: { ...artifacts, failedObligations: failedObligations(acceptance) },
      });
      throw obligationsFailure;
    }
    committed = {
      ok: true,
      packageDir,
      manifestFile,
      patchH: plan.patchH,
      sourcePatchH: plan.sourcePatchH,
      ...artifacts,
      report,
      acceptance,
      changedPaths: changedPaths.sort(),
      canonicalFallbacks: canonicalFallbacks.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)),
    };
  } catch (error) {
    rollback(snapshot, error);
    throw error;
  }
  return committed;
}

function failedObligations(acceptance: MapTerm): { name: string; errors: string[] }[] {
  const obligations = mapGet(acceptance, kw('obligations'));
  if (obligations?.kind !== 'vec') return [];
  const out: { name: string; errors: string[] }[] = [];
  for (const r of obligations.items) {
    if (r.kind !== 'map') continue;
    const ok = mapGet(r, kw('ok'));
    if (ok?.kind === 'bool' && ok.value) continue;
    const name = mapGet(r, kw('name'));
    const errors = mapGet(r, kw('errors'));
    out.push({
      name: name?.kind === 'sym' ? name.name : '?',
      errors: errors?.kind === 'vec' ? errors.items.map((e) => (e.kind === 'str' ? e.value : '')) : [],
    });
  }
  return out;
}

function obligationsMessage(acceptance: MapTerm, hadRunner: boolean, reportArtifact: string): string {
  const failed = failedObligations(acceptance).map((f) => f.name);
  const base = `acceptance is :ok false (failed: ${failed.join(', ')}); the package was rolled back, evidence kept (apply report ${reportArtifact})`;
  return hadRunner
    ? base
    : `${base}. No obligation runner was given, so gcpatch could not evaluate the declared obligations — ` +
        'pass --obligation-runner CMD or set GCPATCH_OBLIGATION_RUNNER (a package with obligations = [] applies without one)';
}
