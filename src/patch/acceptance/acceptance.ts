/**
 * Acceptance: the `genesis/acceptance-v0.2` term that decides whether an apply commits
 * (docs/reference/patch-protocols.md §3.7 step 7, §4 "Acceptance artifact").
 *
 * gcpatch cannot evaluate GenesisCode programs, so obligations run through an external runner:
 * `--obligation-runner genesis` runs the GenesisCode CLI's `genesis test` and takes the acceptance
 * it records (`genesis-test.ts`, docs/reference/genesis-cli.md); any other
 * `--obligation-runner CMD` (or `GCPATCH_OBLIGATION_RUNNER`) is run through the shell in the package
 * directory and must print one acceptance term on stdout. Without a runner, gcpatch builds the
 * acceptance from what it can check itself — every module parses, canonicalizes and matches its new
 * pin (obligation `gcpatch/obligation::canonical-pins`) — and records every declared obligation as
 * not evaluated, `:ok false`, with an error saying so. It never reports an unevaluated obligation
 * as passed, so a package that declares obligations cannot be applied without a runner (exit 30).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { canonicalizeSource } from '../../coreform/canon.js';
import { hashModule } from '../../coreform/hash.js';
import { readTerm } from '../../coreform/read.js';
import { bool, kw, kwMap, mapGet, str, sym, vec, type MapTerm, type Term } from '../../coreform/term.js';
import { bytesEqual, isHex64 } from '../../util/bytes.js';
import { moduleHash } from '../protocol/module-memo.js';
import { ExitCode, GcError } from '../../util/errors.js';
import type { Manifest } from '../../workspace/manifest.js';
import type { EvidenceStore } from '../../store/store.js';
import type { StaticCode } from '../../util/codes.js';

/** `:kind` of an acceptance term. */
export const ACCEPTANCE_KIND = 'genesis/acceptance-v0.2';
/** The obligation name of gcpatch's own structural check. */
export const CANONICAL_PINS_OBLIGATION = 'gcpatch/obligation::canonical-pins';
/** Environment variable naming the obligation runner command. */
export const RUNNER_ENV = 'GCPATCH_OBLIGATION_RUNNER';

/** Acceptance failure codes (exit 30); what each means is in the registry, `src/util/codes.ts`. */
export const AcceptanceCode = { runnerFailed: 'patch/obligation-runner-failed', invalid: 'patch/acceptance-invalid' } as const satisfies Record<
  string,
  StaticCode
>;

/** The message recorded for each declared obligation when no runner is configured. */
export const NOT_EVALUATED_MESSAGE =
  'not evaluated: gcpatch cannot evaluate GenesisCode programs; pass --obligation-runner genesis (the GenesisCode CLI on PATH) or --obligation-runner CMD (or set GCPATCH_OBLIGATION_RUNNER) to run this obligation';

/**
 * The runner: the explicit option, else `GCPATCH_OBLIGATION_RUNNER`, else undefined (blank = none).
 * `genesis` (spaces around it ignored) selects the GenesisCode CLI (`genesis-test.ts`); anything else
 * is a shell command.
 */
export function resolveRunner(option: string | undefined, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const cmd = option ?? env[RUNNER_ENV];
  if (cmd === undefined || cmd.trim() === '') return undefined;
  return cmd.trim() === 'genesis' ? 'genesis' : cmd;
}

function obligationRecord(name: string, ok: boolean, errors: string[]): MapTerm {
  const fields: Record<string, Term> = { name: sym(name), ok: bool(ok) };
  if (errors.length > 0) fields.errors = vec(errors.map(str));
  return kwMap(fields);
}

/**
 * Module texts whose canonical forms this process has already read: module path → the bytes and
 * `canonicalizeSource(bytes)` (or forms structurally equal to it, element by element). Only ever a
 * shortcut: {@link builtinAcceptance} uses an entry when the file on disk holds exactly these bytes.
 */
export type KnownModuleTexts = ReadonlyMap<string, { bytes: Uint8Array; forms: readonly Term[] }>;

/**
 * gcpatch's own acceptance (no runner): re-reads every listed module from `packageDir`, checks that
 * it parses, canonicalizes and hashes to its pin in `manifest`; then one `:ok false` record per
 * declared obligation. `:ok` is true only when there are no declared obligations and the check passed.
 * @param known texts already read in this process (the apply's loaded and rendered modules): a file
 *   whose bytes equal an entry's is hashed from the entry's forms (`module-memo.ts`) instead of being
 *   read into forms again; the hash is the same, as the reader is a function of the bytes.
 */
export function builtinAcceptance(packageDir: string, manifest: Manifest, known?: KnownModuleTexts): MapTerm {
  const errors: string[] = [];
  for (const m of manifest.modules) {
    try {
      const bytes = readFileSync(join(packageDir, ...m.path.split('/')));
      const seen = known?.get(m.path);
      const hash = seen !== undefined && bytesEqual(seen.bytes, bytes) ? moduleHash(seen.forms) : hashModule(canonicalizeSource(bytes));
      if (hash !== m.hash) errors.push(`${m.path}: module hash ${hash} does not match its pin ${m.hash ?? '(none)'}`);
    } catch (error) {
      errors.push(`${m.path}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  const records = [obligationRecord(CANONICAL_PINS_OBLIGATION, errors.length === 0, errors)];
  for (const name of manifest.obligations) records.push(obligationRecord(name, false, [NOT_EVALUATED_MESSAGE]));
  return acceptanceTerm(manifest, records);
}

/** `{:kind :ok :package {:name :version} :obligations records}` with `:ok` = every record ok. */
export function acceptanceTerm(manifest: Manifest, records: MapTerm[]): MapTerm {
  const ok = records.every((r) => mapGet(r, kw('ok'))?.kind === 'bool' && (mapGet(r, kw('ok')) as { value: boolean }).value);
  return kwMap({
    kind: str(ACCEPTANCE_KIND),
    ok: bool(ok),
    package: kwMap({ name: str(manifest.name), version: str(manifest.version) }),
    obligations: vec(records),
  });
}

function invalid(message: string): GcError {
  return new GcError(AcceptanceCode.invalid, `obligation runner acceptance rejected: ${message}`, { exitCode: ExitCode.obligationsFailed });
}

/**
 * Checks an acceptance term: kind, Bool `:ok`, `:package` naming this package, obligation records
 * `{:name sym :ok bool :artifact? hex :errors? [str]}`, `:ok` equal to "every record ok", every
 * referenced artifact present and intact in `store`, and — when `:ok` is true — every declared
 * obligation present (a failed acceptance may stop early: the reference records only the failed
 * preflight when a package does not load; docs/reference/genesis-cli.md).
 * @returns the acceptance's `:ok`.
 * @throws GcError `patch/acceptance-invalid` (exit 30).
 */
export function validateAcceptance(t: Term, manifest: Manifest, store: EvidenceStore | undefined): boolean {
  if (t.kind !== 'map') throw invalid('it is not a map');
  const get = (m: MapTerm, k: string) => mapGet(m, kw(k));
  const kind = get(t, 'kind');
  if (kind?.kind !== 'str' || kind.value !== ACCEPTANCE_KIND) throw invalid(`:kind must be "${ACCEPTANCE_KIND}"`);
  const ok = get(t, 'ok');
  if (ok?.kind !== 'bool') throw invalid(':ok must be a boolean');
  const pkg = get(t, 'package');
  const pkgName = pkg?.kind === 'map' ? get(pkg, 'name') : undefined;
  const pkgVersion = pkg?.kind === 'map' ? get(pkg, 'version') : undefined;
  if (pkgName?.kind !== 'str' || pkgName.value !== manifest.name || pkgVersion?.kind !== 'str' || pkgVersion.value !== manifest.version) {
    throw invalid(`:package must be {:name "${manifest.name}" :version "${manifest.version}"}`);
  }
  const obligations = get(t, 'obligations');
  if (obligations?.kind !== 'vec') throw invalid(':obligations must be a vector');
  const seen = new Set<string>();
  let allOk = true;
  for (const [i, r] of obligations.items.entries()) {
    if (r.kind !== 'map') throw invalid(`:obligations[${i}] must be a map`);
    const name = get(r, 'name');
    const rok = get(r, 'ok');
    if (name?.kind !== 'sym' || rok?.kind !== 'bool') throw invalid(`:obligations[${i}] needs a symbol :name and a boolean :ok`);
    for (const [k] of r.entries) {
      if (k.kind !== 'sym' || ![':name', ':ok', ':artifact', ':errors'].includes(k.name)) throw invalid(`:obligations[${i}] has unknown key`);
    }
    const artifact = get(r, 'artifact');
    if (artifact !== undefined) {
      if (artifact.kind !== 'str' || !isHex64(artifact.value)) throw invalid(`:obligations[${i}] :artifact must be hex64`);
      if (store !== undefined) {
        try {
          store.get(artifact.value);
        } catch (error) {
          throw invalid(`:obligations[${i}] :artifact ${artifact.value}: ${(error as Error).message}`);
        }
      }
    }
    const errs = get(r, 'errors');
    if (errs !== undefined && (errs.kind !== 'vec' || !errs.items.every((e) => e.kind === 'str'))) {
      throw invalid(`:obligations[${i}] :errors must be a vector of strings`);
    }
    seen.add(name.name);
    allOk &&= rok.value;
  }
  const missing = ok.value ? manifest.obligations.filter((o) => !seen.has(o)) : [];
  if (missing.length > 0) throw invalid(`declared obligations missing from the acceptance: ${missing.join(', ')}`);
  if (ok.value !== allOk) throw invalid(':ok must be true exactly when every obligation record is ok');
  return ok.value;
}

/**
 * Runs the obligation runner and parses its acceptance term.
 * @param command a shell command, run in `packageDir` with `GCPATCH_PACKAGE_DIR`,
 *   `GCPATCH_MANIFEST`, `GCPATCH_PACKAGE_ARTIFACT` and `GCPATCH_OBLIGATIONS` (space-separated) set.
 * @param timeoutMs kill the runner after this many milliseconds (default 10 minutes).
 * @throws GcError `patch/obligation-runner-failed` (exit 30) when it cannot start, times out, or
 *   prints no single CoreForm term on stdout.
 */
export function runObligationRunner(
  command: string,
  packageDir: string,
  info: { manifestFile: string; packageArtifact: string; obligations: readonly string[] },
  timeoutMs = 600_000,
): Term {
  const result = spawnSync(command, {
    cwd: packageDir,
    shell: true,
    encoding: 'utf8',
    timeout: timeoutMs,
    maxBuffer: 64 * 1024 * 1024,
    env: {
      ...process.env,
      GCPATCH_PACKAGE_DIR: packageDir,
      GCPATCH_MANIFEST: info.manifestFile,
      GCPATCH_PACKAGE_ARTIFACT: info.packageArtifact,
      GCPATCH_OBLIGATIONS: info.obligations.join(' '),
    },
  });
  const fail = (why: string) =>
    new GcError(AcceptanceCode.runnerFailed, `obligation runner ${JSON.stringify(command)} ${why}`, { exitCode: ExitCode.obligationsFailed });
  if (result.error !== undefined) throw fail(`could not run: ${result.error.message}`);
  try {
    return readTerm(result.stdout ?? '');
  } catch (error) {
    const status = result.status === null ? `was killed (${result.signal ?? 'signal'})` : `exited ${result.status}`;
    const stderr = (result.stderr ?? '').trim().split('\n').slice(-3).join(' | ');
    throw fail(`${status} without printing a genesis/acceptance-v0.2 term on stdout (${(error as Error).message})${stderr ? `; stderr: ${stderr}` : ''}`);
  }
}
