/**
 * The `[[modules]]` and `[[dependencies]]` entries of `package.toml` that a clean line merge can get
 * wrong (`merge-bytes.ts` marks the whole file then): an entry listed twice, or an entry one side
 * removed while the other changed it.
 */
import { isTomlTable, parseManifestTable, type TomlValue } from '../workspace/manifest-write.js';
import { tomlEqual } from '../workspace/toml-equal.js';

/** The entry lists of a manifest matched by name: `[[modules]]` by `path`, `[[dependencies]]` by `name`. */
const MANIFEST_ENTRY_LISTS = [
  ['modules', 'path', 'module'],
  ['dependencies', 'name', 'dependency'],
] as const;

/** The entries of `list` in `table` by their `field`; entries without a string name are left out. */
function entriesByName(table: Record<string, unknown>, list: string, field: string): Map<string, TomlValue> {
  const byName = new Map<string, TomlValue>();
  const entries = table[list];
  if (!Array.isArray(entries)) return byName;
  for (const entry of entries) {
    if (isTomlTable(entry) && typeof entry[field] === 'string') byName.set(entry[field] as string, entry as TomlValue);
  }
  return byName;
}

/**
 * The first `[[modules]]` or `[[dependencies]]` entry of base that one side removed while the
 * other changed it, as `module "p"` / `dependency "n"`; undefined when there is none or a side does
 * not read as TOML (never throws). No merge can keep both sides' change of such an entry; entries
 * compare as values (`tomlEqual`, src/workspace/toml-equal.ts), so a reformatted entry is unchanged.
 * @param base the three sides as UTF-8 `package.toml` bytes (docs/reference/package-toml.md).
 */
export function modifiedAndRemovedEntry(base: Uint8Array, ours: Uint8Array, theirs: Uint8Array): string | undefined {
  let tables;
  try {
    tables = [base, ours, theirs].map((side) => parseManifestTable(side));
  } catch {
    return undefined;
  }
  const [b, o, t] = tables as [Record<string, unknown>, Record<string, unknown>, Record<string, unknown>];
  for (const [list, field, what] of MANIFEST_ENTRY_LISTS) {
    const [inBase, inOurs, inTheirs] = [entriesByName(b, list, field), entriesByName(o, list, field), entriesByName(t, list, field)];
    for (const [name, entry] of inBase) {
      const [mine, other] = [inOurs.get(name), inTheirs.get(name)];
      if ((mine === undefined) === (other === undefined)) continue;
      const kept = mine ?? other!;
      if (!tomlEqual(kept, entry)) return `${what} ${JSON.stringify(name)}`;
    }
  }
  return undefined;
}

/**
 * The first `[[modules]]` path or `[[dependencies]]` name a manifest text lists twice, as
 * `module "p"` / `dependency "n"`; undefined when there is none or the text does not read as TOML.
 */
export function repeatedManifestEntry(text: Uint8Array): string | undefined {
  let table;
  try {
    table = parseManifestTable(text);
  } catch {
    return undefined;
  }
  for (const [key, field, what] of MANIFEST_ENTRY_LISTS) {
    const list = table[key];
    if (!Array.isArray(list)) continue;
    const seen = new Set<string>();
    for (const entry of list) {
      if (!isTomlTable(entry)) continue;
      const name = entry[field];
      if (typeof name !== 'string') continue;
      if (seen.has(name)) return `${what} ${JSON.stringify(name)}`;
      seen.add(name);
    }
  }
  return undefined;
}
