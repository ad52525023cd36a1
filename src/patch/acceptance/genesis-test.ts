/**
 * The GenesisCode CLI as the obligation runner (`--obligation-runner genesis`): runs
 * `genesis test --pkg <manifest>` and takes the acceptance it records, checked against the
 * contract restated in docs/reference/genesis-cli.md (from the GenesisCode repository's
 * `docs/spec/CLI.md` and `docs/spec/EVIDENCE_STORE.md`).
 */
import { spawnSync } from 'node:child_process';
import { lstatSync, readFileSync, type BigIntStats } from 'node:fs';
import { join } from 'node:path';
import { type MapTerm } from '../../coreform/term.js';
import type { EvidenceStore } from '../../store/store.js';
import { ExitCode, GcError, isGcError, type GcCode } from '../../util/errors.js';
import { isHex64 } from '../../util/bytes.js';
import type { StaticCode } from '../../util/codes.js';
import type { Manifest } from '../../workspace/manifest.js';
import { AcceptanceCode, validateAcceptance } from './acceptance.js';

/** The `--obligation-runner` value that selects the GenesisCode CLI. */
export const GENESIS_RUNNER = 'genesis';
/** Package-relative path of the acceptance pointer `genesis test` writes. */
export const LAST_ACCEPTANCE = '.genesis/last_acceptance';

/** Error codes of the genesis runner (exit 30); what each means is in the registry, `src/util/codes.ts`. */
export const GenesisRunnerCode = { notFound: 'patch/genesis-not-found', contract: 'patch/genesis-contract' } as const satisfies Record<string, StaticCode>;

/** Meaning of the GenesisCode CLI's exit statuses (its `docs/spec/CLI.md` "Exit Codes"). */
const STATUS_MEANING: Record<number, string> = {
  1: 'internal error',
  10: 'parse or canonicalization error (CoreForm, TOML, a module pin)',
  20: 'evaluation error',
  70: 'I/O error',
};

/** What one `genesis test` run produced. */
export interface GenesisTestRun {
  /** The acceptance term, validated against the manifest. */
  acceptance: MapTerm;
  /** Its store address (the content of `last_acceptance`). */
  acceptanceArtifact: string;
  /** The acceptance's `:ok`. */
  ok: boolean;
}

function pointerStat(file: string): BigIntStats | undefined {
  try {
    return lstatSync(file, { bigint: true });
  } catch {
    return undefined;
  }
}

/**
 * Runs `genesis test --pkg <manifestFile>` in `packageDir` (no shell; `genesis` from `PATH`, the
 * process environment passed through) and returns the acceptance it recorded.
 * Checks, in order (docs/reference/genesis-cli.md "What gcpatch does with it"): the program ran;
 * its status is 0 or 30; `.genesis/last_acceptance` is a regular file written by this run holding
 * one address; the store entry exists and hashes to its name; the term passes
 * {@link validateAcceptance} with `store`; the status agrees with `:ok`.
 * @param timeoutMs kill it after this many milliseconds (default 10 minutes).
 * @throws GcError, all exit 30: `patch/genesis-not-found`; `patch/obligation-runner-failed` (killed,
 *   or a status other than 0/30); `patch/genesis-contract` (pointer, store entry, status);
 *   `patch/acceptance-invalid` (the term).
 */
export function runGenesisTest(packageDir: string, manifestFile: string, manifest: Manifest, store: EvidenceStore, timeoutMs = 600_000): GenesisTestRun {
  const pointer = join(packageDir, ...LAST_ACCEPTANCE.split('/'));
  const command = `genesis test --pkg ${manifestFile}`;
  const fail = (code: GcCode, why: string) =>
    new GcError(code, `${command}: ${why}`, { exitCode: ExitCode.obligationsFailed, location: { file: manifestFile } });
  const before = pointerStat(pointer);
  const result = spawnSync(GENESIS_RUNNER, ['test', '--pkg', manifestFile], {
    cwd: packageDir,
    encoding: 'utf8',
    timeout: timeoutMs,
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.error !== undefined && (result.error as NodeJS.ErrnoException).code === 'ENOENT') {
    throw fail(
      GenesisRunnerCode.notFound,
      'no `genesis` program on PATH. Install the GenesisCode CLI (built from the GenesisCode repository, `crates/gc_cli`) and put it on PATH, ' +
        'or give another runner with --obligation-runner CMD (docs/patches.md "Acceptance and the obligation runner")',
    );
  }
  const stderr = (result.stderr ?? '').trim().split('\n').slice(-3).join(' | ');
  const tail = stderr === '' ? '' : `; stderr: ${stderr}`;
  if (result.error !== undefined || result.status === null) {
    const why = result.error !== undefined ? result.error.message : `was killed (${result.signal ?? 'signal'})`;
    throw fail(AcceptanceCode.runnerFailed, `${why}${tail}`);
  }
  const status = result.status;
  if (status !== 0 && status !== 30) {
    throw fail(
      AcceptanceCode.runnerFailed,
      `exited ${status} (${STATUS_MEANING[status] ?? 'not a status of the GenesisCode CLI'}) and recorded no acceptance${tail}`,
    );
  }
  const after = pointerStat(pointer);
  if (after === undefined) throw fail(GenesisRunnerCode.contract, `exited ${status} but wrote no ${LAST_ACCEPTANCE}${tail}`);
  if (!after.isFile()) throw fail(GenesisRunnerCode.contract, `${LAST_ACCEPTANCE} is not a regular file`);
  if (before !== undefined && before.ino === after.ino && before.dev === after.dev && before.mtimeNs === after.mtimeNs) {
    throw fail(GenesisRunnerCode.contract, `exited ${status} but did not rewrite ${LAST_ACCEPTANCE} (it still holds the previous run's address)`);
  }
  const text = readFileSync(pointer, 'utf8');
  const address = text.endsWith('\n') ? text.slice(0, -1) : text;
  if (!isHex64(address)) {
    throw fail(
      GenesisRunnerCode.contract,
      `${LAST_ACCEPTANCE} holds ${JSON.stringify(text.slice(0, 80))}, not one store address (64 lowercase hex digits and a newline)`,
    );
  }
  let term;
  try {
    term = store.getTerm(address);
  } catch (error) {
    if (isGcError(error)) throw fail(GenesisRunnerCode.contract, `${LAST_ACCEPTANCE} names ${address}, but ${error.message}`);
    throw error;
  }
  let ok: boolean;
  try {
    ok = validateAcceptance(term, manifest, store);
  } catch (error) {
    if (isGcError(error)) throw fail(error.code, `its acceptance ${address}: ${error.message}`);
    throw error;
  }
  if (ok !== (status === 0)) {
    throw fail(GenesisRunnerCode.contract, `exited ${status} but its acceptance ${address} is :ok ${ok} (0 goes with :ok true, 30 with :ok false)`);
  }
  return { acceptance: term as MapTerm, acceptanceArtifact: address, ok };
}
