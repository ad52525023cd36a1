/**
 * `gcpatch store prune` (docs/patches.md "Pruning the store"): which entries of a package's evidence
 * store nothing live references, and their removal. An entry is live when it is a root or a live
 * entry names it — by its address or by its hash-term (an apply report's `:patch-h`), as a 64-hex
 * string or as 32 bytes, anywhere in its term (docs/reference/hashing.md §2). Roots:
 * the entries the caller says are committed or staged in git, the addresses named by the pointer
 * files beside the store (`last_acceptance`, `last_signature`, `transparency_head`,
 * `signatures.gc`), every apply report with `:ok true`, every refactor plan and request, every
 * signature and transparency-log entry, and the extra addresses the caller adds (the package record
 * of the package as it is). What is left — typically a failed apply's report, acceptance, package
 * record and patch — is garbage.
 *
 * Removal order keeps the store closed at every moment: an entry is removed only after every
 * garbage entry naming it, so a crash mid-way never leaves an entry whose reference is gone (the
 * next prune removes the rest). Each removal is one `unlink`; the directory is synced at the end.
 */
import { readFileSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { readTerm } from '../coreform/read.js';
import type { Term } from '../coreform/term.js';
import { hashTermOfPrint } from '../coreform/hash.js';
import { fsyncDirectory } from '../util/atomic.js';
import { ioErrnoCode } from '../util/codes.js';
import { ExitCode, GcError } from '../util/errors.js';
import { summarizeTerm } from './prefix.js';
import type { EvidenceStore } from './store.js';

/** One entry prune would remove (or removed). */
export interface PruneEntry {
  hex: string;
  kind: string;
  summary: string;
  size: number;
}

/** What {@link planPrune} found. */
export interface PrunePlan {
  /** Entries in the store. */
  total: number;
  /** Live entries. */
  kept: number;
  /** Garbage, in removal order (an entry before every entry it names). */
  remove: PruneEntry[];
  /** Bytes the removal frees. */
  bytes: number;
}

/** The pointer files beside the store whose addresses are roots (docs/reference/evidence-store.md §5). */
export const POINTER_FILES = ['last_acceptance', 'last_signature', 'transparency_head', 'signatures.gc'] as const;

const HEX64 = /\b[0-9a-f]{64}\b/g;

/** Every address a term names: 64-hex strings and 32-byte values (iterative walk). */
function namedAddresses(term: Term, out: Set<string>): void {
  const stack: Term[] = [term];
  while (stack.length > 0) {
    const t = stack.pop()!;
    switch (t.kind) {
      case 'str':
        if (/^[0-9a-f]{64}$/.test(t.value)) out.add(t.value);
        break;
      case 'bytes':
        if (t.value.length === 32) out.add(Buffer.from(t.value).toString('hex'));
        break;
      case 'pair':
        stack.push(t.car, t.cdr);
        break;
      case 'vec':
        for (const i of t.items) stack.push(i);
        break;
      case 'map':
        for (const [k, v] of t.entries) stack.push(k, v);
        break;
      default:
        break;
    }
  }
}

/** Whether an entry of this kind and term is a root by itself (see the file comment). */
function isRootKind(kind: string, term: Term): boolean {
  if (kind === 'genesis/patch-apply-v0.3') {
    if (term.kind !== 'map') return false;
    const ok = term.entries.find(([k]) => k.kind === 'sym' && k.name === ':ok')?.[1];
    return ok?.kind === 'bool' && ok.value;
  }
  return kind.startsWith('genesis/refactor-plan') || kind.includes('signature') || kind.includes('transparency');
}

/**
 * Plans the prune of `store` (read-only). `roots` are addresses the caller keeps (committed or staged
 * entries, the current package record); names of entries not in the store are ignored. An entry that
 * does not read as a term is kept (it is corruption, for `store verify` to report, not garbage).
 * @throws GcError from the store's listing (`core/store/*`).
 */
export function planPrune(store: EvidenceStore, roots: Iterable<string>): PrunePlan {
  const entries = store.list();
  const present = new Map(entries.map((e) => [e.hex, e]));
  const names = new Map<string, Set<string>>();
  const info = new Map<string, { kind: string; summary: string }>();
  const live = new Set<string>();
  const queue: string[] = [];
  // An entry is named by its address or by the hash-term of its term.
  const byTermHash = new Map<string, string>();
  const resolve = (hex: string): string | undefined => (present.has(hex) ? hex : byTermHash.get(hex));
  const mark = (name: string): void => {
    const hex = resolve(name);
    if (hex !== undefined && !live.has(hex)) {
      live.add(hex);
      queue.push(hex);
    }
  };
  const terms = new Map<string, Term>();
  const unreadable: string[] = [];
  for (const e of entries) {
    try {
      const bytes = store.get(e.hex);
      terms.set(e.hex, readTerm(bytes));
      byTermHash.set(hashTermOfPrint(bytes), e.hex);
    } catch {
      unreadable.push(e.hex);
    }
  }
  for (const hex of unreadable) mark(hex);
  for (const e of entries) {
    const term = terms.get(e.hex);
    if (term === undefined) continue;
    const s = summarizeTerm(term);
    info.set(e.hex, s);
    const named = new Set<string>();
    namedAddresses(term, named);
    const out = new Set<string>();
    for (const n of named) {
      const hex = resolve(n);
      if (hex !== undefined && hex !== e.hex) out.add(hex);
    }
    names.set(e.hex, out);
    if (isRootKind(s.kind, term)) mark(e.hex);
  }
  for (const r of roots) mark(r);
  const genesis = join(store.dir, '..');
  for (const f of POINTER_FILES) {
    let text: string;
    try {
      text = readFileSync(join(genesis, f), 'utf8');
    } catch {
      continue;
    }
    for (const m of text.match(HEX64) ?? []) mark(m);
  }
  while (queue.length > 0) for (const n of names.get(queue.pop()!) ?? []) mark(n);

  // Removal order: repeatedly take the garbage entries no remaining garbage entry names.
  const garbage = new Set(entries.map((e) => e.hex).filter((h) => !live.has(h)));
  const namedBy = new Map<string, number>([...garbage].map((h) => [h, 0]));
  for (const g of garbage) for (const n of names.get(g) ?? []) if (namedBy.has(n)) namedBy.set(n, namedBy.get(n)! + 1);
  const ready = [...garbage].filter((h) => namedBy.get(h) === 0).sort();
  const order: string[] = [];
  while (ready.length > 0) {
    const h = ready.shift()!;
    order.push(h);
    for (const n of names.get(h) ?? []) {
      if (!namedBy.has(n)) continue;
      const left = namedBy.get(n)! - 1;
      namedBy.set(n, left);
      if (left === 0) ready.push(n);
    }
  }
  // A cycle cannot arise between content addresses; anything left is appended in name order.
  for (const h of [...garbage].sort()) if (!order.includes(h)) order.push(h);
  const remove = order.map((hex) => ({ hex, kind: info.get(hex)?.kind ?? '?', summary: info.get(hex)?.summary ?? '', size: present.get(hex)!.size }));
  return { total: entries.length, kept: entries.length - remove.length, remove, bytes: remove.reduce((a, e) => a + e.size, 0) };
}

/**
 * Removes the plan's entries from `store` in the plan's order, then syncs the store directory.
 * An entry already gone is skipped.
 * @throws GcError `io/<errno>` (exit 70) when an unlink fails; the entries before it are removed.
 */
export function applyPrune(store: EvidenceStore, plan: PrunePlan): void {
  for (const e of plan.remove) {
    try {
      unlinkSync(store.pathOf(e.hex));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') continue;
      throw new GcError(ioErrnoCode(code), `cannot remove ${store.pathOf(e.hex)}: ${(error as Error).message}`, {
        exitCode: ExitCode.io,
        location: { file: store.pathOf(e.hex) },
      });
    }
  }
  if (plan.remove.length > 0) fsyncDirectory(store.dir);
}
