/**
 * The transparency chain (docs/reference/signing.md "Transparency log"; GenesisCode
 * `docs/spec/TRANSPARENCY_LOG.md`): from the head, each entry's `:prev-h` names the one before, to
 * the first (`:prev-h nil`). The walk is iterative and bounded: at most {@link MAX_CHAIN_ENTRIES}
 * entries; a cycle, a missing, corrupt or malformed entry, or a longer chain fails closed.
 */
import { readArtifactTerm, type ArtifactReader } from './state.js';
import { parseTransparencyEntry, type TransparencyEntry } from './terms.js';

/** The most entries a chain may have (the reference's bound). */
export const MAX_CHAIN_ENTRIES = 16_384;

/** Stable codes of a chain walk's problems. */
export const ChainCode = {
  missing: 'transparency/entry-missing',
  corrupt: 'transparency/entry-corrupt',
  malformed: 'transparency/entry-malformed',
  cycle: 'transparency/cycle',
  tooLong: 'transparency/too-long',
} as const;

/** One entry of a walked chain. */
export interface ChainEntry extends TransparencyEntry {
  address: string;
}

/** The result of {@link walkChain}. */
export interface ChainResult {
  ok: boolean;
  /** The head walked from (undefined: an empty log). */
  head: string | undefined;
  /** The entries that read, head first. */
  entries: ChainEntry[];
  /** The first problem, if any (the walk stops there). */
  error: { code: string; at: string; message: string } | undefined;
}

/**
 * Walks the chain from `head` through `reader`. An absent head is an empty log (ok, no entries).
 * @param limit the bound (default {@link MAX_CHAIN_ENTRIES}; tests lower it).
 */
export function walkChain(reader: ArtifactReader, head: string | undefined, limit: number = MAX_CHAIN_ENTRIES): ChainResult {
  const entries: ChainEntry[] = [];
  const seen = new Set<string>();
  let cur = head;
  const stop = (code: string, at: string, message: string): ChainResult => ({ ok: false, head, entries, error: { code, at, message } });
  while (cur !== undefined) {
    if (seen.has(cur)) return stop(ChainCode.cycle, cur, `the transparency chain returns to entry ${cur}: a chain has no cycle`);
    if (entries.length >= limit) return stop(ChainCode.tooLong, cur, `the transparency chain has more than ${limit} entries`);
    seen.add(cur);
    const read = readArtifactTerm(reader, cur);
    if (!read.ok) {
      const code = read.problem === 'missing' ? ChainCode.missing : read.problem === 'corrupt' ? ChainCode.corrupt : ChainCode.malformed;
      const what = entries.length === 0 ? 'the head entry' : `the entry before ${entries[entries.length - 1]!.address}`;
      return stop(code, cur, `${what} ${cur}: ${read.reason} (a truncated or damaged chain does not verify)`);
    }
    const entry = parseTransparencyEntry(read.term);
    if (!entry.ok) return stop(ChainCode.malformed, cur, `transparency entry ${cur} is malformed: ${entry.reason}`);
    entries.push({ address: cur, ...entry.value });
    cur = entry.value.prev;
  }
  return { ok: true, head, entries, error: undefined };
}
