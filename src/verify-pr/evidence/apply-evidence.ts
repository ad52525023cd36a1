/**
 * Verifying an apply report `genesis/patch-apply-v0.3` found in a pull request's evidence store
 * (docs/reference/patch-protocols.md §3.7, §3.8), without replaying it: the closed report shape; the normalized
 * patch it names by `:patch-h` is in the store, is in normalized form and hashes to `:patch-h`;
 * `:op-identities`, `:ops-count`, `:intent` and `:provenance` agree with that patch; the package and
 * acceptance artifacts exist, hash to their names and have the right kinds; `:ok` is the
 * acceptance's `:ok`; and `:request-h` is hash-term of the apply-report request rebuilt from those
 * parts. Written independently of the producer in `src/patch/`.
 */
import { hashTerm, termAddress } from '../../coreform/hash.js';
import { bool, int, kwMap, mapGetKw, str, sym, termsEqual, vec, type MapTerm, type Term, type VecTerm } from '../../coreform/term.js';
import { acceptanceTerm, CANONICAL_PINS_OBLIGATION, NOT_EVALUATED_MESSAGE } from '../../patch/acceptance/acceptance.js';
import type { Manifest } from '../../workspace/manifest.js';
import { normalizePatch, type NormalizedPatch } from '../../patch/protocol/normalize.js';
import { decodeApplyReport, type ApplyReportFields } from '../../patch/apply/apply-report-verify.js';
import { isGcError } from '../../util/errors.js';
import { AuditCode, type PackageFindings } from '../report/findings.js';
import type { CommitStore, StoreEntryCheck } from './store-evidence.js';

/** `:kind` of the apply report. */
export const APPLY_REPORT_KIND = 'genesis/patch-apply-v0.3';
/** `:kind` of the apply-report request whose hash-term is the report's `:request-h`. */
export const APPLY_REQUEST_KIND = 'genesis/patch-apply-report-request-v0.1';
/** `:profile` of every patch-authority protocol. */
export const APPLY_PROFILE = 'genesis/patch-authority-v0.1';

const KIND = 'apply-report';

/** An apply report that passed the static checks. */
export interface ApplyEvidence {
  /** Store address of the report. */
  address: string;
  file: string;
  report: MapTerm;
  /** `:ok` (= the acceptance's `:ok`). */
  ok: boolean;
  /** The stored normalized patch, re-normalized. */
  patch: NormalizedPatch;
  /** Store address of the patch entry. */
  patchAddress: string;
  packageArtifact: string;
  acceptanceArtifact: string;
  semanticEdits: VecTerm;
  /** The decoded report. */
  fields: ApplyReportFields;
  /** Artifacts absent from the store (recomputed by {@link completeApplyEvidence}). */
  missingArtifacts: ('package' | 'acceptance')[];
  /** The stored package record (`genesis/package-v0.2`), when present. */
  packageRecord: MapTerm | undefined;
  /** The stored acceptance (`genesis/acceptance-v0.2`), when present. */
  acceptance: MapTerm | undefined;
}

/**
 * The apply-report request (docs/reference/patch-protocols.md §3.8) whose hash-term a report's `:request-h` must
 * be: `{:acceptance :acceptance-artifact :kind :package-artifact :patch :profile :semantic-edits
 * :source-patch-h :v 1}`.
 */
export function applyRequestTerm(parts: {
  patch: MapTerm;
  sourcePatchH: string;
  packageArtifact: string;
  acceptanceArtifact: string;
  acceptance: Term;
  semanticEdits: VecTerm;
}): MapTerm {
  return kwMap({
    kind: str(APPLY_REQUEST_KIND),
    profile: str(APPLY_PROFILE),
    v: int(1),
    patch: parts.patch,
    'source-patch-h': str(parts.sourcePatchH),
    'package-artifact': str(parts.packageArtifact),
    'acceptance-artifact': str(parts.acceptanceArtifact),
    acceptance: parts.acceptance,
    'semantic-edits': parts.semanticEdits,
  });
}

/**
 * Runs the static checks of one apply report (no replay).
 * @param entry a well-formed store entry of kind `apply-report`.
 * @param store the head's store; @param prefer addresses to search first (the new entries).
 * @param out collects rows and findings.
 * @returns the evidence, or `undefined` when a check failed (the findings say which).
 */
export async function checkApplyReport(
  entry: StoreEntryCheck,
  store: CommitStore,
  prefer: readonly string[],
  out: PackageFindings,
): Promise<ApplyEvidence | undefined> {
  const fail = (check: string, code: (typeof AuditCode)[keyof typeof AuditCode], message: string, title: string): undefined => {
    out.fail(KIND, entry.address, check, { code, message: `apply report ${entry.address.slice(0, 12)}: ${message}`, file: entry.file, title });
    return undefined;
  };
  let r: ApplyReportFields;
  try {
    r = decodeApplyReport(entry.term!);
  } catch (error) {
    return fail('closed report', AuditCode.applyReportInvalid, isGcError(error) ? error.message : String(error), 'apply report invalid');
  }
  out.pass(KIND, entry.address, 'closed report', `${r.opsCount} ops, ok ${r.ok}`);

  const patchEntry = await store.findByHashTerm('patch', r.patchH, prefer);
  if (patchEntry === undefined) {
    return fail(
      'patch present',
      AuditCode.applyPatchMissing,
      `no normalized patch with hash-term ${r.patchH} (:patch-h) is in the evidence store`,
      'patch missing',
    );
  }
  let patch: NormalizedPatch;
  try {
    patch = normalizePatch(patchEntry.term!);
  } catch (error) {
    return fail(
      'patch present',
      AuditCode.applyPatchMismatch,
      `the stored patch ${patchEntry.address.slice(0, 12)} does not normalize: ${isGcError(error) ? error.message : String(error)}`,
      'patch invalid',
    );
  }
  if (!termsEqual(patch.normalized, patchEntry.term!) || patch.patchH !== r.patchH) {
    return fail(
      'patch present',
      AuditCode.applyPatchMismatch,
      `the stored patch ${patchEntry.address.slice(0, 12)} is not in normalized form`,
      'patch not normalized',
    );
  }
  out.pass(KIND, entry.address, 'patch present', `patch ${patchEntry.address.slice(0, 12)} hashes to :patch-h`);

  const idsOk = r.opIdentities.length === patch.opIdentities.length && r.opIdentities.every((id, i) => id.opH === patch.opIdentities[i]!.opH);
  if (!idsOk || r.opsCount !== patch.ops.length) {
    return fail('op identities', AuditCode.applyPatchMismatch, ":op-identities/:ops-count are not the stored patch's op identities", 'op identities differ');
  }
  const intent = mapGetKw(patch.normalized, 'intent');
  const provenance = mapGetKw(patch.normalized, 'provenance');
  if (intent?.kind !== 'str' || intent.value !== r.intent || provenance === undefined || !termsEqual(provenance, r.provenance)) {
    return fail('op identities', AuditCode.applyPatchMismatch, ":intent/:provenance are not the stored patch's", 'patch header differs');
  }
  out.pass(KIND, entry.address, 'op identities', `${patch.ops.length} ops match`);

  const artifacts: [string, string, string][] = [
    ['package', r.packageArtifact, 'genesis/package-v0.2'],
    ['acceptance', r.acceptanceArtifact, 'genesis/acceptance-v0.2'],
  ];
  let acceptance: Term | undefined;
  let packageRecord: MapTerm | undefined;
  const missing: ('package' | 'acceptance')[] = [];
  for (const [what, address, kind] of artifacts) {
    const a = await store.entry(address);
    if (a === undefined) {
      // Absent from the head's store: typical of a cherry-picked apply commit (the entry existed on
      // the source branch before the commit, so the commit does not carry it). Both artifacts are
      // pure functions of the package state; they are recomputed after the replay (completeApplyEvidence).
      missing.push(what as 'package' | 'acceptance');
      continue;
    }
    const problem = !a.hashOk ? 'does not hash to its name' : a.term === undefined || a.kindString !== kind ? `is not a ${kind} term` : undefined;
    if (problem !== undefined) {
      return fail('artifacts', AuditCode.applyArtifactInvalid, `the ${what} artifact ${address.slice(0, 12)} ${problem}`, `${what} artifact invalid`);
    }
    if (what === 'acceptance') acceptance = a.term;
    else packageRecord = a.term as MapTerm;
  }
  if (acceptance !== undefined) {
    const acceptanceOk = mapGetKw(acceptance as MapTerm, 'ok');
    if (acceptanceOk?.kind !== 'bool' || acceptanceOk.value !== r.ok) {
      return fail('artifacts', AuditCode.applyArtifactInvalid, ":ok is not the acceptance artifact's :ok", 'acceptance differs');
    }
  }
  if (missing.length === 0) {
    out.pass(KIND, entry.address, 'artifacts', `package ${r.packageArtifact.slice(0, 12)}, acceptance ${r.acceptanceArtifact.slice(0, 12)}`);
  } else {
    out.skip(KIND, entry.address, 'artifacts', `${missing.join(' and ')} artifact not in the store: recomputed from the replayed package state`);
  }

  if (acceptance !== undefined) {
    if (!requestMatches(r, patch, acceptance)) {
      return fail(
        'request-h',
        AuditCode.applyRequestMismatch,
        ':request-h is not hash-term of the request rebuilt from the patch, artifacts and semantic edits',
        'request-h differs',
      );
    }
    out.pass(KIND, entry.address, 'request-h', 'rebuilt request matches');
  }

  if (!r.ok) {
    // A rolled-back apply leaves its evidence behind; it explains nothing, and a change that rests
    // on it anyway is an unexplained change the history walk reports on its module.
    out.skip(KIND, entry.address, 'accepted', 'records a failed apply (acceptance :ok false, rolled back): it explains no change');
  } else {
    // Never a pass: gcpatch did not run the obligations; verify-pr re-runs them only with an obligation runner.
    out.skip(KIND, entry.address, 'accepted', 'acceptance :ok true claimed, not re-run here');
  }
  const semanticEdits = vec(r.semanticEdits);
  return {
    address: entry.address,
    file: entry.file,
    report: entry.term as MapTerm,
    ok: r.ok,
    patch,
    patchAddress: patchEntry.address,
    packageArtifact: r.packageArtifact,
    acceptanceArtifact: r.acceptanceArtifact,
    semanticEdits,
    fields: r,
    missingArtifacts: missing,
    packageRecord,
    acceptance: acceptance as MapTerm | undefined,
  };
}

function requestMatches(r: ApplyReportFields, patch: NormalizedPatch, acceptance: Term): boolean {
  const requestH = hashTerm(
    applyRequestTerm({
      patch: patch.normalized,
      sourcePatchH: r.sourcePatchH,
      packageArtifact: r.packageArtifact,
      acceptanceArtifact: r.acceptanceArtifact,
      acceptance,
      semanticEdits: vec(r.semanticEdits),
    }),
  );
  return requestH === r.requestH;
}

/**
 * gcpatch's own acceptance (`src/patch/acceptance/acceptance.ts` without a runner) for a packed state whose
 * pins are right: the canonical-pins record `:ok true`, then one `:ok false` "not evaluated" record
 * per declared obligation. A pure function of the package state, so it can be recomputed when a
 * cherry-pick left it behind.
 */
export function recomputedBuiltinAcceptance(manifest: Manifest): MapTerm {
  const records = [kwMap({ name: sym(CANONICAL_PINS_OBLIGATION), ok: bool(true) })];
  for (const name of manifest.obligations) records.push(kwMap({ name: sym(name), ok: bool(false), errors: vec([str(NOT_EVALUATED_MESSAGE)]) }));
  return acceptanceTerm(manifest, records);
}

/** Name, version and obligations of a `genesis/package-v0.2` record, as much of a manifest as an acceptance needs. */
function recordIdentity(record: MapTerm): Manifest | undefined {
  const name = mapGetKw(record, 'name');
  const version = mapGetKw(record, 'version');
  const obligations = mapGetKw(record, 'obligations');
  if (name?.kind !== 'str' || version?.kind !== 'str' || obligations?.kind !== 'vec') return undefined;
  const names = obligations.items.map((o) => (o.kind === 'sym' ? o.name : undefined));
  if (names.some((n) => n === undefined)) return undefined;
  return { schema: 1, name: name.value, version: version.value, modules: [], dependencies: [], obligations: names as string[], tests: [], table: {} };
}

/**
 * Completes the checks {@link checkApplyReport} left for artifacts missing from the store (a
 * cherry-picked apply commit): the acceptance is recomputed as gcpatch's own acceptance of
 * the replayed package and must hash to `:acceptance-artifact` and rebuild `:request-h`; a missing
 * package record must be the replay's (`replayedArtifact`) when the replay ran on the recorded state.
 * @returns true when every missing artifact was recomputed and matched (rows and findings recorded).
 */
export function completeApplyEvidence(ev: ApplyEvidence, replayed: { manifest: Manifest; packageArtifact: string } | undefined, out: PackageFindings): boolean {
  if (ev.missingArtifacts.length === 0) return true;
  const fail = (message: string): false => {
    out.fail(KIND, ev.address, 'artifacts', {
      code: AuditCode.applyArtifactInvalid,
      message: `apply report ${ev.address.slice(0, 12)}: ${message}`,
      file: ev.file,
      title: 'artifact missing',
    });
    return false;
  };
  if (replayed === undefined)
    return fail(`the ${ev.missingArtifacts.join(' and ')} artifact is not in the evidence store and the patch could not be replayed to recompute it`);
  if (ev.missingArtifacts.includes('acceptance')) {
    // The acceptance belongs to the state the apply produced: its package record when stored (the
    // commit carries it), else the replayed package.
    const acceptance = recomputedBuiltinAcceptance(
      ev.packageRecord !== undefined ? (recordIdentity(ev.packageRecord) ?? replayed.manifest) : replayed.manifest,
    );
    if (termAddress(acceptance) !== ev.acceptanceArtifact) {
      return fail(
        `the acceptance artifact ${ev.acceptanceArtifact.slice(0, 12)} is not in the evidence store and is not gcpatch's own acceptance of the replayed package (an obligation runner's acceptance cannot be recomputed): commit the whole .genesis/store`,
      );
    }
    const okTerm = mapGetKw(acceptance, 'ok');
    if (okTerm?.kind !== 'bool' || okTerm.value !== ev.ok || !requestMatches(ev.fields, ev.patch, acceptance)) {
      return fail(':request-h is not hash-term of the request rebuilt with the recomputed acceptance');
    }
  }
  if (ev.missingArtifacts.includes('package') && replayed.packageArtifact !== ev.packageArtifact) {
    return fail(
      `the package record ${ev.packageArtifact.slice(0, 12)} is not in the evidence store and the replay on this commit's parent gives ${replayed.packageArtifact.slice(0, 12)}`,
    );
  }
  out.pass(KIND, ev.address, 'artifacts', `${ev.missingArtifacts.join(' and ')} artifact recomputed from the replayed package`);
  return true;
}

/**
 * Checks that an apply report's acceptance belongs to the package it is said to explain: its
 * `:package` names the replayed package's name and version, and it holds a record for every
 * obligation the package declares after the patch (docs/security.md, "evidence bound
 * to the audited package"). Evidence planned and applied in another copy of the package (one that
 * declares fewer obligations, or another name or version) fails here. An acceptance recomputed by
 * {@link completeApplyEvidence} is bound by construction. Evidence re-applied on another parent
 * (a cherry-pick onto a release branch whose version moved on) is checked without the version:
 * `options.checkVersion` false.
 * @returns true when bound (a finding `audit/evidence-foreign` is recorded otherwise).
 */
export function checkAcceptanceBinding(
  ev: ApplyEvidence,
  after: Manifest,
  where: string,
  out: PackageFindings,
  options: { checkVersion: boolean } = { checkVersion: true },
): boolean {
  const acceptance = ev.acceptance;
  if (acceptance === undefined) return true;
  const pkg = mapGetKw(acceptance, 'package');
  const name = pkg?.kind === 'map' ? mapGetKw(pkg, 'name') : undefined;
  const version = pkg?.kind === 'map' ? mapGetKw(pkg, 'version') : undefined;
  const records = mapGetKw(acceptance, 'obligations');
  const covered = new Set<string>();
  if (records?.kind === 'vec') {
    for (const r of records.items) {
      const n = r.kind === 'map' ? mapGetKw(r, 'name') : undefined;
      if (n?.kind === 'sym') covered.add(n.name);
      else if (n?.kind === 'str') covered.add(n.value);
    }
  }
  const problems: string[] = [];
  if (name?.kind !== 'str' || name.value !== after.name)
    problems.push(`it names package ${name?.kind === 'str' ? JSON.stringify(name.value) : '(none)'}, the package is ${JSON.stringify(after.name)}`);
  if (options.checkVersion && (version?.kind !== 'str' || version.value !== after.version))
    problems.push(`it names version ${version?.kind === 'str' ? JSON.stringify(version.value) : '(none)'}, the package is at ${JSON.stringify(after.version)}`);
  // the obligations the package declares after the patch (a patch may remove one with :obligations-remove)
  const missing = [...new Set(after.obligations)].filter((o) => !covered.has(o)).sort();
  if (missing.length > 0) problems.push(`it has no record for the declared obligation${missing.length === 1 ? '' : 's'} ${missing.join(', ')}`);
  if (problems.length === 0) {
    out.pass(KIND, ev.address, 'bound to package', `acceptance names ${after.name} ${after.version} and its ${after.obligations.length} obligations`);
    return true;
  }
  out.fail(KIND, ev.address, 'bound to package', {
    code: AuditCode.evidenceForeign,
    message:
      `apply report ${ev.address.slice(0, 12)} does not belong to this package as it stood ${where}: its acceptance ${problems.join('; ')}. ` +
      'Evidence made in another copy of the package explains nothing here: apply the change to this package (gcpatch refactor apply / gcpatch apply) and commit its evidence',
    file: ev.file,
    title: 'evidence from another package',
  });
  return false;
}
