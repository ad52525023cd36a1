// Shared helpers for the benchmark scripts.
import { spawnSync } from 'node:child_process';
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

/** Runs `git args…` in `cwd` with a fixed bench identity; returns trimmed stdout, throws on failure. */
export function git(cwd, ...args) {
  const r = spawnSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 'bench',
      GIT_AUTHOR_EMAIL: 'bench@example.invalid',
      GIT_COMMITTER_NAME: 'bench',
      GIT_COMMITTER_EMAIL: 'bench@example.invalid',
    },
  });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout.trim();
}
