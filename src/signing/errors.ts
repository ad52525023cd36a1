/** The typed errors of the signing route (codes registered in `src/util/codes.ts`, meanings in `code-meanings.ts`). */
import { ExitCode, GcError, type GcCode } from '../util/errors.js';

/** Stable codes of the signing route. */
export const SigningCode = {
  /** The acceptance to sign is missing, malformed or not canonical lowercase hex. */
  acceptance: 'signing/acceptance',
  /** A key file is absent, not a regular file, readable by group/other, malformed or mismatched. */
  key: 'signing/key',
  /** `keygen` refuses to write over an existing path. */
  keyExists: 'signing/key-exists',
  /** A registry policy file is malformed (TOML, fields, version, keys). */
  policy: 'signing/policy',
  /** The signature set file is malformed (fails closed: never read as empty). */
  signatureSet: 'signing/signature-set',
  /** `.genesis/transparency_head` is present but malformed (fails closed: never read as absent). */
  transparencyHead: 'signing/transparency-head',
  /** Signature verification under a policy failed. */
  verifyFailed: 'signing/verify-failed',
  /** The transparency chain does not verify. */
  chainInvalid: 'signing/chain-invalid',
} as const;

/** A signing error at `file` (exit 10 unless given). */
export function signingError(
  code: GcCode,
  message: string,
  file?: string,
  exitCode: ExitCode = ExitCode.invalidInput,
  details?: Record<string, unknown>,
): GcError {
  return new GcError(code, message, { exitCode, ...(file !== undefined ? { location: { file } } : {}), ...(details !== undefined ? { details } : {}) });
}
