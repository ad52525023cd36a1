/**
 * `gcpatch sign` (docs/reference/signing.md "Signing"; GenesisCode `docs/spec/SIGNING.md`): sign a
 * package's acceptance and record it. Under the package lock, it reads the signature set and the
 * transparency head (malformed state fails closed before anything is written), signs, stores the
 * signature term and the new transparency entry (write-once store), and only then moves the
 * pointers, each written atomically: `.genesis/last_signature`, the signature set, and
 * `.genesis/transparency_head`. Interrupted between two pointer writes, running the same `sign`
 * again completes it: Ed25519 is deterministic, so it stores the same terms and writes the same
 * pointers.
 */
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { EvidenceStore } from '../store/store.js';
import { acquirePackageLock } from '../transaction/lock.js';
import { writeFileAtomic } from '../util/atomic.js';
import { signMessage } from './ed25519.js';
import type { KeyPair } from './keyfile.js';
import { acceptanceToSign, readSignatureSet, readTransparencyHead, SIGNING_FILES } from './state.js';
import { acceptanceMessage, hexBytes, printSignatureSet, signatureTerm, transparencyEntryTerm } from './terms.js';

/** Options of {@link signAcceptance}. */
export interface SignOptions {
  /** The package directory (holding `package.toml`). */
  packageDir: string;
  key: KeyPair;
  /** The address of the package record of the package as it is (the transparency entry's `:package-artifact`). */
  packageArtifact: string;
  /** The acceptance address (default: `.genesis/last_acceptance`). */
  acceptance?: string;
  /** The signature set file (default `<pkg>/.genesis/signatures.gc`). */
  signaturesFile?: string;
  /** Fault hook called with `sign:last-signature`, `sign:signature-set`, `sign:head` before each pointer write (tests). */
  faults?: (step: string) => void;
}

/** What {@link signAcceptance} did: the reference's `genesis/sign-v0.2` data. */
export interface SignResult {
  packageArtifact: string;
  acceptanceArtifact: string;
  signatureArtifact: string;
  signatureSetFile: string;
  /** The signature set as written (sorted, deduplicated). */
  signatureSet: string[];
  transparencyEntry: string;
  /** The head before this entry (its `:prev-h`), undefined for the first entry. */
  previousHead: string | undefined;
  publicKeyB64: string;
}

/**
 * Signs and records an acceptance (see the module comment).
 * @throws GcError `signing/acceptance`, `signing/signature-set`, `signing/transparency-head` (exit 10)
 *   before any write; `patch/package-locked`, `core/store/*`, `io/*` (exit 70).
 */
export function signAcceptance(options: SignOptions): SignResult {
  const { packageDir, key } = options;
  const lock = acquirePackageLock(packageDir, { command: 'gcpatch sign', waitMs: 2_000 });
  try {
    const acceptance = acceptanceToSign(packageDir, options.acceptance);
    const setFile = options.signaturesFile ?? join(packageDir, SIGNING_FILES.signatureSet);
    const prior = readSignatureSet(setFile);
    const previousHead = readTransparencyHead(packageDir);
    const signature = signMessage(key.seed, acceptanceMessage(hexBytes(acceptance)));
    const store = EvidenceStore.forPackage(packageDir);
    const signatureArtifact = store.putTerm(signatureTerm({ acceptance: hexBytes(acceptance), publicKey: key.publicKey, signature }));
    const transparencyEntry = store.putTerm(
      transparencyEntryTerm({
        prev: previousHead,
        packageArtifact: options.packageArtifact,
        acceptanceArtifact: acceptance,
        signatureArtifact,
        signerPublicKeyB64: key.publicKeyB64,
      }),
    );
    const setText = printSignatureSet([...prior, signatureArtifact]);
    mkdirSync(join(packageDir, '.genesis'), { recursive: true });
    options.faults?.('sign:last-signature');
    writeFileAtomic(join(packageDir, SIGNING_FILES.lastSignature), `${signatureArtifact}\n`);
    options.faults?.('sign:signature-set');
    mkdirSync(dirname(setFile), { recursive: true });
    writeFileAtomic(setFile, setText);
    options.faults?.('sign:head');
    writeFileAtomic(join(packageDir, SIGNING_FILES.transparencyHead), `${transparencyEntry}\n`);
    return {
      packageArtifact: options.packageArtifact,
      acceptanceArtifact: acceptance,
      signatureArtifact,
      signatureSetFile: setFile,
      signatureSet: [...new Set([...prior, signatureArtifact])].sort(),
      transparencyEntry,
      previousHead,
      publicKeyB64: key.publicKeyB64,
    };
  } finally {
    lock.release();
  }
}
