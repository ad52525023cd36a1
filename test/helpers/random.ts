/**
 * A small deterministic random generator (xorshift32) for generated test cases: the same seed gives
 * the same cases on every run. Returns numbers in [0, 1).
 */
export function random(seed: number): () => number {
  let x = seed | 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 0x1_0000_0000;
  };
}
