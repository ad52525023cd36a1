/**
 * The optional obligation runner of the Action (`obligation-runner` input) and of
 * `gcpatch verify-pr --obligation-runner`: the same runner contract as `gcpatch apply`
 * (`src/patch/acceptance/acceptance.ts`) — a shell command run in the package directory of the work tree that
 * prints one `genesis/acceptance-v0.2` term on stdout — or `genesis`, the GenesisCode CLI's
 * `genesis test --pkg package.toml` and the acceptance it records (`src/patch/acceptance/genesis-test.ts`,
 * docs/reference/genesis-cli.md). gcpatch cannot evaluate GenesisCode itself; this lets a workflow
 * re-run the package's tests and obligations with the real toolchain.
 */
import { join } from 'node:path';
import { kw, mapGet, type MapTerm } from '../../coreform/term.js';
import { runObligationRunner, validateAcceptance } from '../../patch/acceptance/acceptance.js';
import { GENESIS_RUNNER, runGenesisTest } from '../../patch/acceptance/genesis-test.js';
import { EvidenceStore } from '../../store/store.js';
import { packState } from '../../patch/apply/pack.js';
import { isGcError } from '../../util/errors.js';
import { AuditCode, type PackageFindings } from '../report/findings.js';
import { snapshotState, type CommitPackageSnapshot } from '../evidence/package-at-commit.js';

/** What one run produced. */
export interface ObligationRun {
  command: string;
  /** Absolute package directory the command ran in. */
  cwd: string;
  /** The acceptance's `:ok`, false when the runner failed or its acceptance was invalid. */
  ok: boolean;
  /** Why it failed: the runner error, the invalid acceptance, or the failed obligation names. */
  problem: string | undefined;
  millis: number;
}

function failedObligations(acceptance: MapTerm): string[] {
  const obligations = mapGet(acceptance, kw('obligations'));
  if (obligations?.kind !== 'vec') return [];
  return obligations.items
    .filter((r) => r.kind === 'map' && mapGet(r, kw('ok'))?.kind === 'bool' && !(mapGet(r, kw('ok')) as { value: boolean }).value)
    .map((r) => {
      const name = mapGet(r as MapTerm, kw('name'));
      return name?.kind === 'sym' ? name.name : '?';
    });
}

/**
 * Runs `command` for the head package (cwd = `<workTree>/<package dir>`, with the environment of
 * `gcpatch apply`'s runner: `GCPATCH_PACKAGE_DIR`, `GCPATCH_MANIFEST`, `GCPATCH_PACKAGE_ARTIFACT`
 * of the head package, `GCPATCH_OBLIGATIONS`) and validates the acceptance it prints against the
 * head manifest. `command` = `genesis` runs `genesis test --pkg <package.toml>` there instead and
 * checks the acceptance it records in the package's `.genesis/` (docs/reference/genesis-cli.md).
 * @param timeoutMs kill the runner after this many milliseconds (default 30 minutes).
 */
export function runHeadObligations(command: string, workTree: string, head: CommitPackageSnapshot, timeoutMs = 30 * 60 * 1000): ObligationRun {
  const cwd = join(workTree, ...head.dir.split('/').filter((p) => p !== ''));
  const start = performance.now();
  const done = (ok: boolean, problem: string | undefined): ObligationRun => ({
    command,
    cwd,
    ok,
    problem,
    millis: Math.round(performance.now() - start),
  });
  try {
    if (command.trim() === GENESIS_RUNNER) {
      const run = runGenesisTest(cwd, join(cwd, 'package.toml'), head.manifest, EvidenceStore.forPackage(cwd), timeoutMs);
      return run.ok ? done(true, undefined) : done(false, `obligations failed: ${failedObligations(run.acceptance).join(', ')}`);
    }
    const packageArtifact = packState(snapshotState(head)).packageArtifact;
    const acceptance = runObligationRunner(
      command,
      cwd,
      { manifestFile: join(cwd, 'package.toml'), packageArtifact, obligations: head.manifest.obligations },
      timeoutMs,
    );
    const ok = validateAcceptance(acceptance, head.manifest, undefined);
    return ok ? done(true, undefined) : done(false, `obligations failed: ${failedObligations(acceptance as MapTerm).join(', ')}`);
  } catch (error) {
    return done(false, isGcError(error) ? `${error.code}: ${error.message}` : String(error));
  }
}

/**
 * The obligation check of one package: with a runner (`obligationRunner`, not blank) the head's
 * obligations are re-run in the work tree at `repoDir` (a pass row, or `audit/obligations-failed`);
 * without one, accepted apply reports of a package that declares obligations are claimed, not re-run
 * (`audit/acceptance-not-rerun`, a notice).
 * @param accepted how many accepted apply reports the package's new evidence holds.
 */
export function checkObligations(
  obligationRunner: string | undefined,
  repoDir: string,
  head: CommitPackageSnapshot,
  manifestPath: string,
  accepted: number,
  out: PackageFindings,
): void {
  const runner = obligationRunner !== undefined && obligationRunner.trim() !== '';
  if (accepted > 0 && !runner && head.manifest.obligations.length > 0) {
    out.fail('obligations', 'package', 'obligation runner', {
      code: AuditCode.acceptanceNotRerun,
      severity: 'notice',
      message: `${accepted} apply report${accepted === 1 ? '' : 's'} claim${accepted === 1 ? 's' : ''} an accepted acceptance; claimed, not re-run (no obligation-runner): set the obligation-runner input (--obligation-runner) to re-run the package's obligations`,
      file: manifestPath,
      title: 'acceptance claimed, not re-run',
    });
  }
  if (runner) {
    const run = runHeadObligations(obligationRunner!, repoDir, head);
    if (run.ok) out.pass('obligations', 'package', 'obligation runner', `\`${run.command}\`: acceptance :ok true (${run.millis} ms)`);
    else {
      out.fail('obligations', 'package', 'obligation runner', {
        code: AuditCode.obligationsFailed,
        message: `obligation runner \`${run.command}\` in ${head.dir || '.'}: ${run.problem ?? 'failed'}`,
        file: manifestPath,
        title: 'obligations failed',
      });
    }
  }
}
