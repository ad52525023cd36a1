// A deterministic generator of realistic GenesisCode modules for benchmarks.

/** A small deterministic PRNG (mulberry32). */
export function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Source text of one module of `defs` definitions in the hand-written style authors use
 * (comments, uncanonical spacing, multi-arg application, let, maps, strings).
 */
export function moduleSource(pkg, index, defs, random = rng(index + 1)) {
  const ns = `${pkg}/m${index}`;
  const lines = [`; ${ns}: generated benchmark module`, `(def ::meta '{:caps [] :exports [${ns}::f0] :types {${ns}::f0 ?}})`, ''];
  for (let d = 0; d < defs; d++) {
    const k = Math.floor(random() * 1000);
    lines.push(`;; definition ${d}`);
    switch (d % 4) {
      case 0:
        lines.push(
          `(def ${ns}::f${d}`,
          `  (fn (x y)`,
          `    (let ((s (prim int/add x ${k})) (t (prim int/mul y 3)))`,
          `      (if (prim int/lt s t) (core/list::cons s t) [s t "sum ${k}"]))))`,
        );
        break;
      case 1:
        lines.push(`(def ${ns}::table {:name "row-${k}" :weight ${k} :tags [:a :b :c] :nested {:x 1 :y -2}})`);
        break;
      case 2:
        lines.push(`(def ${ns}::g${d} (fn (items) (core/list::map (fn (i) (prim int/add i ${k})) items)))`);
        break;
      default:
        lines.push(`(def ${ns}::doc "A longer string with escapes\\n and unicode café ✓ for ${k}")`);
    }
    lines.push('');
  }
  lines.push(`${ns}::f0`, '');
  return lines.join('\n');
}
