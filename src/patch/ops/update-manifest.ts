/**
 * `:update-manifest` (GenesisCode `docs/spec/PATCH_SCHEMA.md`; docs/reference/patch-protocols.md §3.1): set manifest fields and edit the
 * obligation and test lists set-wise.
 *
 * Order: `:set` entries, then `:caps-policy`, then obligations (remove, add), then tests. `:set` keys
 * are symbols (a leading `:` is stripped: `:caps_policy` → `caps_policy`) or strings. Values are
 * converted conservatively: str → string, int → integer, bool → boolean, vector → array, map with
 * str/sym keys → table; anything else (nil, symbols, bytes, lists) is rejected. An obligation or
 * test list that is edited becomes a sorted (UTF-8 byte order), duplicate-free string array; lists
 * with empty add and remove sets are left exactly as written.
 */
import type { MapTerm, Term } from '../../coreform/term.js';
import { compareUtf8 } from '../../util/bytes.js';
import type { TomlTable, TomlValue } from '../../workspace/manifest-write.js';
import { PatchCode, patchError } from '../protocol/errors.js';
import { withManifestEdit, type PackageState } from '../protocol/state.js';
import { field, strsField, type OpOutcome } from './common.js';

function keyName(k: Term, at: string): string {
  let name: string;
  if (k.kind === 'str') name = k.value;
  else if (k.kind === 'sym') name = k.name.startsWith(':') ? k.name.slice(1) : k.name;
  else throw patchError(PatchCode.manifestValue, `${at}: manifest keys must be symbols or strings, got ${k.kind}`, { at });
  if (name.length === 0) throw patchError(PatchCode.manifestValue, `${at}: manifest keys must not be empty`, { at });
  return name;
}

/**
 * Converts a CoreForm term to a TOML value (see the module doc for the mapping). Iterative over
 * nesting is unnecessary here: manifests are shallow; depth is bounded at 64.
 * @throws GcError `patch/manifest-value` for a term with no TOML spelling.
 */
export function termToToml(t: Term, at: string, depth = 0): TomlValue {
  if (depth > 64) throw patchError(PatchCode.manifestValue, `${at}: value nests too deeply for package.toml`, { at });
  switch (t.kind) {
    case 'str':
      return t.value;
    case 'int':
      return t.value;
    case 'bool':
      return t.value;
    case 'vec':
      return t.items.map((x, i) => termToToml(x, `${at}[${i}]`, depth + 1));
    case 'map': {
      const out: TomlTable = {};
      for (const [k, v] of t.entries) {
        const name = keyName(k, at);
        out[name] = termToToml(v, `${at}.${name}`, depth + 1);
      }
      return out;
    }
    default:
      throw patchError(PatchCode.manifestValue, `${at}: a ${t.kind} has no package.toml spelling (use a string, integer, boolean, vector or map)`, {
        at,
      });
  }
}

function editList(manifest: TomlTable, key: string, remove: readonly string[], add: readonly string[]): void {
  if (remove.length === 0 && add.length === 0) return;
  const current = manifest[key] ?? [];
  if (!Array.isArray(current) || !current.every((x) => typeof x === 'string')) {
    throw patchError(PatchCode.manifestValue, `package.toml ${key} must be an array of strings to edit it`, { at: key });
  }
  const set = new Set(current as string[]);
  for (const s of remove) set.delete(s);
  for (const s of add) set.add(s);
  manifest[key] = [...set].sort(compareUtf8);
}

/** Applies a normalized `:update-manifest` op. Emits no evidence entry. */
export function applyUpdateManifest(state: PackageState, op: MapTerm): OpOutcome {
  const set = field(op, 'set');
  const caps = field(op, 'caps-policy');
  const next = withManifestEdit(state, (manifest) => {
    if (set.kind === 'map') {
      for (const [k, v] of set.entries) {
        const name = keyName(k, ':set');
        manifest[name] = termToToml(v, `:set ${name}`);
      }
    }
    if (caps.kind === 'str') manifest.caps_policy = caps.value;
    editList(manifest, 'obligations', strsField(op, 'obligations-remove'), strsField(op, 'obligations-add'));
    editList(manifest, 'tests', strsField(op, 'tests-remove'), strsField(op, 'tests-add'));
  });
  return { state: next, edit: undefined };
}
