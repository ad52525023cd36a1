/**
 * Fault injection for tests, and only for tests: the `faults` hooks of `applyPatch`, the
 * transaction and the store call back at named steps, and a test throws {@link injectedFault}
 * there. Its code, `test/injected-fault`, is not in the registry (`src/util/codes.ts`), so neither
 * the library nor the bundles carry it (test/util/test-switches.test.ts proves it).
 */
import type { GcCode } from '../../src/util/codes.js';
import { ExitCode, GcError } from '../../src/util/errors.js';

/** The code of an injected fault. */
export const INJECTED_FAULT = 'test/injected-fault';

/** A GcError with the test-only code {@link INJECTED_FAULT} (exit 70, as an I/O failure would be). */
export function injectedFault(message: string): GcError {
  return new GcError(INJECTED_FAULT as GcCode, message, { exitCode: ExitCode.io });
}
