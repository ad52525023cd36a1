/**
 * `verify-pr --policy` (docs/security.md "Signed acceptances", docs/reference/signing.md): the pull
 * request check that requires trusted signatures. Runs after the evidence audit
 * (`verify-pr.ts`) on its report and reads git objects only:
 *
 * - The registry policy is read from the **base** commit the caller named (`baseRequested`), never
 *   from the head, so a pull request cannot weaken the policy it is judged by. A change to the
 *   policy file itself is judged by the base's policy like every other change, and reported:
 *   `signing/policy-weakened` (a warning) when the head's policy is missing, malformed, asks for
 *   fewer signatures or allows a key the base's does not; `signing/policy-changed` (a notice) otherwise.
 * - Every audited package whose package record or `.genesis/last_acceptance` at the head differs
 *   from the merge base's, or which carries evidence, must carry at least `min_signatures` valid
 *   signatures by distinct allowed keys over its head acceptance in its head signature set, each
 *   logged in the head transparency chain by an entry naming that acceptance and the head's package
 *   record (an acceptance names only the package's name and version: the entry is what binds a
 *   signature to the content); every listed signature must be in the head store and verify.
 * - The head transparency chain must verify and extend the merge base's: the base's head entry is in
 *   the head's chain (entries are content-addressed and chained, so the earlier entries are the
 *   base's, byte for byte). A fork, a truncation or a rewrite fails.
 */
import * as fs from 'node:fs';
import { readTerm } from '../../coreform/read.js';
import { kw, mapGet } from '../../coreform/term.js';
import { entryAtCommit, objectKindOfMode, openRepository, type GitRepository } from '../../git/repository.js';
import {
  checkSignatures,
  parseHead,
  parsePointer,
  parsePolicy,
  parseSignatureSetText,
  walkChain,
  MAX_CHAIN_ENTRIES,
  SIGNING_FILES,
  type ArtifactReader,
  type ChainResult,
  type RegistryPolicy,
  type SignatureCheck,
} from '../../signing/index.js';
import { bytesEqual, decodeUtf8Strict, toHex } from '../../util/bytes.js';
import { isGcError } from '../../util/errors.js';
import { isFailing, type AuditFinding, type AuditReport, type CheckRow } from '../report/findings.js';
import { packageRecordDigest } from '../report/attestation.js';
import { repoPath } from '../evidence/package-at-commit.js';
import { SigningFinding, type SigningFindingCode } from '../report/signing-codes.js';

export { SigningFinding, type SigningFindingCode } from '../report/signing-codes.js';

/** What the policy check found for one package. */
export interface PackageSignatures {
  dir: string;
  /** Whether the package needed signatures (a new acceptance, or evidence). */
  required: boolean;
  acceptance: string | undefined;
  /** The package record of the head package (`genesis/package-v0.2`): its store address and the SHA-256 of its bytes. */
  packageRecord: { blake3: string; sha256: string } | undefined;
  valid: number;
  signers: string[];
  checks: SignatureCheck[];
  chain: { head: string | undefined; entries: number; baseHead: string | undefined; extendsBase: boolean };
}

/** The `signing` section added to the report. */
export interface SigningSection {
  policy: { path: string; commit: string; minSignatures: number; allowedPublicKeys: string[] } | undefined;
  packages: PackageSignatures[];
}

/** A report with its signing section. */
export type SignedAuditReport = AuditReport & { signing: SigningSection };

/** Reads a regular file at a commit: `absent`, `not-regular` (symlink, gitlink, tree), or its bytes. */
async function readRegular(repo: GitRepository, commit: string, path: string): Promise<Uint8Array | 'absent' | 'not-regular'> {
  const entry = await entryAtCommit(repo, commit, path);
  if (entry === undefined) return 'absent';
  const kind = objectKindOfMode(entry.mode);
  if (entry.type !== 'blob' || (kind !== 'blob' && kind !== 'executable')) return 'not-regular';
  return (await repo.git.readBlob({ fs, dir: repo.dir, oid: entry.oid, cache: repo.cache })).blob;
}

const text = (b: Uint8Array | 'absent' | 'not-regular'): string | undefined => (typeof b === 'string' ? undefined : decodeUtf8Strict(b));

/** An artifact reader over a map of prefetched store blobs. */
function mapReader(blobs: Map<string, Uint8Array | 'absent' | 'not-regular'>): ArtifactReader {
  return {
    read(hex) {
      const b = blobs.get(hex);
      if (b === undefined || b === 'absent') return { ok: false, missing: true, reason: `no store entry ${hex} at the head commit` };
      if (b === 'not-regular') return { ok: false, missing: false, reason: `store entry ${hex} is a symlink, gitlink or tree at the head commit` };
      return { ok: true, bytes: b };
    },
  };
}

/**
 * Prefetches the chain from `head` (at most the chain bound, stopping on a repeat): the blobs the
 * walk will read. The walk itself (`walkChain`) decides what they mean.
 */
async function prefetchChain(
  repo: GitRepository,
  commit: string,
  dir: string,
  head: string | undefined,
  blobs: Map<string, Uint8Array | 'absent' | 'not-regular'>,
): Promise<void> {
  let cur = head;
  for (let n = 0; cur !== undefined && !blobs.has(cur) && n <= MAX_CHAIN_ENTRIES; n++) {
    const b = await readRegular(repo, commit, repoPath(dir, `.genesis/store/${cur}`));
    blobs.set(cur, b);
    const t = text(b);
    cur = undefined;
    if (t === undefined) break;
    try {
      const term = readTerm(t);
      const prev = term.kind === 'map' ? mapGet(term, kw('prev-h')) : undefined;
      if (prev?.kind === 'bytes' && prev.value.length === 32) cur = toHex(prev.value);
    } catch {
      /* the walk reports it */
    }
  }
}

/** The chain of a package at a commit: its head (or a malformed-head message) and the walk. */
async function chainAt(
  repo: GitRepository,
  commit: string,
  dir: string,
): Promise<{ head: string | undefined; malformed: string | undefined; walk: ChainResult; blobs: Map<string, Uint8Array | 'absent' | 'not-regular'> }> {
  const path = repoPath(dir, SIGNING_FILES.transparencyHead);
  const raw = await readRegular(repo, commit, path);
  const blobs = new Map<string, Uint8Array | 'absent' | 'not-regular'>();
  if (raw === 'absent') return { head: undefined, malformed: undefined, walk: walkChain(mapReader(blobs), undefined), blobs };
  const t = text(raw);
  let head: string | undefined;
  let malformed: string | undefined;
  try {
    if (t === undefined) throw new Error(`${path} is not a regular UTF-8 file`);
    head = parseHead(t, path);
  } catch (error) {
    malformed = error instanceof Error ? error.message : String(error);
  }
  await prefetchChain(repo, commit, dir, head, blobs);
  return { head, malformed, walk: walkChain(mapReader(blobs), head), blobs };
}

/** What a head policy loses against the base's: why it is weaker, or undefined when it is not. */
function weakening(base: RegistryPolicy, headText: string | undefined, path: string): string | undefined {
  if (headText === undefined) return 'the pull request removes it (or makes it a non-regular file)';
  let head: RegistryPolicy;
  try {
    head = parsePolicy(headText, path);
  } catch (error) {
    return `the head's policy does not read (${isGcError(error) ? error.message : String(error)})`;
  }
  if (head.minSignatures < base.minSignatures) return `min_signatures goes from ${base.minSignatures} to ${head.minSignatures}`;
  const added = head.allowedKeyBytes.filter((k) => !base.allowedKeyBytes.some((b) => bytesEqual(b, k)));
  if (added.length > 0) return `it allows ${added.length} key(s) the base's policy does not`;
  return undefined;
}

/** Options of {@link checkSignaturePolicy}. */
export interface SignaturePolicyOptions {
  /** A directory inside the repository (default: the current directory). */
  dir?: string;
  /** The policy file, repository-relative (`/`-separated), read at the report's `baseRequested`. */
  policy: string;
}

/**
 * Adds the signature policy's findings, check rows and `signing` section to `report` (see the
 * module comment) and recomputes `ok`, `verified` and `failed`. The report is changed in place and returned.
 * @throws GcError `git/*` when the repository or a commit cannot be read.
 */
export async function checkSignaturePolicy(report: AuditReport, options: SignaturePolicyOptions): Promise<SignedAuditReport> {
  const repo = await openRepository(options.dir ?? process.cwd());
  const policyPath = options.policy.replace(/^\.\//, '');
  const findings: AuditFinding[] = [];
  const rows: CheckRow[] = [];
  const add = (code: SigningFindingCode, severity: AuditFinding['severity'], message: string, pkg: string, file?: string): void => {
    const f: AuditFinding = { code, severity, message, package: pkg };
    if (file !== undefined) f.file = file;
    findings.push(f);
  };
  const section: SigningSection = { policy: undefined, packages: [] };

  let policy: RegistryPolicy | undefined;
  const baseBytes = await readRegular(repo, report.baseRequested, policyPath);
  const baseText = text(baseBytes);
  if (baseText === undefined) {
    add(
      SigningFinding.policyMissing,
      'error',
      `${policyPath}: no registry policy at the base commit ${report.baseRequested.slice(0, 12)} (${baseBytes === 'not-regular' ? 'not a regular file' : 'absent'}); the policy is read from the base so that a pull request cannot choose its own: commit it to the base branch first`,
      '',
      policyPath,
    );
  } else {
    try {
      policy = parsePolicy(baseText, policyPath);
      section.policy = { path: policyPath, commit: report.baseRequested, minSignatures: policy.minSignatures, allowedPublicKeys: policy.allowedPublicKeys };
    } catch (error) {
      add(SigningFinding.policyInvalid, 'error', isGcError(error) ? error.message : String(error), '', policyPath);
    }
  }
  if (policy !== undefined) {
    const headBytes = await readRegular(repo, report.head, policyPath);
    const headText = text(headBytes);
    if (headText !== baseText) {
      const why = weakening(policy, headText, policyPath);
      if (why !== undefined)
        add(
          SigningFinding.policyWeakened,
          'warning',
          `${policyPath}: the pull request weakens the registry policy (${why}); this check uses the base's policy, and the change takes effect only once merged: review it as a change of who may release`,
          '',
          policyPath,
        );
      else
        add(
          SigningFinding.policyChanged,
          'notice',
          `${policyPath}: the pull request changes the registry policy; this check uses the base's policy`,
          '',
          policyPath,
        );
    }
  }

  for (const p of report.packages) {
    if (p.state !== 'present' || policy === undefined) continue;
    const where = (rel: string): string => repoPath(p.dir, rel);
    const row = (check: string, result: CheckRow['result'], detail: string, evidence: string): void => {
      const r: CheckRow = { evidence, kind: 'signatures', check, result, detail };
      rows.push(r);
      p.rows.push(r);
    };
    const accAt = async (commit: string): Promise<string | undefined | 'malformed'> => {
      const b = await readRegular(repo, commit, where(SIGNING_FILES.lastAcceptance));
      if (b === 'absent') return undefined;
      const t = text(b);
      return (t === undefined ? undefined : parsePointer(t)) ?? 'malformed';
    };
    const headAcc = await accAt(report.head);
    const baseAcc = await accAt(report.base);
    const evidenceCount = Object.values(p.evidence).reduce((n, k) => n + k, 0);
    const headRecord = await packageRecordDigest(repo, report.head, p.dir);
    const baseRecord = await packageRecordDigest(repo, report.base, p.dir);
    const required = policy.minSignatures > 0 && (headRecord?.blake3 !== baseRecord?.blake3 || headAcc !== baseAcc || evidenceCount > 0);
    const out: PackageSignatures = {
      dir: p.dir,
      required,
      acceptance: headAcc === 'malformed' ? undefined : headAcc,
      packageRecord: undefined,
      valid: 0,
      signers: [],
      checks: [],
      chain: { head: undefined, entries: 0, baseHead: undefined, extendsBase: true },
    };
    section.packages.push(out);
    out.packageRecord = headRecord;

    // The chain: it verifies at the head and extends the merge base's.
    const headChain = await chainAt(repo, report.head, p.dir);
    const baseChain = await chainAt(repo, report.base, p.dir);
    out.chain = { head: headChain.head, entries: headChain.walk.entries.length, baseHead: baseChain.head, extendsBase: true };
    const headFile = where(SIGNING_FILES.transparencyHead);
    let chainOk = true;
    if (headChain.malformed !== undefined) {
      add(SigningFinding.chainInvalid, 'error', `${headFile}: ${headChain.malformed}`, p.dir, headFile);
      chainOk = false;
    } else if (!headChain.walk.ok) {
      add(
        SigningFinding.chainInvalid,
        'error',
        `${headFile}: the transparency chain does not verify: ${headChain.walk.error!.code}: ${headChain.walk.error!.message}`,
        p.dir,
        headFile,
      );
      chainOk = false;
    }
    if (baseChain.head !== undefined && !headChain.walk.entries.some((e) => e.address === baseChain.head)) {
      out.chain.extendsBase = false;
      chainOk = false;
      const what =
        headChain.head === undefined
          ? 'the pull request removes the transparency head'
          : `the head's chain (${headChain.walk.entries.length} entries) does not contain the base's head entry`;
      add(
        SigningFinding.chainRewritten,
        'error',
        `${headFile}: ${what} ${baseChain.head.slice(0, 12)}: a transparency log is append-only (a fork, truncation or rewrite of earlier entries fails)`,
        p.dir,
        headFile,
      );
    }
    if (headChain.head !== undefined || baseChain.head !== undefined) {
      row(
        'transparency chain',
        chainOk ? 'pass' : 'fail',
        chainOk
          ? `${headChain.walk.entries.length} entries${baseChain.head !== undefined ? `, extends the base's head ${baseChain.head.slice(0, 12)}` : ''}`
          : 'see signing/chain-*',
        headChain.head ?? '',
      );
    }

    if (!required) {
      if (policy.minSignatures > 0)
        row('signatures', 'skip', 'no new acceptance and no evidence: nothing to sign', headAcc === 'malformed' ? '' : (headAcc ?? ''));
      continue;
    }
    if (headAcc === undefined || headAcc === 'malformed') {
      const file = where(SIGNING_FILES.lastAcceptance);
      add(
        SigningFinding.noAcceptance,
        'error',
        `${file}: the package carries evidence but ${headAcc === undefined ? 'no last acceptance' : 'a malformed last acceptance'} at the head, so there is nothing signed to check; the policy requires ${policy.minSignatures} signature(s)`,
        p.dir,
        file,
      );
      row('signatures', 'fail', 'no acceptance at the head', '');
      continue;
    }
    const setFile = where(SIGNING_FILES.signatureSet);
    const setBytes = await readRegular(repo, report.head, setFile);
    let set: string[] = [];
    if (setBytes !== 'absent') {
      const t = text(setBytes);
      try {
        set = parseSignatureSetText(t ?? '\u0000', setFile);
      } catch (error) {
        add(SigningFinding.signatureSetInvalid, 'error', isGcError(error) ? error.message : String(error), p.dir, setFile);
        row('signatures', 'fail', 'the signature set does not read', headAcc);
        continue;
      }
    }
    const blobs = new Map(headChain.blobs);
    for (const a of set) if (!blobs.has(a)) blobs.set(a, await readRegular(repo, report.head, where(`.genesis/store/${a}`)));
    const verdict = checkSignatures(mapReader(blobs), headAcc, set, policy);
    // A signature counts only when the head chain logs it for this acceptance and the head's
    // package record: an acceptance names only the package's name and version, the entry binds it
    // to the package content the signer vouched for.
    const logged = new Set(
      headChain.walk.entries.filter((e) => e.acceptanceArtifact === headAcc && e.packageArtifact === headRecord?.blake3).map((e) => e.signatureArtifact),
    );
    const counted = new Set<string>();
    for (const c of verdict.checks) {
      if (c.status === 'valid' && !logged.has(c.address)) {
        c.status = 'other-acceptance';
        c.message = `signature ${c.address} by ${c.publicKeyB64} is not logged in the head transparency chain for acceptance ${headAcc} and the head's package record ${headRecord?.blake3.slice(0, 12) ?? '(unreadable)'}: not counted`;
      }
      if (c.status === 'valid') counted.add(c.publicKeyB64!);
    }
    out.checks = verdict.checks;
    out.signers = [...counted].sort();
    out.valid = counted.size;
    for (const c of verdict.checks) {
      const file = c.status === 'missing' ? setFile : where(`.genesis/store/${c.address}`);
      if (c.status === 'bad-signature' || c.status === 'missing' || c.status === 'corrupt' || c.status === 'malformed') {
        add(
          SigningFinding.signatureInvalid,
          'error',
          `${setFile}: ${c.status === 'missing' ? `the signature set lists ${c.address}, which is not in the head's store` : c.message}`,
          p.dir,
          file,
        );
      } else if (c.status !== 'valid') add(SigningFinding.signatureNotCounted, 'notice', c.message, p.dir, setFile);
    }
    if (out.valid < policy.minSignatures) {
      add(
        SigningFinding.signaturesMissing,
        'error',
        `${setFile}: acceptance ${headAcc.slice(0, 12)} has ${out.valid} valid signature(s) by allowed keys (logged in the transparency chain); the base's policy ${policyPath} requires ${policy.minSignatures}: sign it (gcpatch sign --key <key.toml>) with allowed keys and push`,
        p.dir,
        setFile,
      );
    }
    const failed = out.valid < policy.minSignatures || verdict.checks.some((c) => ['bad-signature', 'missing', 'corrupt', 'malformed'].includes(c.status));
    row(
      'signatures',
      failed ? 'fail' : 'pass',
      `${out.valid} of ${policy.minSignatures} required by ${policyPath}${out.signers.length > 0 ? `: ${out.signers.join(', ')}` : ''}`,
      headAcc,
    );
  }

  for (const f of findings) report.findings.push(f);
  report.verified += rows.filter((r) => r.result === 'pass').length;
  report.failed += rows.filter((r) => r.result === 'fail' || (report.failOn === 'warning' && r.result === 'warn')).length;
  report.ok = !report.findings.some((f) => isFailing(f, report.failOn));
  return Object.assign(report, { signing: section });
}

/** One signed acceptance a commit logged: its transparency entry and whether its signature verifies. */
export interface SignedAcceptance {
  entry: string;
  acceptance: string;
  signature: string;
  packageArtifact: string;
  signer: string;
  /** True when the signature artifact is in the commit's store and verifies over the acceptance by the signer. */
  verified: boolean;
}

/**
 * The transparency entries the package at `dir` logs at `commit` and not at `parent` (its first
 * parent; undefined for a root commit), oldest first: what `gcpatch log` and `blame` show as signed
 * acceptances beside the commit. A chain that does not verify, or that does not extend the
 * parent's, gives the entries that read, each unverified.
 * @throws GcError `git/missing-commit` (exit 70).
 */
export async function signaturesIntroduced(repo: GitRepository, commit: string, parent: string | undefined, dir: string): Promise<SignedAcceptance[]> {
  const now = await chainAt(repo, commit, dir);
  const before = parent === undefined ? undefined : await readRegular(repo, parent, repoPath(dir, SIGNING_FILES.transparencyHead));
  const beforeHead = before === undefined || typeof before === 'string' ? undefined : parsePointer(decodeUtf8Strict(before) ?? '');
  if (now.head === undefined || now.head === beforeHead) return [];
  const fresh: ChainResult['entries'] = [];
  for (const e of now.walk.entries) {
    if (e.address === beforeHead) break;
    fresh.push(e);
  }
  const extendsParent = beforeHead === undefined || fresh.length < now.walk.entries.length;
  const blobs = new Map(now.blobs);
  const out: SignedAcceptance[] = [];
  for (const e of fresh.reverse()) {
    if (!blobs.has(e.signatureArtifact))
      blobs.set(e.signatureArtifact, await readRegular(repo, commit, repoPath(dir, `.genesis/store/${e.signatureArtifact}`)));
    const check = checkSignatures(mapReader(blobs), e.acceptanceArtifact, [e.signatureArtifact], undefined).checks[0]!;
    const verified = now.walk.ok && extendsParent && check.status === 'valid' && check.publicKeyB64 === e.signerPublicKeyB64;
    out.push({
      entry: e.address,
      acceptance: e.acceptanceArtifact,
      signature: e.signatureArtifact,
      packageArtifact: e.packageArtifact,
      signer: e.signerPublicKeyB64,
      verified,
    });
  }
  return out;
}
