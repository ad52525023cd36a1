/** What the independent verifiers of the protocol's reports share: the rejection and the closed decode of a report. */
import { decodeClosed, type Decoded, type Spec } from '../../coreform/closed.js';
import type { Term } from '../../coreform/term.js';
import { ExitCode, GcError, isGcError } from '../../util/errors.js';

/**
 * The error a verifier rejects a report with: `patch/report-mismatch` (exit 50), message
 * `<report> report rejected: <message>`, and `at` as the location when given.
 * @param report the report's name, e.g. `patch-preflight`.
 */
export function reportMismatch(report: string, message: string, at?: string): GcError {
  return new GcError('patch/report-mismatch', `${report} report rejected: ${message}`, {
    exitCode: ExitCode.verificationFailed,
    ...(at !== undefined ? { location: { at } } : {}),
  });
}

/**
 * Decodes the closed map `t` with `spec` (`decodeClosed`), turning a codec error into the
 * verifier's rejection: `reject(message, at)` with the codec error's message and `location.at`.
 * Errors that are not `GcError`s pass through.
 */
export function decodeReport<S extends Spec>(t: Term, spec: S, what: string, reject: (message: string, at?: string) => GcError): Decoded<S> {
  try {
    return decodeClosed(t, spec, what);
  } catch (error) {
    if (isGcError(error)) throw reject(error.message, error.location.at);
    throw error;
  }
}
