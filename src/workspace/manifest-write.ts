/**
 * Writing `package.toml` (docs/reference/package-toml.md §4): parse it into an editable table that keeps every
 * key the user wrote (unknown keys included), and render a table back in the reference's style —
 * keys sorted by UTF-8 bytes, plain values first, then `[tables]`, then `[[arrays of tables]]`
 * with `[[modules]]` last; arrays of values with two or more items one item per line with a
 * 4-space indent and a trailing comma, arrays of zero or one item on one line (`obligations = []`,
 * `tests = ["pkg/basic::tests"]`), as `toml::to_string_pretty` writes them (docs/reference/package-toml.md §4).
 * Integers stay integers (bigint), floats stay floats, dates keep their TOML spelling.
 *
 * With `keepKeyOrder` (what `gcpatch pack` and `apply` use) the writer keeps the author's order:
 * every table parsed by {@link parseManifestTable} (and its clones) remembers the order its keys
 * were written in; those keys keep it, and a key the author did not write (a new `hash` pin, a key a
 * manifest op adds) goes before the first of the author's keys that sorts after it. A file already
 * in the reference's order therefore stays byte for byte what the reference writes, and the first
 * pack of a hand-written manifest changes only the pins. Tables built in code (a fresh file, a new
 * `[[modules]]` entry) have no remembered order and are written sorted, as the reference writes them.
 */
import { parse, TomlDate, TomlError } from 'smol-toml';
import { tomlErrorMessage } from './toml-error.js';
import { compareUtf8 } from '../util/bytes.js';
import { GcError } from '../util/errors.js';

/** A parsed TOML table: values are string, bigint (integers), number (floats), boolean, TomlDate, arrays and tables. */
export type TomlTable = { [key: string]: TomlValue };
/** One TOML value as held in a {@link TomlTable}. */
export type TomlValue = string | bigint | number | boolean | Date | TomlValue[] | TomlTable;

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Parses `package.toml` into an editable table (integers as bigint so that they round-trip). Takes
 * the text, or its bytes (as git hands them to the merge driver), which must be UTF-8; the empty
 * text is the empty table.
 * @throws GcError `manifest/toml` (exit 10): bytes that are not UTF-8 (`package.toml is not valid
 *   UTF-8`), or a syntax error with its 1-based line and column.
 */
export function parseManifestTable(text: string | Uint8Array, file = 'package.toml'): TomlTable {
  if (typeof text !== 'string') {
    try {
      text = UTF8.decode(text);
    } catch {
      throw new GcError('manifest/toml', 'package.toml is not valid UTF-8');
    }
  }
  try {
    const table = parse(text, { integersAsBigInt: true }) as unknown as TomlTable;
    rememberKeyOrder(table);
    return table;
  } catch (error) {
    if (error instanceof TomlError) {
      throw new GcError('manifest/toml', tomlErrorMessage(error, text), {
        location: { file, line: error.line, column: error.column },
      });
    }
    throw error;
  }
}

/** The key order an author wrote, per parsed table (and carried to its clones). */
const AUTHOR_ORDER = new WeakMap<TomlTable, readonly string[]>();

/** Records the key order of `root` and of every table nested in it (iteratively: any depth). */
function rememberKeyOrder(root: TomlTable): void {
  const stack: TomlValue[] = [root];
  while (stack.length > 0) {
    const v = stack.pop()!;
    if (Array.isArray(v)) stack.push(...v);
    else if (isTomlTable(v)) {
      AUTHOR_ORDER.set(v, Object.keys(v));
      stack.push(...Object.values(v));
    }
  }
}

/**
 * The keys of `table` in writing order: sorted by UTF-8 bytes, or — with `keepOrder` and a
 * remembered author order — the author's keys in their order with each other key inserted before
 * the first author key that sorts after it (see the module doc). `lastKey` (top-level `modules`)
 * sorts after every other key when it is not one of the author's.
 */
function orderedKeys(table: TomlTable, keepOrder: boolean, lastKey?: string): string[] {
  const compare = (a: string, b: string) => (a === lastKey ? 1 : b === lastKey ? -1 : compareUtf8(a, b));
  const keys = Object.keys(table);
  const author = keepOrder ? AUTHOR_ORDER.get(table) : undefined;
  if (author === undefined) return keys.sort(compare);
  const present = new Set(keys);
  const out = author.filter((k) => present.has(k));
  const authored = new Set(out);
  for (const k of keys.filter((x) => !authored.has(x)).sort(compare)) {
    const at = out.findIndex((x) => authored.has(x) && compare(x, k) > 0);
    if (at < 0) out.push(k);
    else out.splice(at, 0, k);
  }
  return out;
}

/** True for a TOML table value (a plain object, not an array or date). */
export function isTomlTable(v: unknown): v is TomlTable {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);
}

/** A deep copy of a table (dates are shared: they are never mutated). */
export function cloneTomlTable(t: TomlTable): TomlTable {
  return structuredCloneValue(t) as TomlTable;
}

function structuredCloneValue(v: TomlValue): TomlValue {
  if (Array.isArray(v)) return v.map(structuredCloneValue);
  if (isTomlTable(v)) {
    const out: TomlTable = {};
    for (const [k, x] of Object.entries(v)) out[k] = structuredCloneValue(x);
    const order = AUTHOR_ORDER.get(v);
    if (order !== undefined) AUTHOR_ORDER.set(out, order);
    return out;
  }
  return v;
}

function quoteKey(key: string): string {
  return /^[A-Za-z0-9_-]+$/.test(key) ? key : quoteString(key);
}

function quoteString(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\b') out += '\\b';
    else if (ch === '\f') out += '\\f';
    else if (c < 0x20 || c === 0x7f) out += '\\u' + c.toString(16).toUpperCase().padStart(4, '0');
    else out += ch;
  }
  return out + '"';
}

function renderFloat(n: number): string {
  if (Number.isNaN(n)) return 'nan';
  if (n === Infinity) return 'inf';
  if (n === -Infinity) return '-inf';
  const s = String(n);
  return /[.eE]/.test(s) ? s : `${s}.0`;
}

function inlineValue(v: TomlValue): string {
  if (typeof v === 'string') return quoteString(v);
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'number') return renderFloat(v);
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (v instanceof TomlDate) return v.toISOString();
  if (v instanceof Date) return v.toISOString();
  if (Array.isArray(v)) return v.length === 0 ? '[]' : `[${v.map(inlineValue).join(', ')}]`;
  const keys = Object.keys(v).sort(compareUtf8);
  return keys.length === 0 ? '{}' : `{ ${keys.map((k) => `${quoteKey(k)} = ${inlineValue(v[k]!)}`).join(', ')} }`;
}

function isArrayOfTables(v: TomlValue): v is TomlTable[] {
  return Array.isArray(v) && v.length > 0 && v.every(isTomlTable);
}

function valueLine(key: string, v: TomlValue): string {
  if (Array.isArray(v) && v.length >= 2) {
    return `${quoteKey(key)} = [\n${v.map((x) => `    ${inlineValue(x)},\n`).join('')}]`;
  }
  return `${quoteKey(key)} = ${inlineValue(v)}`;
}

/** Renders one table body and its sub-sections; `prefix` is the dotted header path. */
function renderTable(table: TomlTable, prefix: string[], out: string[][], header: string | undefined, keepOrder: boolean): void {
  // [[modules]] goes last at the top level (the reference's layout), unless the author put it elsewhere.
  const keys = orderedKeys(table, keepOrder, prefix.length === 0 ? 'modules' : undefined);
  const plain = keys.filter((k) => !isTomlTable(table[k]!) && !isArrayOfTables(table[k]!));
  const tables = keys.filter((k) => isTomlTable(table[k]!));
  const arrays = keys.filter((k) => isArrayOfTables(table[k]!));
  const section: string[] = [];
  if (header !== undefined) section.push(header);
  for (const k of plain) section.push(valueLine(k, table[k]!));
  const hasSubSections = tables.length > 0 || arrays.length > 0;
  const isArrayElement = header !== undefined && header.startsWith('[[');
  if (section.length > 0 && (isArrayElement || plain.length > 0 || !hasSubSections)) out.push(section);
  for (const k of tables) {
    const path = [...prefix, k];
    renderTable(table[k] as TomlTable, path, out, `[${path.map(quoteKey).join('.')}]`, keepOrder);
  }
  for (const k of arrays) {
    const path = [...prefix, k];
    for (const element of table[k] as TomlTable[]) {
      renderTable(element, path, out, `[[${path.map(quoteKey).join('.')}]]`, keepOrder);
    }
  }
}

/**
 * Renders a manifest table as `package.toml` text in the reference's style (see the module doc).
 * Sections are separated by one blank line; the text ends with one newline.
 * @param options.keepKeyOrder keep the author's key order of parsed tables (default false: every
 *   key sorted, as the reference writes a file).
 */
export function renderManifest(table: TomlTable, options: { keepKeyOrder?: boolean } = {}): string {
  const sections: string[][] = [];
  renderTable(table, [], sections, undefined, options.keepKeyOrder === true);
  return sections.map((s) => s.join('\n')).join('\n\n') + '\n';
}
