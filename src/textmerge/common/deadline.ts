/**
 * The structural merge's time budget (default 5 s,
 * `GCPATCH_DRIVER_TIMEOUT_MS`). The merge checks the deadline between stages and inside every loop
 * whose length is not linear in the input, so an over-budget merge stops and the driver falls back
 * to the line merge.
 *
 * The clock is `process.uptime()` in milliseconds: about the same origin (ms apart) and the same resolution as
 * `performance.now()` (both count from the process start on libuv's monotonic clock), without
 * loading `node:perf_hooks`, which costs the merge driver ≈6 ms at start-up.
 */
import { ExitCode, GcError } from '../../util/errors.js';

/**
 * Thrown when the structural merge passes its deadline: a `GcError` with code `merge/driver/timeout`
 * (exit 70). The driver catches it and falls back to the line merge; code that treats a `GcError`
 * as "this text does not read" must let it through ({@link isTimeout}).
 */
export class TimeoutError extends GcError {
  constructor() {
    super('merge/driver/timeout', 'the structural merge exceeded its time budget', { exitCode: ExitCode.io });
    this.name = 'TimeoutError';
  }
}

/** True when `error` is the structural merge's {@link TimeoutError}. */
export function isTimeout(error: unknown): boolean {
  return error instanceof TimeoutError;
}

/** Current time on the deadline clock (milliseconds since the process started, like `performance.now()`). */
export function now(): number {
  return process.uptime() * 1000;
}

/** A deadline `budgetMs` milliseconds from now (`Infinity` for a negative or non-finite budget). */
export function deadlineIn(budgetMs: number): number {
  return Number.isFinite(budgetMs) && budgetMs >= 0 ? now() + budgetMs : Infinity;
}

/** Throws {@link TimeoutError} when `deadline` (ms, {@link now} clock) has passed. */
export function checkDeadline(deadline: number): void {
  if (deadline !== Infinity && now() >= deadline) throw new TimeoutError();
}
