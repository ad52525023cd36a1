/**
 * Fault points for the test suite, unreachable from the product. The shipped code only calls
 * {@link faultPoint} at named points (the driver after reading its arguments, the merge service at
 * five points of a request); nothing in gcpatch installs a handler, and no environment variable or
 * option reaches one. A test installs it by preloading `test/helpers/fault-preload.cjs`
 * (`node --require`, or `NODE_OPTIONS=--require …`), which reads `GCPATCH_TEST_FAULT` and may throw,
 * stall or SIGKILL the process at the point it names. Without that preload the calls do nothing,
 * whatever the environment holds (`test/driver/test-fault.test.ts` checks the bundle).
 */

/** The named points (docs/driver.md "The hand-over" lists what each means for the service). */
export type FaultPointName = 'driver-after-arguments' | 'before-accept' | 'after-accept' | 'after-merge' | 'after-status' | 'after-rename';

/** Where a test preload puts its handler: `globalThis[Symbol.for(FAULT_HOOK)]`. */
export const FAULT_HOOK = 'gcpatch.test-fault';

/** Calls the test preload's handler for `point`, if a preload installed one; otherwise nothing. */
export function faultPoint(point: FaultPointName): void {
  const hook = (globalThis as Record<symbol, unknown>)[Symbol.for(FAULT_HOOK)];
  if (typeof hook === 'function') (hook as (p: string) => void)(point);
}
