/** Crash-point injection: the fault hook every transaction step calls, and the crash it may simulate. */

/**
 * A test hook called with the name of each visible step just before it runs (`journal:open`,
 * `stage:<path>`, …; each transaction documents its own names). It may throw: a
 * {@link SimulatedCrash} stops the transaction dead, anything else is handled as a failure of
 * that step.
 */
export type FaultHook = (step: string) => void;

/** The hook of a run without fault injection. */
export const noFault: FaultHook = () => {};

/**
 * Thrown by a fault hook to simulate the process dying at that step (like `kill -9`): the
 * transaction propagates it at once without rolling back or cleaning up, so the journal stays for
 * recovery. Any other thrown value is handled like an I/O failure (rolled back in-process).
 */
export class SimulatedCrash extends Error {
  constructor(readonly step: string) {
    super(`simulated crash at ${step}`);
    this.name = 'SimulatedCrash';
  }
}
