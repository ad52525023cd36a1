/** Test helper: run a transaction with a fault hook that simulates a crash (`kill -9`) at one named step. */
import { expect } from 'vitest';
import { SimulatedCrash } from '../../src/transaction/crash-points.js';

/** Runs `run` with a fault hook throwing {@link SimulatedCrash} at `step`; asserts the step was reached. */
export function crashAt(step: string, run: (fault: (s: string) => void) => void): void {
  let crashed = false;
  try {
    run((s) => {
      if (s === step) {
        crashed = true;
        throw new SimulatedCrash(s);
      }
    });
  } catch (error) {
    if (!(error instanceof SimulatedCrash)) throw error;
  }
  expect(crashed, `step ${step} was reached`).toBe(true);
}
