/**
 * The `package.toml` merge driver (`merge=gcpatch-manifest`, docs/driver.md "The `package.toml` driver"): merges the manifest
 * by key and its `[[modules]]` list by path, three-way.
 *
 * - Every key (recursively through tables) follows the v0.1 rules 1–3 (equal → it; one side
 *   unchanged → the other); a key both sides changed differently is a conflict.
 * - `modules` entries are matched by `path`; their order is merged like top-level forms
 *   (textmerge/order.ts); each entry merges by key. A `hash` pin both sides changed differently becomes
 *   `""` and the caller is told to run `gcpatch pack`: an empty pin fails verification
 *   (docs/reference/package-toml.md §4), so nothing unverified passes silently.
 * - Any other conflict throws `merge/manifest/conflict`; the driver then falls back to the line merge.
 *
 * Layout: the result is first tried as a line merge of the texts (with each conflicting pin blanked
 * on both sides), which keeps ours' and theirs' layout and comments; it is used only if it reads back
 * as exactly the merged table. Otherwise the table is written in the reference style of
 * `genesis pack` (keys sorted, arrays one item per line with a 4-space indent, `[[modules]]` last,
 * `hash` before `path`). Texts are LF-normalized UTF-8 (textmerge/newline.ts restores the file's style).
 *
 * Values: tables are null-prototype objects (smol-toml's, and ours), read by own
 * property only, so any key name (a quoted `"__proto__"` included) is an ordinary key. Integers are
 * bigint; floats compare with `Object.is` (`-0.0` is a change from `0.0`; every NaN equals every
 * NaN). smol-toml reads `nan`, `+nan` and `-nan` as the same NaN and keeps times to the millisecond,
 * so two spellings can read as one value: the table merge cannot see such a change, but the line
 * merge can. The reference-style writer is therefore refused (`merge/manifest/unsupported`, the
 * driver falls back to the line merge) when a side spells a signed NaN or a time finer than a
 * millisecond, or when its output does not read back as the merged table (`-0.0` included).
 *
 * Cost: matching `[[modules]]` is linear (maps by path; order merge in textmerge/order.ts), and the
 * deadline is checked after parsing, inside every loop over keys or modules, and around the line
 * merge and the writer, so a merge past its budget stops with TimeoutError.
 */
import { isTomlTable, parseManifestTable, renderManifest, type TomlTable, type TomlValue } from '../workspace/manifest-write.js';
import { tomlEqual } from '../workspace/toml-equal.js';
import { GcError } from '../util/errors.js';
import { checkDeadline } from './common/deadline.js';
import { concatBytes, diff3 } from './common/diff3.js';
import { mergeOrder } from './resolve/order-merge.js';

// The one reader and the one equality of manifests (`src/workspace/`), offered here too for the driver's callers.
export { parseManifestTable, tomlEqual };

/** Error code: a manifest conflict the manifest driver does not resolve (the driver falls back). */
export const MANIFEST_CONFLICT = 'merge/manifest/conflict';
/** Error code: a manifest value the reference-style writer cannot write. */
export const MANIFEST_UNSUPPORTED = 'merge/manifest/unsupported';

/** The merged manifest table and the module paths whose pins were emptied. */
export interface ManifestTableMerge {
  table: TomlTable;
  emptiedPins: string[];
}

/** The result of {@link mergeManifestText}. */
export interface ManifestMergeResult {
  /** LF-normalized UTF-8 of the merged manifest. */
  text: Uint8Array;
  emptiedPins: string[];
  /** `line` when the layout-keeping line merge was used, `reference` for the reference-style writer. */
  layout: 'line' | 'reference';
  /** Notes for standard error (one per emptied pin). */
  messages: string[];
}

const encoder = new TextEncoder();

function conflict(message: string): GcError {
  return new GcError(MANIFEST_CONFLICT, message);
}

function isTable(v: TomlValue | undefined): v is TomlTable {
  return v !== undefined && isTomlTable(v);
}

/** A new empty table with no prototype (a `__proto__` key is then an ordinary own property). */
function emptyTable(): TomlTable {
  return Object.create(null) as TomlTable;
}

/** The own value of key `k` of `t` (never an inherited one), or `undefined`. */
function own(t: TomlTable, k: string): TomlValue | undefined {
  return Object.hasOwn(t, k) ? t[k] : undefined;
}

/** Sets own key `k` (a plain assignment of `__proto__` would change the prototype instead). */
function setOwn(t: TomlTable, k: string, v: TomlValue): void {
  Object.defineProperty(t, k, { value: v, writable: true, enumerable: true, configurable: true });
}

/** Keys of `tables` in first-seen order, each once. */
function unionKeys(...tables: TomlTable[]): string[] {
  const seen = new Set<string>();
  for (const t of tables) for (const k of Object.keys(t)) seen.add(k);
  return [...seen];
}

/** Checks the deadline every 1,024 calls (cheap enough for per-item loops). */
class Ticker {
  private n = 0;
  constructor(readonly deadline: number) {}
  tick(): void {
    if ((++this.n & 1023) === 0) checkDeadline(this.deadline);
  }
}

function mergeValue(
  at: string,
  b: TomlValue | undefined,
  o: TomlValue | undefined,
  t: TomlValue | undefined,
  pins: string[],
  clock: Ticker,
): TomlValue | undefined {
  clock.tick();
  if (tomlEqual(o, t)) return o;
  if (tomlEqual(o, b)) return t;
  if (tomlEqual(t, b)) return o;
  if (at === 'modules' && Array.isArray(o) && Array.isArray(t) && (b === undefined || Array.isArray(b))) {
    return mergeModules(b ?? [], o, t, pins, clock);
  }
  if (isTable(o) && isTable(t) && (b === undefined || isTable(b))) return mergeTables(at, b ?? emptyTable(), o, t, pins, clock);
  throw conflict(`both sides changed ${at} differently`);
}

function mergeTables(at: string, b: TomlTable, o: TomlTable, t: TomlTable, pins: string[], clock: Ticker): TomlTable {
  const out = emptyTable();
  for (const k of unionKeys(o, t, b)) {
    const v = mergeValue(at === '' ? k : `${at}.${k}`, own(b, k), own(o, k), own(t, k), pins, clock);
    if (v !== undefined) setOwn(out, k, v);
  }
  return out;
}

function modulePath(entry: TomlValue, side: string): string {
  const path = isTable(entry) ? own(entry, 'path') : undefined;
  if (typeof path !== 'string') throw conflict(`a modules entry of ${side} has no string path`);
  return path;
}

function mergeModules(b: TomlValue[], o: TomlValue[], t: TomlValue[], pins: string[], clock: Ticker): TomlValue[] {
  const ids = new Map<string, number>();
  const pathOf: string[] = [];
  const idOf = (p: string): number => {
    let id = ids.get(p);
    if (id === undefined) {
      id = ids.size;
      ids.set(p, id);
      pathOf.push(p);
    }
    return id;
  };
  const index = (list: TomlValue[], side: string): Map<number, TomlTable> => {
    const m = new Map<number, TomlTable>();
    for (const e of list) {
      clock.tick();
      const id = idOf(modulePath(e, side));
      if (m.has(id)) throw conflict(`${side} lists module ${modulePath(e, side)} twice`);
      m.set(id, e as TomlTable);
    }
    return m;
  };
  const bm = index(b, 'base');
  const om = index(o, 'ours');
  const tm = index(t, 'theirs');
  const bIndex = new Map<number, number>();
  [...bm.keys()].forEach((id, i) => bIndex.set(id, i));
  const merged = new Map<number, TomlTable | undefined>();
  // Ids are dense (0 … ids.size - 1): every module once, in first-seen order.
  for (let id = 0; id < pathOf.length; id++) {
    clock.tick();
    const eb = bm.get(id);
    const eo = om.get(id);
    const et = tm.get(id);
    const path = pathOf[id]!;
    if (tomlEqual(eo, et)) merged.set(id, eo);
    else if (tomlEqual(eo, eb)) merged.set(id, et);
    else if (tomlEqual(et, eb)) merged.set(id, eo);
    else if (eo && et) {
      const entry = emptyTable();
      const base = eb ?? emptyTable();
      for (const k of unionKeys(eo, et, base)) {
        const vo = own(eo, k);
        const vt = own(et, k);
        const vb = own(base, k);
        let v: TomlValue | undefined;
        if (k === 'hash' && !tomlEqual(vo, vt) && !tomlEqual(vo, vb) && !tomlEqual(vt, vb)) {
          v = '';
          pins.push(path);
        } else v = mergeValue(`modules[${path}].${k}`, vb, vo, vt, pins, clock);
        if (v !== undefined) setOwn(entry, k, v);
      }
      merged.set(id, entry);
    } else throw conflict(`one side removed module ${path} from modules, the other changed its entry`);
  }
  const order = mergeOrder(
    [...om.keys()],
    [...tm.keys()],
    (id) => bIndex.get(id) ?? -1,
    (id) => merged.get(id) !== undefined,
    clock.deadline,
  );
  if (order === undefined) throw conflict('both sides moved a module to different places in modules');
  return order.map((id) => merged.get(id)!);
}

/**
 * Merges three parsed manifests (see the file comment for the rules).
 * @param deadline ms on the `performance.now()` clock (default: none).
 * @throws GcError `merge/manifest/conflict` for any conflict other than a `hash` pin; TimeoutError
 *   after the deadline.
 */
export function mergeManifestTables(base: TomlTable, ours: TomlTable, theirs: TomlTable, deadline = Infinity): ManifestTableMerge {
  const pins: string[] = [];
  const table = mergeTables('', base, ours, theirs, pins, new Ticker(deadline));
  return { table, emptiedPins: pins };
}

/**
 * Spellings that smol-toml reads as a value shared with another spelling, so the table cannot show
 * a change between them: a signed NaN (`-nan`, `+nan` read as `nan`) and a time with more than
 * three fractional digits (read to the millisecond). A signed nan counts in a value position
 * (after `=`, `[` or `,`), so a name like `"my-nano"` does not. Conservative otherwise: a match
 * inside a string or a comment also counts (it only costs the reference layout).
 */
const LOSSY_SPELLING = /(?:^|[=[,])\s*[+-]nan(?![A-Za-z0-9_-])|:[0-9]{2}\.[0-9]{4,}/m;

/** True when `text` may hold a value the table (and so the reference writer) cannot tell apart. */
export function hasLossySpelling(text: string): boolean {
  return LOSSY_SPELLING.test(text);
}

// ---------------------------------------------------------------------------------------------
// Layout-keeping line merge

const MODULES_HEADER = /^\s*\[\[\s*modules\s*\]\]\s*(#.*)?$/;
const PATH_LINE = /^\s*path\s*=\s*"([^"\\]*)"\s*(#.*)?$/;
const HASH_LINE = /^(\s*hash\s*=\s*)"[^"\\]*"(\s*(#.*)?)$/;

/** `text` with the `hash` value of each `[[modules]]` table whose path is in `paths` set to `""`; undefined if one is not found. */
export function blankPins(text: string, paths: readonly string[]): string | undefined {
  if (paths.length === 0) return text;
  const wanted = new Set(paths);
  const lines = text.split('\n');
  const done = new Set<string>();
  let i = 0;
  while (i < lines.length) {
    if (!MODULES_HEADER.test(lines[i]!)) {
      i++;
      continue;
    }
    let end = i + 1;
    while (end < lines.length && !/^\s*\[/.test(lines[end]!)) end++;
    let path: string | undefined;
    let hashLine = -1;
    for (let k = i + 1; k < end; k++) {
      const p = PATH_LINE.exec(lines[k]!);
      if (p) path = p[1];
      if (HASH_LINE.test(lines[k]!)) hashLine = k;
    }
    if (path !== undefined && wanted.has(path) && hashLine >= 0) {
      lines[hashLine] = lines[hashLine]!.replace(HASH_LINE, '$1""$2');
      done.add(path);
    }
    i = end;
  }
  return done.size === wanted.size ? lines.join('\n') : undefined;
}

/**
 * Merges three versions of `package.toml` text (LF-normalized UTF-8).
 * @param options `deadline` (ms, `performance.now()` clock); it covers every step: parsing, the
 *   table merge, the line merge, the reference writer and the read-back checks.
 * @throws GcError `manifest/toml` (a side does not parse), `merge/manifest/conflict`,
 *   `merge/manifest/unsupported` (the reference layout would lose a value); TimeoutError after the
 *   deadline.
 */
export function mergeManifestText(base: Uint8Array, ours: Uint8Array, theirs: Uint8Array, options: { deadline?: number } = {}): ManifestMergeResult {
  const deadline = options.deadline ?? Infinity;
  const tables: TomlTable[] = [];
  for (const side of [base, ours, theirs]) {
    tables.push(parseManifestTable(side));
    checkDeadline(deadline);
  }
  const merged = mergeManifestTables(tables[0]!, tables[1]!, tables[2]!, deadline);
  checkDeadline(deadline);
  const messages = merged.emptiedPins.map(
    (p) =>
      `both sides re-pinned module ${JSON.stringify(p)} differently; its hash pin is now "" and verification fails until you re-pin: after the merge, run \`gcpatch driver repin\` (gcpatch pack on every package left with empty pins)`,
  );
  const dec = new TextDecoder();
  const o = blankPins(dec.decode(ours), merged.emptiedPins);
  const t = blankPins(dec.decode(theirs), merged.emptiedPins);
  checkDeadline(deadline);
  if (o !== undefined && t !== undefined) {
    const r = diff3(base, encoder.encode(o), encoder.encode(t), deadline);
    checkDeadline(deadline);
    if (r.conflicts === 0) {
      const parts: Uint8Array[] = [];
      for (const c of r.chunks) if (c.kind === 'ok') for (const line of c.lines) parts.push(line);
      const text = concatBytes(parts);
      let reread: TomlTable | undefined;
      try {
        reread = parseManifestTable(text);
      } catch {
        reread = undefined;
      }
      checkDeadline(deadline);
      if (reread && tomlEqual(reread, merged.table)) return { text, emptiedPins: merged.emptiedPins, layout: 'line', messages };
    }
  }
  if ([base, ours, theirs].some((side) => hasLossySpelling(dec.decode(side)))) {
    throw new GcError(
      MANIFEST_UNSUPPORTED,
      'a side spells a signed nan or a time finer than a millisecond, which the reference-style writer cannot keep apart; use the line merge',
    );
  }
  checkDeadline(deadline);
  const text = encoder.encode(renderManifest(merged.table));
  checkDeadline(deadline);
  if (!tomlEqual(parseManifestTable(text), merged.table)) {
    throw new GcError(MANIFEST_UNSUPPORTED, 'the reference-style manifest does not read back as the merged table');
  }
  messages.push('package.toml rewritten in the reference layout of `genesis pack` (keys sorted; comments are not kept)');
  return { text, emptiedPins: merged.emptiedPins, layout: 'reference', messages };
}
