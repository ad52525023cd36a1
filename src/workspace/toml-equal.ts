/** Equality of TOML values as the manifest merge driver and `gcpatch verify-pr` judge a `package.toml` change. */
import { isTomlTable, type TomlValue } from './manifest-write.js';

/**
 * True when two TOML values (as `parseManifestTable` in `./manifest-write.ts` reads them) are the same value; `undefined`
 * stands for an absent key and equals only `undefined`. One semantics for every caller, so the merge
 * driver (`src/textmerge/manifest.ts`) and verify-pr (`src/verify-pr/`) never judge one manifest
 * differently:
 *
 * - Integers (bigint) and floats (number) are different TOML types: `1` never equals `1.0`.
 * - Floats compare with `Object.is`: `-0.0` differs from `0.0` and every NaN equals every NaN. TOML
 *   floats are IEEE 754 binary64 values and `-0.0` is one of them, kept by the reader and written back
 *   as `-0.0`; treating it as `0.0` would let a merge drop a side's change silently. A value must equal
 *   itself, so an unchanged `nan` is no change (IEEE `NaN !== NaN` would make every `nan` key a
 *   conflict). smol-toml reads `nan`, `+nan` and `-nan` as one NaN; the driver's line merge and its
 *   read-back check see those spellings (see `src/textmerge/manifest.ts`).
 * - Dates and times compare by their TOML form (`toISOString` of smol-toml's `TomlDate`): the same
 *   kind (offset date-time, local date-time, local date, local time), the same fields to the
 *   millisecond (smol-toml's precision) and the same offset as written. Two offset date-times that
 *   denote one instant in different offsets (`07:32:00-08:00`, `15:32:00Z`), or `Z` and `+00:00`,
 *   are different values: the offset is part of what the author wrote and of what the writer writes
 *   back, so a change of it is a change, as with `-0.0`.
 * - Strings and booleans by value; arrays item by item; tables by their own keys (any key name,
 *   `"__proto__"` included), in any order.
 */
export function tomlEqual(a: TomlValue | undefined, b: TomlValue | undefined): boolean {
  if (typeof a === 'number' || typeof b === 'number') return Object.is(a, b);
  if (a === b) return true;
  if (a === undefined || b === undefined) return false;
  if (a instanceof Date || b instanceof Date) {
    return a instanceof Date && b instanceof Date && a.toISOString() === b.toISOString();
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => tomlEqual(x, b[i]));
  }
  if (isTomlTable(a) && isTomlTable(b)) {
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    return ka.every((k) => Object.hasOwn(b, k) && tomlEqual(a[k], b[k]));
  }
  return false;
}
