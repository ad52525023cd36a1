/**
 * Symbol sites: the exact source ranges of the symbol tokens that become a given symbol term in a
 * module's canonical forms. The reader keeps spans only for top-level forms, so this file has a
 * small lexer of its own that follows GENESIS_FACTS.md §1.2 token by token.
 *
 * A token counts when it is a symbol token spelled exactly `name` (symbols have no escapes, so the
 * token text is the name). Strings, bytes literals, comments and integers are skipped, including
 * the reader's `12abc` = Int 12 then Symbol `abc` rule. A symbol inside a quoted datum (`'x`,
 * `(quote x)`) still becomes a symbol term, so it counts. Canonicalization (§1.3) never drops or
 * duplicates a non-reserved symbol, so for such a symbol the only tokens that do not survive into
 * the forms are the ones inside an earlier entry of a map literal whose key repeats later in the
 * same literal ("last value wins"). (The planner accepts any non-empty symbol, reserved heads
 * included; for those the count check below is what keeps an export exact.)
 * Those are still reported, with `survives: false`: a rename must edit them too, or a renamed key
 * would stop colliding with the later (renamed) key and the dropped entry would come back.
 * Callers check the surviving count against the canonical count anyway.
 */
import { readTerm } from '../coreform/read.js';
import { termsEqual } from '../coreform/term.js';
import { utf8 } from '../util/bytes.js';

/** One symbol token: the half-open UTF-8 byte range [start, end) of its text in the source. */
export interface SymbolSite {
  start: number;
  end: number;
  /** False when the token sits in a map entry that a later equal key overwrites (no term results). */
  survives: boolean;
}

/** A completed datum: its byte span and the sites inside it. */
interface Item {
  start: number;
  end: number;
  sites: SymbolSite[];
}

/** An open container (`(`, `[`, `{`) or a pending quote prefix (`'`). */
interface Frame {
  kind: 'list' | 'vec' | 'map' | 'quote';
  start: number;
  items: Item[];
}

const WS = new Uint8Array(256);
for (const c of [0x20, 0x09, 0x0a, 0x0d]) WS[c] = 1;
const DELIM = new Uint8Array(256);
for (const c of ' \t\n\r()[]{}\'";') DELIM[c.charCodeAt(0)] = 1;

const isDigit = (c: number | undefined): boolean => c !== undefined && c >= 0x30 && c <= 0x39;

/** A map literal's sites, those of entries overwritten by a later equal key marked `survives: false`. */
function mapSites(source: Uint8Array, items: readonly Item[]): SymbolSite[] {
  const entries = items.length >> 1;
  if (entries < 2 || !items.some((i) => i.sites.length > 0)) return items.flatMap((i) => i.sites);
  const keys = Array.from({ length: entries }, (_, e) => readTerm(source.subarray(items[2 * e]!.start, items[2 * e]!.end)));
  const out: SymbolSite[] = [];
  for (let e = 0; e < entries; e++) {
    let overwritten = false;
    for (let later = e + 1; later < entries && !overwritten; later++) overwritten = termsEqual(keys[e]!, keys[later]!);
    const sites = [...items[2 * e]!.sites, ...items[2 * e + 1]!.sites];
    out.push(...(overwritten ? sites.map((x) => ({ ...x, survives: false })) : sites));
  }
  return out;
}

/**
 * Finds every symbol token spelled `name` in the module read from `source`, in source order, and
 * says whether it becomes a symbol term of the module.
 * @param source the module's UTF-8 bytes; it must read without error (`readModule`).
 * @param name the symbol name (non-empty, no delimiters).
 * @returns half-open UTF-8 byte ranges, ascending, each with `survives`.
 */
export function findSymbolSites(source: Uint8Array, name: string): SymbolSite[] {
  const want = utf8(name);
  const top: SymbolSite[] = [];
  const stack: Frame[] = [];
  const n = source.length;

  const complete = (item: Item): void => {
    let done = item;
    for (;;) {
      const frame = stack[stack.length - 1];
      if (frame === undefined) {
        top.push(...done.sites);
        return;
      }
      if (frame.kind !== 'quote') {
        frame.items.push(done);
        return;
      }
      stack.pop();
      done = { start: frame.start, end: done.end, sites: done.sites };
    }
  };

  let i = 0;
  while (i < n) {
    const c = source[i]!;
    if (WS[c]) {
      i++;
    } else if (c === 0x3b) {
      const lf = source.indexOf(0x0a, i);
      i = lf === -1 ? n : lf + 1;
    } else if (c === 0x28 || c === 0x5b || c === 0x7b) {
      stack.push({ kind: c === 0x28 ? 'list' : c === 0x5b ? 'vec' : 'map', start: i, items: [] });
      i++;
    } else if (c === 0x29 || c === 0x5d || c === 0x7d) {
      const frame = stack.pop()!;
      const sites = frame.kind === 'map' ? mapSites(source, frame.items) : frame.items.flatMap((x) => x.sites);
      i++;
      complete({ start: frame.start, end: i, sites });
    } else if (c === 0x27) {
      stack.push({ kind: 'quote', start: i, items: [] });
      i++;
    } else if (c === 0x22 || (c === 0x62 && source[i + 1] === 0x22)) {
      const start = i;
      i += c === 0x22 ? 1 : 2;
      while (i < n && source[i] !== 0x22) i += source[i] === 0x5c ? 2 : 1;
      i++;
      complete({ start, end: i, sites: [] });
    } else if (isDigit(c) || (c === 0x2d && isDigit(source[i + 1]))) {
      const start = i;
      i++;
      while (isDigit(source[i])) i++;
      complete({ start, end: i, sites: [] });
    } else {
      const start = i;
      while (i < n && !DELIM[source[i]!]) i++;
      let match = i - start === want.length;
      for (let k = 0; match && k < want.length; k++) match = source[start + k] === want[k];
      complete({ start, end: i, sites: match ? [{ start, end: i, survives: true }] : [] });
    }
  }
  return top;
}
