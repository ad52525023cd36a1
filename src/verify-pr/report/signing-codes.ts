/** The finding codes of `verify-pr --policy` (`signature-policy.ts`), apart so that `findings.ts` can name them without importing the check. */

/** Stable finding codes of the signature policy (docs/security.md "Signed acceptances"). */
export const SigningFinding = {
  /** The policy path names no regular file at the base commit. */
  policyMissing: 'signing/policy-missing',
  /** The base's policy file is malformed. */
  policyInvalid: 'signing/policy-invalid',
  /** The pull request changes the policy file (judged by the base's policy; a notice). */
  policyChanged: 'signing/policy-changed',
  /** The pull request weakens the policy file (judged by the base's policy; a warning). */
  policyWeakened: 'signing/policy-weakened',
  /** A package that needs signatures has no readable `.genesis/last_acceptance` at the head. */
  noAcceptance: 'signing/no-acceptance',
  /** Fewer valid signatures by allowed keys than `min_signatures`. */
  signaturesMissing: 'signing/signatures-missing',
  /** A listed signature is missing from the store, corrupt, malformed, or does not verify. */
  signatureInvalid: 'signing/signature-invalid',
  /** The head signature set file is malformed. */
  signatureSetInvalid: 'signing/signature-set-invalid',
  /** A valid signature that does not count: another acceptance, a key the policy does not allow, or not logged (a notice). */
  signatureNotCounted: 'signing/signature-not-counted',
  /** The head transparency chain does not verify, or its head is malformed. */
  chainInvalid: 'signing/chain-invalid',
  /** The head transparency chain does not extend the base's (fork, truncation, rewrite). */
  chainRewritten: 'signing/chain-rewritten',
} as const;
/** One code of {@link SigningFinding}. */
export type SigningFindingCode = (typeof SigningFinding)[keyof typeof SigningFinding];
