/**
 * The structural merge's time budget (issue #3 "Safety net": default 5 s,
 * `GCPATCH_DRIVER_TIMEOUT_MS`). The merge checks the deadline between stages and inside every loop
 * whose length is not linear in the input, so an over-budget merge stops and the driver falls back
 * to the line merge.
 */
import { performance } from 'node:perf_hooks';

/** Thrown when the structural merge passes its deadline. Code `merge/driver/timeout`. */
export class TimeoutError extends Error {
  readonly code = 'merge/driver/timeout';
  constructor() {
    super('the structural merge exceeded its time budget');
    this.name = 'TimeoutError';
  }
}

/** Current time on the deadline clock (`performance.now()`, milliseconds). */
export function now(): number {
  return performance.now();
}

/** A deadline `budgetMs` milliseconds from now (`Infinity` for a negative or non-finite budget). */
export function deadlineIn(budgetMs: number): number {
  return Number.isFinite(budgetMs) && budgetMs >= 0 ? now() + budgetMs : Infinity;
}

/** Throws {@link TimeoutError} when `deadline` (ms, `performance.now()` clock) has passed. */
export function checkDeadline(deadline: number): void {
  if (deadline !== Infinity && now() >= deadline) throw new TimeoutError();
}
