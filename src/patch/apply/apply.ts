/**
 * `gcpatch apply`: the transactional on-disk apply (GenesisCode `docs/spec/PATCH_SCHEMA.md`; docs/reference/patch-protocols.md §3.7).
 *
 * Pipeline, top to bottom in {@link applyPatch}: normalize (producer + verifier) → host path checks
 * → package lock and recovery → preflight (host path states, producer + verifier) → store the
 * normalized patch → ops and pack in memory → the journaled transaction writes the touched modules
 * and `package.toml` → package record stored → acceptance (runner or gcpatch's own) stored,
 * `last_acceptance` written → apply report stored → commit point.
 * On any failure, or an `:ok false` acceptance, the transaction rolls back (see `transaction.ts`),
 * and the evidence stays in the store. A rollback that fails is its own hard error
 * (`patch/rollback-failed`, exit 70) and keeps the journal for `gcpatch recover`.
 */
import { basename, dirname } from 'node:path';
import { readTerm } from '../../coreform/read.js';
import { kw, mapGet, type MapTerm, type Term } from '../../coreform/term.js';
import { ExitCode, GcError, ioError, isGcError } from '../../util/errors.js';
import { lineColumn } from '../../coreform/read.js';
import { resolveManifestPath } from '../../workspace/package.js';
import { EvidenceStore, type StoreLimits } from '../../store/store.js';
import { builtinAcceptance, resolveRunner, runObligationRunner, validateAcceptance, type KnownModuleTexts } from '../acceptance/acceptance.js';
import { GENESIS_RUNNER, LAST_ACCEPTANCE, runGenesisTest } from '../acceptance/genesis-test.js';
import { applyOpsInMemory } from '../ops/apply-ops.js';
import { applyReport, applyReportRequest } from './apply-report.js';
import { PatchCode, patchError } from '../protocol/errors.js';
import {
  assertNoPathCollision,
  assertPatchPath,
  assertReplaceableTarget,
  inspectPathStates,
  loadPackageState,
  packPackageState,
  readIfExists,
  type LoadedModuleText,
} from './host.js';
import { withPackageLock } from '../guard.js';
import { PackageTransaction, SimulatedCrash, type PlannedWrite } from '../transaction.js';
import { normalizeReport, normalizeRequest, type NormalizedPatch } from '../protocol/normalize.js';
import { verifyNormalizeReport } from '../protocol/normalize-verify.js';
import { opReferencedPaths, preflightReport, preflightRequest, type PathStateRecord } from '../protocol/preflight.js';
import type { PackageState } from '../protocol/state.js';
import { verifyPreflightReport } from '../protocol/preflight-verify.js';
import { ModuleRenderer } from '../render/render.js';

/** Options of {@link applyPatch}. */
export interface ApplyOptions {
  /** `package.toml`, or the package directory. */
  pkg: string;
  /** The `.gcpatch` file to read (or give `patch`). */
  patchFile?: string;
  /** An already-read source patch term. */
  patch?: Term;
  /**
   * Obligation runner: `genesis` (the GenesisCode CLI's `genesis test`, `genesis-test.ts`) or a shell
   * command (`acceptance.ts`); defaults to `GCPATCH_OBLIGATION_RUNNER`.
   */
  obligationRunner?: string;
  /** Runner timeout in milliseconds (default 10 minutes). */
  runnerTimeoutMs?: number;
  /** Store bounds (defaults of docs/reference/evidence-store.md §5). */
  storeLimits?: Partial<StoreLimits>;
  /**
   * Fault-injection hook, called before every step that can fail halfway: `store:patch`,
   * `op:<i>:<name>`, `write:<path>`, `remove:<path>`, `pack:write-manifest`,
   * `pack:store-package-record`, `store:acceptance` and `write:last_acceptance` (or, with the
   * genesis runner, `backup:.genesis/last_acceptance` and `runner:genesis`), `store:apply-report`,
   * `after-report-stored`, and the transaction's own steps (`journal:open`, `stage:<path>`,
   * `backup:<path>`, `journal:extend`, `journal:committed`, `cleanup`, `rollback:<path>`).
   * Throwing from it fails the apply at that point (rolled back); throwing a
   * {@link SimulatedCrash} stops it dead, like `kill -9`, leaving the journal (tests use this).
   */
  faults?: (step: string) => void;
  /** Wait for a live lock owner, in milliseconds (default 0: fail at once with `patch/package-locked`). */
  lockWaitMs?: number;
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

/** `:intent` of the patch `gcpatch accept` applies. */
export const ACCEPT_INTENT = 'accept the package as it is';

/**
 * `gcpatch accept`: applies the patch with no ops, `{:version 1 :intent "accept the package as it
 * is" :provenance {:tool "gcpatch accept"} :ops []}`, through {@link applyPatch}. So the package is
 * re-pinned, its obligations run (runner or gcpatch's own check) on the package as it is, and the
 * apply report links the new acceptance to its package record — what `gcpatch audit` needs after a
 * hand edit or a merge (docs/reference/genesis-cli.md "Which package an acceptance is for").
 * @returns and @throws as {@link applyPatch} (exit 30 when the acceptance is `:ok false`, rolled back).
 * @example acceptPackage({ pkg: 'ledger', obligationRunner: 'genesis' })
 */
export function acceptPackage(options: Omit<ApplyOptions, 'patch' | 'patchFile' | 'canonical'>): ApplyResult {
  const patch = readTerm(`{:version 1 :intent ${JSON.stringify(ACCEPT_INTENT)} :provenance {:tool "gcpatch accept"} :ops []}`);
  return applyPatch({ ...options, patch });
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

/**
 * Applies a patch to a package on disk as one journaled transaction (`transaction.ts`), holding
 * the package lock (`lock.ts`) from before the package is read until the commit or rollback.
 *
 * Order: normalize → every op path checked at the host boundary (`patch/reserved-path`,
 * `patch/non-portable-path`, before any access) and the replaced files checked for links →
 * lock + recovery of an interrupted transaction → preflight → ops in memory → the planned writes
 * (module path → `printModule(forms)` or removal, `package.toml` → the packed manifest) committed
 * by the transaction → package record stored → acceptance (runner or gcpatch's own) on the new
 * files → `last_acceptance` written in the same transaction → apply report stored → commit point.
 * On any failure, or an `:ok false` acceptance, the transaction rolls back: the exact prior bytes,
 * modes and inodes come back, files that did not exist and directories the apply created are
 * removed; the evidence stays in the store. A crash leaves the journal, and the next gcpatch
 * command on the package rolls it back (or, past the commit point, finishes it).
 * @returns the committed result (report and artifacts).
 * @throws GcError
 *   - `patch/*` schema and op errors, `core/parse/*`, `manifest/*` (exit 10) — package untouched;
 *   - `patch/path-state-conflict` (exit 10) with the conflict record in `details`;
 *   - `patch/reserved-path`, `patch/non-portable-path`, `patch/symlink-path` (exit 10) before any
 *     access to the path; `patch/path-collision` (exit 10) when one op path is a directory on the
 *     way to another; `patch/symlink-target` (exit 10) for a symlinked `package.toml` or
 *     `.genesis/last_acceptance`;
 *   - `patch/package-locked` (exit 70) when another live process holds the package lock;
 *   - `patch/recovery-conflict` (exit 50), `patch/journal-invalid` (exit 70) from recovery;
 *   - `patch/obligations-failed` (exit 30) when acceptance is `:ok false` (rolled back; `details`
 *     carries the report, acceptance, package and patch artifacts); runner errors (exit 30);
 *   - `patch/report-mismatch` (exit 50); `io/*`, `core/store/*` (exit 70/50), rolled back;
 *   - `patch/rollback-failed` (exit 70) when the package could not be restored (journal kept).
 */
export function applyPatch(options: ApplyOptions): ApplyResult {
  const faults = options.faults ?? (() => {});
  // 1. normalize; every path refused at the host boundary before anything else
  const plan = options.patch !== undefined ? normalizeVerified(options.patch) : normalizePatchFile(options.patchFile ?? '');
  const paths = opReferencedPaths(plan.ops);
  for (const p of paths) assertPatchPath(p);
  assertNoPathCollision(paths);
  const manifestFile = resolveManifestPath(options.pkg);
  const packageDir = dirname(manifestFile);
  const manifestName = basename(manifestFile);
  assertReplaceableTarget(packageDir, manifestName);
  assertReplaceableTarget(packageDir, LAST_ACCEPTANCE);
  return withPackageLock(packageDir, { waitMs: options.lockWaitMs ?? 0, command: 'apply', fault: faults }, () =>
    applyLocked(options, plan, paths, packageDir, manifestFile, manifestName, faults),
  );
}

function applyLocked(
  options: ApplyOptions,
  plan: NormalizedPatch,
  paths: string[],
  packageDir: string,
  manifestFile: string,
  manifestName: string,
  faults: (step: string) => void,
): ApplyResult {
  // 2. manifest + preflight (symlinks and non-portable paths are rejected before any mutation)
  const manifestBytes = readIfExists(manifestFile);
  if (manifestBytes === undefined) throw ioError(Object.assign(new Error('no such file'), { code: 'ENOENT' }), manifestFile, 'read');
  const manifestText = Buffer.from(manifestBytes).toString('utf8');
  const pathStates = preflightOnDisk(plan, packageDir, paths);
  const originals = new Map<string, LoadedModuleText>();
  const before = loadPackageState(packageDir, manifestText, manifestFile, paths, originals, pathStates);
  const store = EvidenceStore.forPackage(packageDir, { limits: options.storeLimits ?? {} });
  const tx = PackageTransaction.begin(packageDir, 'apply', faults);
  let committed: ApplyResult | undefined;
  let obligationsFailure: GcError | undefined;
  try {
    // 3. store the normalized patch
    faults('store:patch');
    const patchArtifact = store.putTerm(plan.normalized);
    // 4. ops and pack, in memory: the planned writes (which bytes go to which path)
    const { state: after, semanticEdits } = applyOpsInMemory(before, plan, { faults });
    const { writes, changedPaths, canonicalFallbacks, known } = moduleWrites(paths, before, after, originals, options.canonical === true);
    const packed = packPackageState(packageDir, after);
    writes.push({ path: manifestName, bytes: Buffer.from(packed.manifestText, 'utf8'), step: 'pack:write-manifest' });
    // 5. commit the files through the journal (still open: acceptance may roll them back)
    tx.write(writes);
    faults('pack:store-package-record');
    store.putTerm(packed.packageRecord);
    // 6. acceptance, on the new files; `last_acceptance` written in the transaction
    const runner = resolveRunner(options.obligationRunner);
    const { acceptance, acceptanceArtifact } = acceptOnDisk(runner, {
      packageDir,
      manifestFile,
      packed,
      store,
      tx,
      faults,
      known,
      timeoutMs: options.runnerTimeoutMs,
    });
    // 7. apply report
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
    // 8. the commit point
    tx.commit();
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
    if (!(error instanceof SimulatedCrash)) tx.rollback(error);
    throw error;
  }
  return committed;
}

/**
 * Step 2 of the apply: the path-state preflight on the package as it is on disk (symlinks and
 * non-portable paths are rejected here, before any mutation).
 * @returns the path states the preflight checked, for loading the package.
 * @throws GcError `patch/path-state-conflict` (exit 10) naming the op, the path and both states.
 */
function preflightOnDisk(plan: NormalizedPatch, packageDir: string, paths: string[]): PathStateRecord[] {
  const pathStates = inspectPathStates(packageDir, paths);
  const request = preflightRequest(plan.normalized, pathStates);
  const preflight = verifyPreflightReport(request, preflightReport(request));
  if (!preflight.ok) {
    const c = preflight.conflict!;
    throw patchError(PatchCode.pathStateConflict, `op ${c.ordinal} (${c.op}) needs ${c.path} to be ${c.expected}, but it is ${c.actual}`, {
      at: `op ${c.ordinal}`,
      details: { conflict: c },
    });
  }
  return pathStates;
}

/** The module writes of an apply (step 4), and what the acceptance may reuse. */
interface ModuleWrites {
  /** Which bytes go to which op path (`undefined`: remove it). */
  writes: PlannedWrite[];
  changedPaths: string[];
  /** Modules written in canonical print although their text was to be kept, and why. */
  canonicalFallbacks: { path: string; reason: string }[];
  /** The texts whose canonical forms are known: as loaded, then as rendered and read back. */
  known: Map<string, { bytes: Uint8Array; forms: readonly Term[] }>;
}

/**
 * Renders every op path's module of `after` (format-preserving, or canonical with `canonical`)
 * into planned writes; a module `before` had and `after` has not is removed. Every op path that is
 * a file was read (under the lock) by loadPackageState into `originals`, with its node spans.
 */
function moduleWrites(
  paths: readonly string[],
  before: PackageState,
  after: PackageState,
  originals: Map<string, LoadedModuleText>,
  canonical: boolean,
): ModuleWrites {
  const out: ModuleWrites = { writes: [], changedPaths: [], canonicalFallbacks: [], known: new Map(originals) };
  const renderer = new ModuleRenderer(new Map(paths.map((p) => [p, originals.get(p)?.bytes])), originals);
  for (const p of paths) {
    const forms = after.modules.get(p);
    out.known.delete(p);
    if (forms !== undefined) {
      const rendered = renderer.render(p, forms, { canonical });
      if (rendered.fallback !== undefined) out.canonicalFallbacks.push({ path: p, reason: rendered.fallback });
      if (rendered.readBack) out.known.set(p, { bytes: rendered.bytes, forms });
      out.writes.push({ path: p, bytes: rendered.bytes });
      out.changedPaths.push(p);
    } else if (before.modules.has(p)) {
      out.writes.push({ path: p, bytes: undefined });
      out.changedPaths.push(p);
    }
  }
  return out;
}

/** What step 6 of the apply needs: the package, its packed state, the store and the open transaction. */
interface AcceptanceContext {
  packageDir: string;
  manifestFile: string;
  packed: ReturnType<typeof packPackageState>;
  store: EvidenceStore;
  tx: PackageTransaction;
  faults: (step: string) => void;
  known: KnownModuleTexts;
  timeoutMs: number | undefined;
}

/**
 * Step 6 of the apply: the acceptance of the new files, with `last_acceptance` written in the
 * transaction. The genesis runner writes the pointer itself, so its old bytes are journaled first
 * (a rollback restores them); any other runner's acceptance is stored and the pointer written here.
 */
function acceptOnDisk(runner: string | undefined, c: AcceptanceContext): { acceptance: MapTerm; acceptanceArtifact: string } {
  if (runner === GENESIS_RUNNER) {
    c.tx.admitExternalWrite(LAST_ACCEPTANCE);
    c.faults('runner:genesis');
    const run = runGenesisTest(c.packageDir, c.manifestFile, c.packed.manifest, c.store, c.timeoutMs);
    return { acceptance: run.acceptance, acceptanceArtifact: run.acceptanceArtifact };
  }
  const acceptance = runnerAcceptance(runner, c.packageDir, c.manifestFile, c.packed, c.store, c.timeoutMs, c.known);
  c.faults('store:acceptance');
  const acceptanceArtifact = c.store.putTerm(acceptance);
  c.tx.write([{ path: LAST_ACCEPTANCE, bytes: Buffer.from(`${acceptanceArtifact}\n`, 'utf8'), step: 'write:last_acceptance' }]);
  return { acceptance, acceptanceArtifact };
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

/** The acceptance of a shell-command runner (validated), or gcpatch's own when there is none. */
function runnerAcceptance(
  runner: string | undefined,
  packageDir: string,
  manifestFile: string,
  packed: ReturnType<typeof packPackageState>,
  store: EvidenceStore,
  timeoutMs: number | undefined,
  known: KnownModuleTexts,
): MapTerm {
  if (runner === undefined) return builtinAcceptance(packageDir, packed.manifest, known);
  const term = runObligationRunner(
    runner,
    packageDir,
    { manifestFile, packageArtifact: packed.packageArtifact, obligations: packed.manifest.obligations },
    timeoutMs,
  );
  validateAcceptance(term, packed.manifest, store);
  return term as MapTerm;
}

/**
 * The exit-30 message: what failed, that nothing changed, where the evidence is and that it is not
 * to be committed (it backs no change), and — without a runner — how to get the obligations run.
 */
function obligationsMessage(acceptance: MapTerm, hadRunner: boolean, reportArtifact: string): string {
  const failed = failedObligations(acceptance).map((f) => f.name);
  const base =
    `acceptance is :ok false (failed: ${failed.join(', ')}); the package was rolled back. ` +
    `The failed attempt's evidence stays in .genesis/store (apply report ${reportArtifact}) for inspection; it backs no change, so do not commit it (\`gcpatch store prune --yes\` removes it)`;
  return hadRunner
    ? `${base}. Fix what failed and apply again`
    : `${base}. No obligation runner was given, so gcpatch could not evaluate the declared obligations: ` +
        'install the GenesisCode CLI (`genesis` on PATH) and pass --obligation-runner genesis (or set GCPATCH_OBLIGATION_RUNNER=genesis), ' +
        'or give your own runner command (the contract: docs/patches.md "Acceptance and the obligation runner"). A package with obligations = [] applies without one';
}
