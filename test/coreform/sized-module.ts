// A module of a given size for the tests that read, print and hash at scale (the throughput figures are in bench/scale.js).

/** One unit of two forms: a def with a trailing comment, and a map with a string escape and a bytes literal. */
export const SIZED_UNIT =
  '(def pkg/mod::f (fn (x y) (core/int::add x (prim core/int::mul y 12345)))) ; comment\n' + '{:k "a string with \\n escape" :v [1 2 3 b"\\x00\\xff"]}\n';

/**
 * The source of a module of at least `bytes` bytes: {@link SIZED_UNIT} repeated `count` times
 * (so it holds `2 * count` forms).
 */
export function sizedModule(bytes: number): { unit: string; count: number; text: string } {
  const count = Math.ceil(bytes / SIZED_UNIT.length);
  return { unit: SIZED_UNIT, count, text: SIZED_UNIT.repeat(count) };
}
