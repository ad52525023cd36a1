/** The evidence-store check of one package: base entries kept unchanged, each new entry re-hashed and read. */
import type { GitRepository } from '../../git/repository.js';
import { AuditCode, type PackageFindings } from '../report/findings.js';
import { listStoreAtCommit, storeEntryPath } from './package-at-commit.js';
import { CommitStore, type StoreEntryCheck } from './store-evidence.js';

/**
 * Reads the package's evidence store at the base and the head: an entry the base had must be at the
 * head unchanged (write-once, append-only); each new entry must hash to its name and read as a
 * canonical term. @returns the head's store and its new readable entries, by address.
 */
export async function checkStore(
  repo: GitRepository,
  base: string,
  head: string,
  dir: string,
  out: PackageFindings,
): Promise<{ headStore: CommitStore; fresh: StoreEntryCheck[] }> {
  const [baseListing, headListing] = await Promise.all([listStoreAtCommit(repo, base, dir), listStoreAtCommit(repo, head, dir)]);
  const headStore = new CommitStore(repo, head, dir, headListing);
  for (const [address, oid] of baseListing) {
    const file = storeEntryPath(dir, address);
    const now = headListing.get(address);
    if (now === undefined) {
      out.fail('store', address, 'write-once', {
        code: AuditCode.storeEntryRemoved,
        severity: 'warning',
        message: `evidence-store entry ${address.slice(0, 12)} was deleted; the store is append-only`,
        file,
        title: 'evidence removed',
      });
    } else if (now !== oid) {
      out.fail('store', address, 'write-once', {
        code: AuditCode.storeEntryModified,
        message: `evidence-store entry ${address.slice(0, 12)} existed at the base and was changed; entries are write-once`,
        file,
        title: 'evidence modified',
      });
    }
  }
  const freshNames = [...headListing.keys()].filter((a) => !baseListing.has(a)).sort();
  const fresh: StoreEntryCheck[] = [];
  for (const address of freshNames) {
    const e = (await headStore.entry(address))!;
    if (!e.hashOk) {
      out.fail('store', address, 'hash', {
        code: AuditCode.storeHashMismatch,
        message: `evidence-store entry ${address.slice(0, 12)} does not hash to its name (BLAKE3 of its bytes differs): the entry was edited or corrupted`,
        file: e.file,
        title: 'evidence tampered',
      });
      continue;
    }
    if (e.term === undefined || !e.canonical) {
      out.fail('store', address, 'parse', {
        code: AuditCode.storeEntryUnreadable,
        severity: 'warning',
        message: `evidence-store entry ${address.slice(0, 12)} hashes correctly but ${e.problem ?? 'cannot be read'}; only its hash was checked`,
        file: e.file,
        title: 'evidence unreadable',
      });
      continue;
    }
    if (e.kind === 'other') {
      out.skip('store', address, 'kind', `hash ok; kind ${e.kindString ?? '(none)'} is verified by hash only`);
    } else {
      out.pass('store', address, 'hash', `${e.kind}`);
    }
    fresh.push(e);
  }
  return { headStore, fresh };
}
