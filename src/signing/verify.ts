/**
 * Signature verification under a registry policy (docs/reference/signing.md "Verification";
 * GenesisCode `docs/spec/REGISTRY_POLICY.md`): every address of the signature set must be a
 * canonical `genesis/acceptance-signature-v0.2` artifact in the store; a signature counts when it is
 * over the acceptance being verified, by an allowed key, and valid Ed25519 over the acceptance
 * message. Signatures over another acceptance or by a key the policy does not list are reported
 * and not counted; a set entry that is missing, corrupt or malformed, or a signature that does not
 * verify, fails closed.
 */
import { verifySignature } from './ed25519.js';
import { readArtifactTerm, type ArtifactReader } from './state.js';
import type { RegistryPolicy } from './policy.js';
import { acceptanceMessage, encodeBase64, hexBytes, parseSignatureTerm } from './terms.js';
import { bytesEqual, toHex } from '../util/bytes.js';

/** What one signature set entry is. `valid` counts; `unknown-key` and `other-acceptance` do not; the rest fail. */
export type SignatureStatus = 'valid' | 'unknown-key' | 'other-acceptance' | 'bad-signature' | 'missing' | 'corrupt' | 'malformed';

/** One checked signature set entry. */
export interface SignatureCheck {
  address: string;
  status: SignatureStatus;
  /** The signer (canonical base64), when the artifact reads. */
  publicKeyB64: string | undefined;
  /** The acceptance it signs (hex), when the artifact reads. */
  acceptance: string | undefined;
  message: string;
}

/** The result of {@link checkSignatures}. */
export interface SignatureVerdict {
  /** True when the count reaches `required` and no entry failed. */
  ok: boolean;
  required: number;
  /** Valid signatures by allowed keys over the acceptance. */
  valid: number;
  /** The distinct signers of the counted signatures (base64), sorted. */
  signers: string[];
  checks: SignatureCheck[];
}

/** True when a status fails the verification whatever the count (the set is not what it claims). */
export function isFailingStatus(s: SignatureStatus): boolean {
  return s === 'bad-signature' || s === 'missing' || s === 'corrupt' || s === 'malformed';
}

/**
 * Checks each address of `set` against `acceptance` (hex) and `policy`'s keys, and counts.
 * Without a policy every key counts as allowed (used to list the signers of an acceptance).
 * Each signer counts once, however many of its signatures the set lists.
 */
export function checkSignatures(reader: ArtifactReader, acceptance: string, set: readonly string[], policy: RegistryPolicy | undefined): SignatureVerdict {
  const want = hexBytes(acceptance);
  const checks: SignatureCheck[] = [];
  const signers = new Set<string>();
  for (const address of set) {
    const read = readArtifactTerm(reader, address);
    if (!read.ok) {
      checks.push({
        address,
        status: read.problem === 'unreadable' ? 'malformed' : read.problem,
        publicKeyB64: undefined,
        acceptance: undefined,
        message: read.reason,
      });
      continue;
    }
    const sig = parseSignatureTerm(read.term);
    if (!sig.ok) {
      checks.push({
        address,
        status: 'malformed',
        publicKeyB64: undefined,
        acceptance: undefined,
        message: `signature artifact ${address} is malformed: ${sig.reason}`,
      });
      continue;
    }
    const pk = encodeBase64(sig.value.publicKey);
    const over = toHex(sig.value.acceptance);
    const base = { address, publicKeyB64: pk, acceptance: over };
    if (!verifySignature(sig.value.publicKey, acceptanceMessage(sig.value.acceptance), sig.value.signature)) {
      checks.push({ ...base, status: 'bad-signature', message: `signature ${address} by ${pk} does not verify over acceptance ${over}` });
    } else if (!bytesEqual(sig.value.acceptance, want)) {
      checks.push({ ...base, status: 'other-acceptance', message: `signature ${address} by ${pk} is over acceptance ${over}, not ${acceptance}: not counted` });
    } else if (policy !== undefined && !policy.allowedKeyBytes.some((k) => bytesEqual(k, sig.value.publicKey))) {
      checks.push({ ...base, status: 'unknown-key', message: `signature ${address} is by ${pk}, which the policy does not allow: not counted` });
    } else {
      checks.push({ ...base, status: 'valid', message: `signature ${address} by ${pk} over acceptance ${acceptance}` });
      signers.add(pk);
    }
  }
  const required = policy?.minSignatures ?? 0;
  const ok = signers.size >= required && !checks.some((c) => isFailingStatus(c.status));
  return { ok, required, valid: signers.size, signers: [...signers].sort(), checks };
}
