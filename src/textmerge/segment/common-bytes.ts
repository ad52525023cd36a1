/** Common prefix, suffix and runs of two byte arrays, compared natively in 4 KiB steps. */

/** Length of the common prefix of `a` and `b` (native comparisons in 4 KiB steps). */
export function commonPrefix(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  const A = Buffer.from(a.buffer, a.byteOffset, a.length);
  const B = Buffer.from(b.buffer, b.byteOffset, b.length);
  let p = 0;
  while (p + 4096 <= n && A.compare(B, p, p + 4096, p, p + 4096) === 0) p += 4096;
  while (p < n && a[p] === b[p]) p++;
  return p;
}

/** Length of the common suffix of `a` and `b`, at most `limit`. */
export function commonSuffix(a: Uint8Array, b: Uint8Array, limit: number): number {
  const A = Buffer.from(a.buffer, a.byteOffset, a.length);
  const B = Buffer.from(b.buffer, b.byteOffset, b.length);
  const la = a.length;
  const lb = b.length;
  let s = 0;
  while (s + 4096 <= limit && A.compare(B, lb - s - 4096, lb - s, la - s - 4096, la - s) === 0) s += 4096;
  while (s < limit && a[la - 1 - s] === b[lb - 1 - s]) s++;
  return s;
}

/** Length of the common run of `a[as…]` and `b[bs…]`, at most `limit` (native comparisons in 4 KiB steps). */
export function commonRun(a: Buffer, as: number, b: Buffer, bs: number, limit: number): number {
  let m = 0;
  while (m + 4096 <= limit && a.compare(b, bs + m, bs + m + 4096, as + m, as + m + 4096) === 0) m += 4096;
  while (m < limit && a[as + m] === b[bs + m]) m++;
  return m;
}
