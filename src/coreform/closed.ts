/**
 * The closed-map codec used by every request and report (docs/reference/patch-protocols.md: every
 * authority request and report is a closed map): decode a map with an exact key set and typed fields, or fail with a
 * typed error naming the missing, unknown or mistyped key.
 *
 * Error codes (exit 10): `core/closed/not-a-map`, `core/closed/missing-key`,
 * `core/closed/unknown-key`, `core/closed/wrong-type`, `core/closed/wrong-value`.
 */
import { GcError } from '../util/errors.js';
import { isHex64 } from '../util/bytes.js';
import { printAtom } from './print.js';
import { int, str, termsEqual, type Term } from './term.js';

/** A field decoder: checks `t` and returns the decoded value. `at` names the field for errors. */
export type Decoder<T> = (t: Term, at: string) => T;

function describe(t: Term): string {
  const atom = printAtom(t);
  if (atom !== undefined) return atom.length > 40 ? `${t.kind} ${atom.slice(0, 40)}…` : `${t.kind} ${atom}`;
  return t.kind;
}

function wrongType(at: string, expected: string, t: Term): GcError {
  return new GcError('core/closed/wrong-type', `field ${at} must be ${expected}, got ${describe(t)}`, {
    location: { at },
  });
}

/** A decoder of the terms of one kind, returning `take(t)` (the term's value, its name or the term). */
function ofKind<K extends Term['kind'], T>(kind: K, expected: string, take: (t: Extract<Term, { kind: K }>) => T): Decoder<T> {
  return (t, at) => {
    if (t.kind !== kind) throw wrongType(at, expected, t);
    return take(t as Extract<Term, { kind: K }>);
  };
}

/** Field decoders for the common field types. */
export const D = {
  /** Any term, returned as is. */
  any: ((t: Term) => t) as Decoder<Term>,
  /** A string. */
  str: ofKind('str', 'a string', (t) => t.value),
  /** A non-empty string. */
  nonEmptyStr: ((t: Term, at: string) => {
    if (t.kind !== 'str' || t.value.length === 0) throw wrongType(at, 'a non-empty string', t);
    return t.value;
  }) as Decoder<string>,
  /** An integer (bigint). */
  int: ofKind('int', 'an integer', (t) => t.value),
  /** A non-negative integer that fits a JS number. */
  index: ((t: Term, at: string) => {
    if (t.kind !== 'int' || t.value < 0n || t.value > BigInt(Number.MAX_SAFE_INTEGER)) {
      throw wrongType(at, 'a non-negative integer', t);
    }
    return Number(t.value);
  }) as Decoder<number>,
  /** A boolean. */
  bool: ofKind('bool', 'a boolean', (t) => t.value),
  /** A symbol; returns its name (keywords keep their leading colon). */
  sym: ofKind('sym', 'a symbol', (t) => t.name),
  /** A map term. */
  map: ofKind('map', 'a map', (t) => t),
  /** A vector term. */
  vec: ofKind('vec', 'a vector', (t) => t),
  /** A string of exactly 64 lowercase hex digits. */
  hex64: ((t: Term, at: string) => {
    if (t.kind !== 'str' || !isHex64(t.value)) throw wrongType(at, 'a lowercase hex64 string', t);
    return t.value;
  }) as Decoder<string>,
};

/** A vector whose every element is decoded by `item` (errors name `field[i]`). */
export function vecOf<T>(item: Decoder<T>): Decoder<T[]> {
  return (t, at) => {
    if (t.kind !== 'vec') throw wrongType(at, 'a vector', t);
    return t.items.map((e, i) => item(e, `${at}[${i}]`));
  };
}

/** `nil` decodes to `null`; anything else through `inner`. */
export function nullable<T>(inner: Decoder<T>): Decoder<T | null> {
  return (t, at) => (t.kind === 'nil' ? null : inner(t, at));
}

/** A field that must equal `expected` exactly (fixed `:kind`, `:profile`, `:v` values). */
export function literal(expected: Term): Decoder<Term> {
  return (t, at) => {
    if (!termsEqual(t, expected)) {
      throw new GcError('core/closed/wrong-value', `field ${at} must be ${describe(expected)}, got ${describe(t)}`, {
        location: { at },
      });
    }
    return t;
  };
}

/** A string that is one of `allowed`. */
export function oneOfStr<T extends string>(allowed: readonly T[]): Decoder<T> {
  return (t, at) => {
    if (t.kind !== 'str' || !(allowed as readonly string[]).includes(t.value)) {
      throw new GcError('core/closed/wrong-value', `field ${at} must be one of ${allowed.join(', ')}, got ${describe(t)}`, {
        location: { at },
      });
    }
    return t.value as T;
  };
}

/** Field decoders of a closed map, keyed by keyword name without the colon. */
/**
 * The decoders of the fixed identity a closed request or report opens with: `:kind` = `kind`,
 * `:profile` = `profile`, `:v` = 1 (each a {@link literal}); spread first into a {@link Spec}.
 */
export function fixedIdentity(kind: string, profile: string): { kind: Decoder<Term>; profile: Decoder<Term>; v: Decoder<Term> } {
  return { kind: literal(str(kind)), profile: literal(str(profile)), v: literal(int(1)) };
}

/** What a closed map may hold: each allowed key (without its `:`) and the decoder of its value. */
export type Spec = Record<string, Decoder<unknown>>;
/** The decoded fields of a closed map described by `S`. */
export type Decoded<S extends Spec> = { [K in keyof S]: S[K] extends Decoder<infer T> ? T : never };

/**
 * Decodes a closed map: `spec` maps keyword names (without the colon, e.g. `'module-path'`) to
 * decoders. Every key of `spec` must be present (unless listed in `optional`, then the decoder's
 * result for the absent key is `undefined`) and no other key may appear.
 * @param t the term to decode; @param spec field decoders; @param what a name for messages.
 * @returns the decoded fields keyed like `spec`.
 * @throws GcError `core/closed/not-a-map`, `core/closed/missing-key`, `core/closed/unknown-key`,
 *   `core/closed/wrong-type`, `core/closed/wrong-value` (all exit 10).
 */
export function decodeClosed<S extends Spec>(t: Term, spec: S, what: string, options: { optional?: readonly (keyof S & string)[] } = {}): Decoded<S> {
  if (t.kind !== 'map') {
    throw new GcError('core/closed/not-a-map', `${what} must be a map, got ${describe(t)}`);
  }
  const seen = new Set<string>();
  const out: Record<string, unknown> = {};
  for (const [k, v] of t.entries) {
    const name = k.kind === 'sym' && k.name.startsWith(':') ? k.name.slice(1) : undefined;
    if (name === undefined || !Object.prototype.hasOwnProperty.call(spec, name)) {
      throw new GcError('core/closed/unknown-key', `${what} has unknown key ${describe(k)}`, {
        location: { at: describe(k) },
      });
    }
    seen.add(name);
    out[name] = spec[name]!(v, `${what} :${name}`);
  }
  for (const name of Object.keys(spec)) {
    if (!seen.has(name) && !(options.optional ?? []).includes(name)) {
      throw new GcError('core/closed/missing-key', `${what} is missing key :${name}`, { location: { at: `:${name}` } });
    }
  }
  return out as Decoded<S>;
}
