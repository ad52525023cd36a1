/**
 * Verifying `genesis/patch-apply-v0.3` reports (docs/reference/patch-protocols.md §3.8), independently of the
 * producer: against their request, or — for a reviewer or the GitHub Action holding only the
 * evidence store — against the artifacts they reference.
 */
import { decodeClosed, D, literal } from '../../coreform/closed.js';
import { hashTerm, termAddress } from '../../coreform/hash.js';
import { int, kw, mapGet, str, termsEqual, type MapTerm, type Term } from '../../coreform/term.js';
import { isHex64 } from '../../util/bytes.js';
import { ExitCode, GcError, isGcError } from '../../util/errors.js';
import type { EvidenceStore } from '../../store/store.js';

const PROFILE = 'genesis/patch-authority-v0.1';

function reject(message: string): GcError {
  return new GcError('patch/report-mismatch', `apply report rejected: ${message}`, { exitCode: ExitCode.verificationFailed });
}

/** The decoded fields of a well-formed apply report. */
export interface ApplyReportFields {
  ok: boolean;
  requestH: string;
  patchH: string;
  sourcePatchH: string;
  packageArtifact: string;
  acceptanceArtifact: string;
  opsCount: number;
  opIdentities: { ordinal: number; opH: string }[];
  semanticEdits: MapTerm[];
  intent: string;
  provenance: MapTerm;
}

/**
 * Decodes the closed apply report (docs/reference/patch-protocols.md §3.8), the one decoder of the producer's own
 * check and of `gcpatch verify-pr` (`src/verify-pr/apply-evidence.ts`): exactly `:kind :profile :v
 * :request-h :ok :intent :provenance :ops-count :patch-h :op-identities :source-patch-h
 * :package-artifact :acceptance-artifact :semantic-edits`, with kind/profile/v fixed and every field
 * typed; `:op-identities` entries `{:op-h hex64 :ordinal i}` with ordinals 0..n-1 and `:ops-count`
 * = n; each `:semantic-edits` entry a map with a symbol `:op` and a string `:module-path`.
 * @throws GcError `patch/report-mismatch` (exit 50); its message names the failed check.
 */
export function decodeApplyReport(report: Term): ApplyReportFields {
  let r;
  try {
    r = decodeClosed(
      report,
      {
        kind: literal(str('genesis/patch-apply-v0.3')),
        profile: literal(str(PROFILE)),
        v: literal(int(1)),
        'request-h': D.hex64,
        ok: D.bool,
        intent: D.str,
        provenance: D.map,
        'ops-count': D.index,
        'patch-h': D.hex64,
        'op-identities': D.vec,
        'source-patch-h': D.hex64,
        'package-artifact': D.hex64,
        'acceptance-artifact': D.hex64,
        'semantic-edits': D.vec,
      },
      'apply report',
    );
  } catch (error) {
    if (isGcError(error)) throw reject(error.message);
    throw error;
  }
  const opIdentities = r['op-identities'].items.map((id, i) => {
    const ordinal = id.kind === 'map' ? mapGet(id, kw('ordinal')) : undefined;
    const opH = id.kind === 'map' ? mapGet(id, kw('op-h')) : undefined;
    if (id.kind !== 'map' || id.entries.length !== 2 || ordinal?.kind !== 'int' || ordinal.value !== BigInt(i) || opH?.kind !== 'str' || !isHex64(opH.value)) {
      throw reject(`:op-identities[${i}] must be {:op-h hex64 :ordinal ${i}}`);
    }
    return { ordinal: i, opH: opH.value };
  });
  if (opIdentities.length !== r['ops-count']) throw reject(':ops-count disagrees with :op-identities');
  const semanticEdits = r['semantic-edits'].items.map((e, i) => {
    if (e.kind !== 'map' || mapGet(e, kw('op'))?.kind !== 'sym' || mapGet(e, kw('module-path'))?.kind !== 'str') {
      throw reject(`:semantic-edits[${i}] needs a symbol :op and a string :module-path`);
    }
    return e;
  });
  return {
    ok: r.ok,
    requestH: r['request-h'],
    patchH: r['patch-h'],
    sourcePatchH: r['source-patch-h'],
    packageArtifact: r['package-artifact'],
    acceptanceArtifact: r['acceptance-artifact'],
    opsCount: r['ops-count'],
    opIdentities,
    semanticEdits,
    intent: r.intent,
    provenance: r.provenance,
  };
}

/**
 * Verifies a report against its request: `:request-h` = hash-term(request); `:patch-h`,
 * `:op-identities`, `:ops-count`, `:intent`, `:provenance` recomputed from the request's normalized
 * patch; artifacts, source hash and semantic edits copied exactly; `:ok` = the acceptance's `:ok`.
 * @throws GcError `patch/report-mismatch` (exit 50).
 */
export function verifyApplyReport(request: MapTerm, report: Term): ApplyReportFields {
  const f = decodeApplyReport(report);
  const get = (m: Term | undefined, k: string) => (m?.kind === 'map' ? mapGet(m, kw(k)) : undefined);
  if (f.requestH !== hashTerm(request)) throw reject(':request-h does not bind the request');
  const patch = get(request, 'patch');
  if (f.patchH !== hashTerm(patch!)) throw reject(':patch-h is not hash-term of the request patch');
  const ops = get(patch, 'ops');
  if (ops?.kind !== 'vec' || ops.items.length !== f.opsCount) throw reject(':ops-count disagrees with the patch');
  ops.items.forEach((op, i) => {
    if (f.opIdentities[i]!.opH !== hashTerm(op)) throw reject(`:op-identities[${i}] is not hash-term of op ${i}`);
  });
  if (!termsEqual(str(f.intent), get(patch, 'intent')!) || !termsEqual(f.provenance, get(patch, 'provenance')!)) {
    throw reject(':intent/:provenance differ from the patch');
  }
  for (const [k, v] of [
    ['source-patch-h', f.sourcePatchH],
    ['package-artifact', f.packageArtifact],
    ['acceptance-artifact', f.acceptanceArtifact],
  ] as const) {
    if (!termsEqual(get(request, k)!, str(v))) throw reject(`:${k} differs from the request`);
  }
  const edits = get(request, 'semantic-edits');
  if (edits?.kind !== 'vec' || edits.items.length !== f.semanticEdits.length || !edits.items.every((e, i) => termsEqual(e, f.semanticEdits[i]!))) {
    throw reject(':semantic-edits differ from the request');
  }
  const acceptance = get(request, 'acceptance');
  const ok = get(acceptance, 'ok');
  if (ok?.kind !== 'bool' || ok.value !== f.ok) throw reject(':ok is not the acceptance :ok');
  if (termAddress(acceptance!) !== f.acceptanceArtifact) throw reject(':acceptance-artifact is not the address of the acceptance');
  return f;
}

/**
 * Verifies a stored apply report from the evidence alone: the report entry is intact and
 * well-formed; its acceptance and package artifacts exist and are intact; the acceptance is a
 * `genesis/acceptance-v0.2` whose `:ok` equals the report's; the package record is a
 * `genesis/package-v0.2`.
 * @throws GcError `core/store/*` or `patch/report-mismatch` (exit 50).
 */
export function verifyStoredApplyReport(store: EvidenceStore, reportHex: string): ApplyReportFields {
  const f = decodeApplyReport(store.getTerm(reportHex));
  const acceptance = store.getTerm(f.acceptanceArtifact);
  const kind = acceptance.kind === 'map' ? mapGet(acceptance, kw('kind')) : undefined;
  const ok = acceptance.kind === 'map' ? mapGet(acceptance, kw('ok')) : undefined;
  if (kind?.kind !== 'str' || kind.value !== 'genesis/acceptance-v0.2' || ok?.kind !== 'bool')
    throw reject('acceptance artifact is not a genesis/acceptance-v0.2 term');
  if (ok.value !== f.ok) throw reject(':ok differs from the stored acceptance');
  const pkg = store.getTerm(f.packageArtifact);
  const pkind = pkg.kind === 'map' ? mapGet(pkg, kw('kind')) : undefined;
  if (pkind?.kind !== 'str' || pkind.value !== 'genesis/package-v0.2') throw reject('package artifact is not a genesis/package-v0.2 term');
  return f;
}
