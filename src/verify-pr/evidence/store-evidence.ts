/**
 * Evidence-store entries of a package at a commit, read from git objects: re-hash each entry
 * against its name (docs/reference/evidence-store.md §5: plain BLAKE3 of the bytes), parse it as one CoreForm term
 * in canonical print, and dispatch on its `:kind`. Entries are looked up by address, and
 * patches and refactor requests by their hash-term identity (`:patch-h`, `:request-h`).
 */
import { hashTerm, storeAddress } from '../../coreform/hash.js';
import { printTerm } from '../../coreform/print.js';
import { readTerm } from '../../coreform/read.js';
import { mapGetKw, type Term } from '../../coreform/term.js';
import { readFileAtCommit, type GitRepository } from '../../git/repository.js';
import { decodeUtf8Strict } from '../../util/bytes.js';
import { isGcError } from '../../util/errors.js';
import { storeEntryPath } from './package-at-commit.js';

/** What a store entry is, by its `:kind` (a normalized patch has no `:kind`; see {@link evidenceKindOf}). */
export type EvidenceKind = 'refactor-plan-request' | 'refactor-plan' | 'apply-report' | 'patch' | 'package' | 'acceptance' | 'other';

/** `:kind` strings this version verifies, and the evidence kind each maps to. */
export const EVIDENCE_KINDS: Readonly<Record<string, EvidenceKind>> = Object.freeze({
  'genesis/refactor-plan-request-v0.1': 'refactor-plan-request',
  'genesis/refactor-plan-v0.1': 'refactor-plan',
  'genesis/patch-apply-v0.3': 'apply-report',
  'genesis/package-v0.2': 'package',
  'genesis/acceptance-v0.2': 'acceptance',
});

/**
 * The evidence kind of a parsed entry: by its `:kind` string; a map with exactly the keys
 * `:intent :ops :provenance :version` is a normalized patch (GenesisCode `docs/spec/PATCH_SCHEMA.md`); anything else is
 * `other` (verified by hash only).
 * @returns the kind and the raw `:kind` string, if any.
 */
export function evidenceKindOf(term: Term): { kind: EvidenceKind; kindString: string | undefined } {
  if (term.kind !== 'map') return { kind: 'other', kindString: undefined };
  const k = mapGetKw(term, 'kind');
  if (k?.kind === 'str') return { kind: EVIDENCE_KINDS[k.value] ?? 'other', kindString: k.value };
  const keys = term.entries.map(([key]) => (key.kind === 'sym' ? key.name : '')).join(' ');
  if (keys === ':intent :ops :provenance :version') return { kind: 'patch', kindString: undefined };
  return { kind: 'other', kindString: undefined };
}

/** One store entry as read and checked. */
export interface StoreEntryCheck {
  address: string;
  /** Repository-relative file path of the entry. */
  file: string;
  bytes: Uint8Array;
  /** BLAKE3(bytes) equals the name. */
  hashOk: boolean;
  /** The parsed term, when the bytes are one CoreForm term. */
  term: Term | undefined;
  /** The bytes are exactly `print_term(term)` (what the toolchain stores). */
  canonical: boolean;
  kind: EvidenceKind;
  kindString: string | undefined;
  /** Why the entry could not be parsed, when it could not. */
  problem: string | undefined;
}

/**
 * Checks one entry's bytes: hash against name, UTF-8, one term, canonical print, kind.
 * Pure; never throws: an entry that cannot be read or printed within the limits
 * — a parse error, or a term whose canonical print would be longer than the entry itself (e.g. a
 * ≈200 KB entry nested 100,000 deep, whose print is quadratic) — has `term: undefined`, kind
 * `other` and a `problem`, which verify-pr reports as `audit/store-entry-unreadable`. The print is
 * bounded by the entry's length, so memory stays proportional to the entry.
 */
export function checkStoreEntry(address: string, file: string, bytes: Uint8Array): StoreEntryCheck {
  const out: StoreEntryCheck = {
    address,
    file,
    bytes,
    hashOk: storeAddress(bytes) === address,
    term: undefined,
    canonical: false,
    kind: 'other',
    kindString: undefined,
    problem: undefined,
  };
  const text = decodeUtf8Strict(bytes);
  if (text === undefined) {
    out.problem = 'not valid UTF-8';
    return out;
  }
  try {
    out.term = readTerm(bytes);
  } catch (error) {
    out.problem = isGcError(error) ? `${error.code}: ${error.message}` : String(error);
    return out;
  }
  let print: string;
  try {
    // A canonical entry's print is exactly its text, so nothing longer needs to be built.
    print = printTerm(out.term, { maxLength: text.length });
  } catch (error) {
    out.term = undefined;
    out.problem =
      isGcError(error) && error.code === 'core/print/too-large'
        ? 'its term cannot be printed within the limits (its canonical print would be longer than the entry: nested too deeply?)'
        : isGcError(error)
          ? `${error.code}: ${error.message}`
          : String(error);
    return out;
  }
  out.canonical = print === text;
  if (!out.canonical) out.problem = 'the bytes are not the canonical print of the term they hold';
  Object.assign(out, evidenceKindOf(out.term));
  return out;
}

/**
 * The evidence store of one package at one commit, read lazily from git objects. Entries are
 * checked once and cached.
 */
export class CommitStore {
  private readonly checked = new Map<string, Promise<StoreEntryCheck>>();
  private readonly identities = new Map<string, string>();

  /**
   * @param repo the repository; @param commit the commit; @param dir the package directory;
   * @param listing entry name → blob oid (see `listStoreAtCommit`).
   */
  constructor(
    private readonly repo: GitRepository,
    private readonly commit: string,
    private readonly dir: string,
    readonly listing: ReadonlyMap<string, string>,
  ) {}

  /** True when the store has an entry of that name. */
  has(address: string): boolean {
    return this.listing.has(address);
  }

  /** Reads and checks entry `address`, or `undefined` when there is none. */
  async entry(address: string): Promise<StoreEntryCheck | undefined> {
    if (!this.listing.has(address)) return undefined;
    let p = this.checked.get(address);
    if (p === undefined) {
      const file = storeEntryPath(this.dir, address);
      p = readFileAtCommit(this.repo, this.commit, file).then((bytes) => checkStoreEntry(address, file, bytes ?? new Uint8Array()));
      this.checked.set(address, p);
    }
    return p;
  }

  /**
   * Finds a well-formed entry of `kind` whose hash-term is `h` (how `:patch-h` and `:request-h`
   * name a stored term). Entries in `prefer` are searched first, then the whole store.
   * @returns the entry, or `undefined`.
   */
  async findByHashTerm(kind: EvidenceKind, h: string, prefer: readonly string[] = []): Promise<StoreEntryCheck | undefined> {
    const order = [...prefer, ...[...this.listing.keys()].filter((a) => !prefer.includes(a))];
    for (const address of order) {
      const e = await this.entry(address);
      if (e === undefined || e.kind !== kind || e.term === undefined || !e.hashOk) continue;
      let id = this.identities.get(address);
      if (id === undefined) {
        try {
          id = hashTerm(e.term);
        } catch (error) {
          if (!isGcError(error)) throw error;
          id = ''; // cannot be hashed within the limits: names nothing
        }
        this.identities.set(address, id);
      }
      if (id === h) return e;
    }
    return undefined;
  }
}
