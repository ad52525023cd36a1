// Shared helpers for the benchmark scripts.
import { performance } from 'node:perf_hooks';

/** Median of an array of numbers. */
export function median(values) {
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** Runs `fn` `runs` times (after `warmup` runs) and returns the median wall time in ms. */
export async function timeMedian(fn, runs = 5, warmup = 1) {
  for (let i = 0; i < warmup; i++) await fn();
  const times = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  return median(times);
}

/** Formats a number with a fixed number of decimals. */
export function fmt(n, digits = 1) {
  return Number(n).toFixed(digits);
}
