/**
 * The CoreForm term model: exactly nine kinds (docs/reference/coreform.md §1.1). The kind order is also the
 * cross-kind sort order of §1.4: nil < bool < int < str < bytes < sym < pair < vec < map.
 */
import { compareUtf8, compareBytes } from '../util/bytes.js';

/** `nil` (also what `()` reads as). */
export interface NilTerm {
  readonly kind: 'nil';
}
/** `true` / `false`. */
export interface BoolTerm {
  readonly kind: 'bool';
  readonly value: boolean;
}
/** An unbounded integer. */
export interface IntTerm {
  readonly kind: 'int';
  readonly value: bigint;
}
/** A string of Unicode scalars (a well-formed JS string). */
export interface StrTerm {
  readonly kind: 'str';
  readonly value: string;
}
/** An octet string. */
export interface BytesTerm {
  readonly kind: 'bytes';
  readonly value: Uint8Array;
}
/** A symbol. Keywords are symbols whose name starts with `:` (there is no keyword kind). */
export interface SymTerm {
  readonly kind: 'sym';
  readonly name: string;
}
/** A cons cell; proper lists are chains of pairs ending in nil. */
export interface PairTerm {
  readonly kind: 'pair';
  readonly car: Term;
  readonly cdr: Term;
}
/** A vector. */
export interface VecTerm {
  readonly kind: 'vec';
  readonly items: readonly Term[];
}
/** A map; `entries` are unique by key and always kept in canonical key order (§1.4). */
export interface MapTerm {
  readonly kind: 'map';
  readonly entries: readonly (readonly [Term, Term])[];
}

/** A CoreForm term: one of the nine kinds. */
export type Term = NilTerm | BoolTerm | IntTerm | StrTerm | BytesTerm | SymTerm | PairTerm | VecTerm | MapTerm;
/** The `kind` tag of a term. */
export type TermKind = Term['kind'];

/** Report names of the kinds (`:term-tag`), docs/reference/coreform.md §1.1. */
export const TERM_TAG: Record<TermKind, string> = {
  nil: 'nil',
  bool: 'bool',
  int: 'int',
  str: 'str',
  bytes: 'bytes',
  sym: 'sym',
  pair: 'pair',
  vec: 'vec',
  map: 'map',
};

const KIND_RANK: Record<TermKind, number> = { nil: 0, bool: 1, int: 2, str: 3, bytes: 4, sym: 5, pair: 6, vec: 7, map: 8 };

/** The nil term. */
export const NIL: NilTerm = Object.freeze({ kind: 'nil' });
/** The true term. */
export const TRUE: BoolTerm = Object.freeze({ kind: 'bool', value: true });
/** The false term. */
export const FALSE: BoolTerm = Object.freeze({ kind: 'bool', value: false });

/** Builds a bool term. */
export function bool(value: boolean): BoolTerm {
  return value ? TRUE : FALSE;
}
/** Builds an int term from a bigint or a safe JS integer. */
export function int(value: bigint | number): IntTerm {
  return { kind: 'int', value: typeof value === 'bigint' ? value : BigInt(value) };
}
/** Builds a string term (the JS string must be well-formed UTF-16: no lone surrogates). */
export function str(value: string): StrTerm {
  return { kind: 'str', value };
}
/** Builds a bytes term. */
export function bytes(value: Uint8Array): BytesTerm {
  return { kind: 'bytes', value };
}
/** Builds a symbol term; `sym(':foo')` is the keyword `:foo`. */
export function sym(name: string): SymTerm {
  return { kind: 'sym', name };
}
/** Builds a keyword: `kw('op')` is the symbol `:op`. */
export function kw(name: string): SymTerm {
  return { kind: 'sym', name: `:${name}` };
}
/** Builds a cons cell. */
export function pair(car: Term, cdr: Term): PairTerm {
  return { kind: 'pair', car, cdr };
}
/** Builds a proper list (chain of pairs ending in nil); `list()` is nil. */
export function list(...items: Term[]): Term {
  return listFrom(items);
}
/** Builds a proper list from an array (iteratively). */
export function listFrom(items: readonly Term[], tail: Term = NIL): Term {
  let out: Term = tail;
  for (let i = items.length - 1; i >= 0; i--) out = { kind: 'pair', car: items[i]!, cdr: out };
  return out;
}
/** Builds a vector term. */
export function vec(items: readonly Term[]): VecTerm {
  return { kind: 'vec', items };
}
/**
 * Builds a map term from entries in any order; duplicate keys: the last one wins (as the reader
 * does). Entries are sorted by the total order of §1.4.
 */
export function map(entries: Iterable<readonly [Term, Term]>): MapTerm {
  const arr = Array.isArray(entries) ? (entries as (readonly [Term, Term])[]).slice() : [...entries];
  // Keys already strictly increasing (a source written in canonical order): nothing to sort or drop.
  let ordered = true;
  for (let i = 1; i < arr.length; i++) {
    if (compareTerms(arr[i - 1]![0], arr[i]![0]) >= 0) {
      ordered = false;
      break;
    }
  }
  if (ordered) return { kind: 'map', entries: arr };
  // Stable sort keeps input order among equal keys, so the last of each run is the latest value.
  const indexed = arr.map((e, i) => [e, i] as const);
  indexed.sort((a, b) => compareTerms(a[0][0], b[0][0]) || a[1] - b[1]);
  const out: (readonly [Term, Term])[] = [];
  for (const [e] of indexed) {
    const last = out[out.length - 1];
    if (last !== undefined && compareTerms(last[0], e[0]) === 0) out[out.length - 1] = e;
    else out.push(e);
  }
  return { kind: 'map', entries: out };
}
/**
 * Convenience: a map whose keys are keywords given without the colon, e.g.
 * `kwMap({ op: kw('add-module') })` is `{:op :add-module}`. Insertion order does not matter.
 */
export function kwMap(fields: Record<string, Term>): MapTerm {
  return map(Object.entries(fields).map(([k, v]) => [kw(k), v] as const));
}

/** Returns the items of a proper list (nil → []), or `undefined` for an improper list or non-list. */
export function listItems(t: Term): Term[] | undefined {
  const out: Term[] = [];
  let cur = t;
  while (cur.kind === 'pair') {
    out.push(cur.car);
    cur = cur.cdr;
  }
  return cur.kind === 'nil' ? out : undefined;
}

/** Looks up `key` in a map term (binary search on canonical order); `undefined` if absent. */
export function mapGet(m: MapTerm, key: Term): Term | undefined {
  let lo = 0;
  let hi = m.entries.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const c = compareTerms(m.entries[mid]![0], key);
    if (c === 0) return m.entries[mid]![1];
    if (c < 0) lo = mid + 1;
    else hi = mid - 1;
  }
  return undefined;
}
/** `mapGet` with a keyword key given without its colon. */
export function mapGetKw(m: MapTerm, name: string): Term | undefined {
  return mapGet(m, kw(name));
}
/** Returns a new map with `key` set to `value` (replacing an existing entry). */
export function mapSet(m: MapTerm, key: Term, value: Term): MapTerm {
  return map([...m.entries, [key, value] as const]);
}

/** True for nil, bool, int, str, bytes and sym. */
export function isAtom(t: Term): boolean {
  return t.kind !== 'pair' && t.kind !== 'vec' && t.kind !== 'map';
}

/** The terms without parts: nil, bool, int, str, bytes and sym. */
type AtomTerm = NilTerm | BoolTerm | IntTerm | StrTerm | BytesTerm | SymTerm;

/** Order of two atoms of one kind, as `compareTerms` (docs/reference/coreform.md §1.4). */
function compareAtoms(x: AtomTerm, y: AtomTerm): number {
  switch (x.kind) {
    case 'nil':
      return 0;
    case 'bool':
      return x.value === (y as BoolTerm).value ? 0 : x.value ? 1 : -1;
    case 'int': {
      const yv = (y as IntTerm).value;
      return x.value === yv ? 0 : x.value < yv ? -1 : 1;
    }
    case 'str':
      return compareUtf8(x.value, (y as StrTerm).value);
    case 'sym':
      return compareUtf8(x.name, (y as SymTerm).name);
    case 'bytes':
      return compareBytes(x.value, (y as BytesTerm).value);
  }
}

/**
 * The total order on terms of docs/reference/coreform.md §1.4: kind rank first; bool false<true; int
 * numeric; str and sym by UTF-8 bytes; bytes bytewise; pair by car then cdr; vec element-wise then
 * shorter first; map entry-wise (key then value) then shorter first. Iterative: deep terms do not
 * overflow the stack.
 * @returns negative, zero or positive.
 */
export function compareTerms(a: Term, b: Term): number {
  // Two atoms of one kind (map keys, mostly): no stack.
  if (a.kind === b.kind && a.kind !== 'pair' && a.kind !== 'vec' && a.kind !== 'map') return a === b ? 0 : compareAtoms(a, b as AtomTerm);
  // Explicit stack of pending comparisons; each frame compares one pair of terms.
  const stack: [Term, Term][] = [[a, b]];
  // Deferred "length" comparisons must happen only after all element comparisons of the same
  // container were equal, so containers push their tail comparison before element pairs.
  const pendingLen: number[] = [];
  const marker: [Term, Term] = [NIL, NIL];
  while (stack.length > 0) {
    const top = stack.pop()!;
    if (top === marker) {
      const d = pendingLen.pop()!;
      if (d !== 0) return d;
      continue;
    }
    const [x, y] = top;
    if (x === y) continue;
    const rx = KIND_RANK[x.kind];
    const ry = KIND_RANK[y.kind];
    if (rx !== ry) return rx - ry;
    switch (x.kind) {
      case 'pair': {
        const yp = y as PairTerm;
        stack.push([x.cdr, yp.cdr], [x.car, yp.car]);
        continue;
      }
      case 'vec': {
        const xi = x.items;
        const yi = (y as VecTerm).items;
        pendingLen.push(xi.length - yi.length);
        stack.push(marker);
        for (let i = Math.min(xi.length, yi.length) - 1; i >= 0; i--) stack.push([xi[i]!, yi[i]!]);
        continue;
      }
      case 'map': {
        const xe = x.entries;
        const ye = (y as MapTerm).entries;
        pendingLen.push(xe.length - ye.length);
        stack.push(marker);
        for (let i = Math.min(xe.length, ye.length) - 1; i >= 0; i--) stack.push([xe[i]![1], ye[i]![1]], [xe[i]![0], ye[i]![0]]);
        continue;
      }
      default: {
        const c = compareAtoms(x, y as AtomTerm);
        if (c !== 0) return c;
        continue;
      }
    }
  }
  return 0;
}

/**
 * Pushes the parts of a pair (car, cdr), vector (items) or map (each key, then its value) onto
 * `out`, last first, so that popping gives them in reading order; an atom has none. The step of
 * every iterative walk over terms.
 */
export function pushParts(t: Term, out: Term[]): void {
  switch (t.kind) {
    case 'pair':
      out.push(t.cdr, t.car);
      return;
    case 'vec':
      for (let i = t.items.length - 1; i >= 0; i--) out.push(t.items[i]!);
      return;
    case 'map':
      for (let i = t.entries.length - 1; i >= 0; i--) out.push(t.entries[i]![1], t.entries[i]![0]);
      return;
    default:
      return;
  }
}

/**
 * Structural equality: the same answer as `compareTerms(a, b) === 0` (docs/reference/coreform.md
 * §1.4), without ordering anything: two parallel stacks of pending pairs, containers of different
 * lengths unequal at once, shared subterms (the same object) equal without a walk. Iterative.
 */
export function termsEqual(a: Term, b: Term): boolean {
  const xs: Term[] = [a];
  const ys: Term[] = [b];
  while (xs.length > 0) {
    const x = xs.pop()!;
    const y = ys.pop()!;
    if (x === y) continue;
    if (x.kind !== y.kind) return false;
    switch (x.kind) {
      case 'nil':
        continue;
      case 'bool':
      case 'int':
        if (x.value !== (y as BoolTerm | IntTerm).value) return false;
        continue;
      case 'str':
        if (x.value !== (y as StrTerm).value) return false;
        continue;
      case 'sym':
        if (x.name !== (y as SymTerm).name) return false;
        continue;
      case 'bytes':
        if (compareBytes(x.value, (y as BytesTerm).value) !== 0) return false;
        continue;
      default: {
        // a pair, vector or map: their parts, pending in the same order; unequal counts differ
        pushParts(x, xs);
        pushParts(y, ys);
        if (xs.length !== ys.length) return false;
        continue;
      }
    }
  }
  return true;
}

/**
 * Calls `visit` with the name of every symbol (keywords included) in `root`, in reading order
 * (pre-order, left to right; a map's key before its value). Iterative, any depth.
 */
export function forEachSymbol(root: Term, visit: (name: string) => void): void {
  const stack: Term[] = [root];
  while (stack.length > 0) {
    const t = stack.pop()!;
    if (t.kind === 'sym') visit(t.name);
    else pushParts(t, stack);
  }
}
