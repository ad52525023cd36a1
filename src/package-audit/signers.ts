/**
 * What `gcpatch audit` says about signatures (docs/audit.md "Releasing signed packages"): the package's
 * transparency chain walked from `.genesis/transparency_head` (it must verify: GenesisCode
 * `docs/spec/TRANSPARENCY_LOG.md`), the signature set read (a malformed one fails closed), and the
 * signers of the last acceptance: the chain's entries for it, each with whether its signature
 * verifies and whether the entry names the package record of the package as it is.
 */
import { join } from 'node:path';
import type { EvidenceStore } from '../store/store.js';
import { checkSignatures, readSignatureSet, readTransparencyHead, SIGNING_FILES, storeReader, walkChain } from '../signing/index.js';
import { isGcError } from '../util/errors.js';
import type { AuditFinding } from './finding.js';

/** One signer of the last acceptance. */
export interface AcceptanceSigner {
  /** The signer's public key (base64). */
  signer: string;
  signature: string;
  entry: string;
  /** The package record the entry names. */
  packageArtifact: string;
  /** True when the signature artifact is in the store and verifies over the acceptance by this key. */
  verified: boolean;
  /** True when the entry names the package record of the package as it is (undefined: not computed). */
  current: boolean | undefined;
  /** True when the signature set lists the signature. */
  listed: boolean;
}

/** The signing section of an audit. */
export interface AuditSigning {
  /** The transparency head (undefined: no log). */
  head: string | undefined;
  entries: number;
  chainOk: boolean;
  /** The signature set's addresses (empty when absent or malformed). */
  signatureSet: string[];
  /** Signers of the last acceptance, oldest entry first; each signer once (its latest entry). */
  signers: AcceptanceSigner[];
}

/**
 * Reads the package's signing state. Findings: `audit/transparency-head` (malformed head),
 * `audit/transparency-chain` (the chain does not verify), `audit/signature-set` (malformed set),
 * `audit/signature-invalid` (a logged signature of the last acceptance that does not verify).
 */
export function auditSigning(
  packageDir: string,
  store: EvidenceStore,
  acceptance: string | undefined,
  currentPackageArtifact: string | undefined,
  findings: AuditFinding[],
): AuditSigning {
  const out: AuditSigning = { head: undefined, entries: 0, chainOk: true, signatureSet: [], signers: [] };
  try {
    out.head = readTransparencyHead(packageDir);
  } catch (error) {
    if (!isGcError(error)) throw error;
    findings.push({ code: 'audit/transparency-head', subject: SIGNING_FILES.transparencyHead, message: error.message });
    out.chainOk = false;
    return out;
  }
  try {
    out.signatureSet = readSignatureSet(join(packageDir, SIGNING_FILES.signatureSet));
  } catch (error) {
    if (!isGcError(error)) throw error;
    findings.push({ code: 'audit/signature-set', subject: SIGNING_FILES.signatureSet, message: error.message });
  }
  const reader = storeReader(store);
  const chain = walkChain(reader, out.head);
  out.entries = chain.entries.length;
  if (!chain.ok) {
    out.chainOk = false;
    findings.push({ code: 'audit/transparency-chain', subject: chain.error!.at, message: `${chain.error!.code}: ${chain.error!.message}` });
  }
  if (acceptance === undefined) return out;
  const listed = new Set(out.signatureSet);
  const bySigner = new Map<string, AcceptanceSigner>();
  for (const e of [...chain.entries].reverse()) {
    if (e.acceptanceArtifact !== acceptance) continue;
    const check = checkSignatures(reader, acceptance, [e.signatureArtifact], undefined).checks[0]!;
    const verified = check.status === 'valid' && check.publicKeyB64 === e.signerPublicKeyB64;
    if (!verified)
      findings.push({
        code: 'audit/signature-invalid',
        subject: e.signatureArtifact,
        message: `transparency entry ${e.address} logs signature ${e.signatureArtifact} by ${e.signerPublicKeyB64}, which does not verify: ${check.message}`,
      });
    bySigner.set(e.signerPublicKeyB64, {
      signer: e.signerPublicKeyB64,
      signature: e.signatureArtifact,
      entry: e.address,
      packageArtifact: e.packageArtifact,
      verified,
      current: currentPackageArtifact === undefined ? undefined : e.packageArtifact === currentPackageArtifact,
      listed: listed.has(e.signatureArtifact),
    });
  }
  out.signers = [...bySigner.values()];
  return out;
}
