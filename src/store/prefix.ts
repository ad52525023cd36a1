/**
 * Store address prefixes: wherever a command takes an evidence-store address, any unique prefix of
 * at least {@link MIN_PREFIX_LENGTH} hex digits names the entry, as git does for object names.
 * Also the one-line summaries `gcpatch store ls` prints for each entry.
 */
import { readTerm } from '../coreform/read.js';
import { mapGetKw, type Term } from '../coreform/term.js';
import { ExitCode, GcError, isGcError } from '../util/errors.js';
import type { EvidenceStore } from './store.js';

/** The fewest hex digits accepted as an address prefix. */
export const MIN_PREFIX_LENGTH = 8;

/** Stable error codes of prefix resolution. */
export const PrefixCode = {
  /** Not hex digits at all (exit 10). */
  notAnAddress: 'store/not-an-address',
  /** Fewer than 8 hex digits (exit 10). */
  tooShort: 'store/prefix-too-short',
  /** Several entries start with the prefix (exit 10); `details.candidates` lists them. */
  ambiguous: 'store/ambiguous-prefix',
  /** No entry starts with the prefix (exit 50, like a missing full address). */
  notFound: 'core/store/not-found',
} as const;

/** True when `arg` is made of hex digits only (any case, any length ≥ 1): a candidate address or prefix. */
export function isHexArgument(arg: string): boolean {
  return /^[0-9a-fA-F]+$/.test(arg);
}

/**
 * Resolves an address or address prefix to the full 64-hex address of an entry of `store`.
 * Upper-case digits are accepted and lowered. A full 64-digit address is returned as given (the
 * caller's `get` reports it missing or corrupt).
 * @param arg what the user typed.
 * @returns the 64 lowercase hex digits of the one matching entry.
 * @throws GcError `store/not-an-address`, `store/prefix-too-short`, `store/ambiguous-prefix`
 *   (exit 10; the message lists every candidate with its kind), `core/store/not-found` (exit 50).
 */
export function resolveStoreAddress(store: EvidenceStore, arg: string): string {
  if (!isHexArgument(arg) || arg.length > 64) {
    throw new GcError(
      PrefixCode.notAnAddress,
      `${JSON.stringify(arg)} is not a store address: give its 64 hex digits or a unique prefix of at least ${MIN_PREFIX_LENGTH}`,
      {},
    );
  }
  const hex = arg.toLowerCase();
  if (hex.length === 64) return hex;
  if (hex.length < MIN_PREFIX_LENGTH) {
    throw new GcError(
      PrefixCode.tooShort,
      `store address prefix ${hex} is too short: give at least ${MIN_PREFIX_LENGTH} hex digits (see \`gcpatch store ls\`)`,
    );
  }
  const matches = store.list().filter((e) => e.hex.startsWith(hex));
  if (matches.length === 1) return matches[0]!.hex;
  if (matches.length === 0) {
    throw new GcError(PrefixCode.notFound, `no store entry starts with ${hex} in ${store.dir} (see \`gcpatch store ls\`)`, {
      exitCode: ExitCode.verificationFailed,
    });
  }
  const lines = matches.map((e) => `  ${e.hex}  ${describeEntry(store, e.hex).kind}`);
  throw new GcError(
    PrefixCode.ambiguous,
    `store address prefix ${hex} is ambiguous: ${matches.length} entries start with it; give more digits:\n${lines.join('\n')}`,
    { details: { candidates: matches.map((e) => e.hex) } },
  );
}

/** What `store ls` says about one entry. */
export interface EntrySummary {
  /** The entry's `:kind` (e.g. `genesis/patch-apply-v0.3`), `patch` for a normalized patch, `?` when unreadable. */
  kind: string;
  /** One line: the intent, `rename A -> B`, package name and version, `ok true|false`, …; empty when nothing to say. */
  summary: string;
}

const str = (m: Term, key: string): string | undefined => {
  const v = m.kind === 'map' ? mapGetKw(m, key) : undefined;
  return v?.kind === 'str' ? v.value : v?.kind === 'sym' ? v.name : undefined;
};
const bool = (m: Term, key: string): boolean | undefined => {
  const v = m.kind === 'map' ? mapGetKw(m, key) : undefined;
  return v?.kind === 'bool' ? v.value : undefined;
};

/** The `:from` and `:to` of the first map in `items` that has both (rename ops, semantic-edit details). */
function fromTo(items: Term | undefined, inner?: string): string | undefined {
  if (items?.kind !== 'vec') return undefined;
  for (const item of items.items) {
    const m = inner === undefined ? item : item.kind === 'map' ? mapGetKw(item, inner) : undefined;
    if (m === undefined) continue;
    const from = str(m, 'from');
    const to = str(m, 'to');
    if (from !== undefined && to !== undefined) return `${from} -> ${to}`;
  }
  return undefined;
}

/** `rename` for the intent `semantic-refactor/rename`, else undefined. */
function refactorKind(intent: string | undefined): string | undefined {
  return intent?.startsWith('semantic-refactor/') ? intent.slice('semantic-refactor/'.length) : undefined;
}

/**
 * The kind and one-line summary of a store entry, read from its bytes (hash-checked by
 * `store.get`). Never throws: an entry that cannot be read or parsed is kind `?` with the reason.
 */
export function describeEntry(store: EvidenceStore, hex: string): EntrySummary {
  let term: Term;
  try {
    term = readTerm(store.get(hex));
  } catch (error) {
    return { kind: '?', summary: isGcError(error) ? `${error.code}: ${error.message}` : String(error) };
  }
  return summarizeTerm(term);
}

/** The kind and one-line summary of a store entry's term (see {@link describeEntry}). */
export function summarizeTerm(term: Term): EntrySummary {
  if (term.kind !== 'map') return { kind: '?', summary: `a ${term.kind}, not a map` };
  const kind = str(term, 'kind');
  const ok = bool(term, 'ok');
  const okText = ok === undefined ? '' : ` ok ${ok}`;
  switch (kind) {
    case undefined: {
      const intent = str(term, 'intent');
      if (intent !== undefined && mapGetKw(term, 'ops') !== undefined) return { kind: 'patch', summary: `intent ${JSON.stringify(intent)}` };
      return { kind: '?', summary: 'a map without :kind' };
    }
    case 'genesis/refactor-plan-request-v0.1':
    case 'genesis/refactor-plan-v0.1': {
      const isReport = kind === 'genesis/refactor-plan-v0.1';
      const patch = isReport && term.kind === 'map' ? mapGetKw(term, 'patch') : undefined;
      const intent = patch !== undefined ? str(patch, 'intent') : undefined;
      const moved = patch?.kind === 'map' ? fromTo(mapGetKw(patch, 'ops')) : undefined;
      const what = isReport
        ? moved !== undefined
          ? `refactor ${refactorKind(intent) ?? intent ?? '?'} ${moved}`
          : (intent ?? 'refactor (no patch)')
        : `refactor ${str(term, 'refactor-kind') ?? '?'} ${str(term, 'from-symbol') ?? '?'} -> ${str(term, 'to-symbol') ?? '?'}` +
          (str(term, 'target-module-path') ? ` into ${str(term, 'target-module-path')}` : '');
      const safe = bool(term, 'safe-to-apply');
      return { kind, summary: what + (isReport ? (safe === true ? ', safe to apply' : ', conflicted') : '') };
    }
    case 'genesis/patch-apply-v0.3': {
      const moved = fromTo(mapGetKw(term, 'semantic-edits'), 'detail');
      return { kind, summary: `intent ${JSON.stringify(str(term, 'intent') ?? '')}${moved !== undefined ? ` (${moved})` : ''}${okText}` };
    }
    case 'genesis/package-v0.2':
      return { kind, summary: `package ${str(term, 'name') ?? '?'} ${str(term, 'version') ?? '?'}` };
    case 'genesis/acceptance-v0.2': {
      const pkg = mapGetKw(term, 'package');
      const name = pkg !== undefined ? `${str(pkg, 'name') ?? '?'} ${str(pkg, 'version') ?? '?'}` : '?';
      return { kind, summary: `package ${name}${okText}` };
    }
    default:
      return { kind, summary: okText.trim() };
  }
}
