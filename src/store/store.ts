/**
 * The content-addressed evidence store (docs/reference/evidence-store.md §5):
 * `<package>/.genesis/store/<hex>`, a flat directory whose file names are the lowercase hex of the
 * plain (unprefixed) BLAKE3 of the file bytes. Terms are stored as their `print_term` bytes.
 *
 * Write-once: an existing entry is re-hashed and never overwritten (`core/store/corruption` on a
 * mismatch). A put writes a unique temp file `.tmp-<hash>-<pid>-<start>-<n>` (create-new; `<pid>-<start>`
 * names its writer, src/util/temp-owner.ts), fsyncs it, links it to its final name (no overwrite;
 * rename where links are unsupported), removes the temp file and fsyncs the directory. A writer
 * killed in between leaves the temp file: {@link EvidenceStore.scan} tells an abandoned one (its
 * writer is gone) from a live one, `store verify` reports abandoned ones, and the next command under
 * the package lock (`recover`, `apply`, …) removes them ({@link EvidenceStore.removeAbandonedTemps}).
 *
 * Codes: `core/store/not-found`, `core/store/corruption` (exit 50), `core/store/io-error`
 * (exit 70), `core/caps/resource-limit` (exit 50 while verifying, 70 on put). Bounds (defaults):
 * 32 MiB per artifact, 512 MiB in total, 8,192 entries (docs/reference/evidence-store.md §5).
 */
import { closeSync, constants, lstatSync, mkdirSync, openSync, readdirSync, readSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { storeAddress, storeAddressStream, termAddressOfPrint } from '../coreform/hash.js';
import { printTerm } from '../coreform/print.js';
import { readTerm } from '../coreform/read.js';
import type { Term } from '../coreform/term.js';
import { createFileExclusive, fsyncDirectory } from '../util/atomic.js';
import { compareUtf8, isHex64, utf8 } from '../util/bytes.js';
import { ExitCode, GcError, type GcCode } from '../util/errors.js';
import { ownerAlive, ownerTag } from '../util/temp-owner.js';

/** Store error codes (stable). */
export const StoreCode = {
  notFound: 'core/store/not-found',
  corruption: 'core/store/corruption',
  ioError: 'core/store/io-error',
  resourceLimit: 'core/caps/resource-limit',
} as const;

/** Store bounds; all sizes in bytes. */
export interface StoreLimits {
  /** Largest single artifact (default 32 MiB). */
  maxArtifactBytes: number;
  /** Largest total of all entries checked by a whole-store verify (default 512 MiB). */
  maxTotalBytes: number;
  /** Most entries a whole-store verify accepts (default 8,192). */
  maxEntries: number;
}

/** The bounds of docs/reference/evidence-store.md §5. */
export const DEFAULT_STORE_LIMITS: Readonly<StoreLimits> = Object.freeze({
  maxArtifactBytes: 32 * 1024 * 1024,
  maxTotalBytes: 512 * 1024 * 1024,
  maxEntries: 8192,
});

/** One store entry: its hex name and size in bytes. */
export interface StoreEntry {
  hex: string;
  size: number;
}

/** One failure of a verify. */
export interface StoreFailure {
  code: string;
  /** The entry's name: its address, or for an anomaly the offending file name; undefined for the whole store. */
  hex: string | undefined;
  message: string;
}

/**
 * The result of {@link EvidenceStore.verify}. `checked` counts entries whose hash matched;
 * `failure` is the first failure in name order, `failures` every one (whole-store mode checks
 * every name in the store and goes on after a failure); `skippedTemp` counts the put's own
 * temporary files (`.tmp-<hex>-<pid>-<start>-<n>`, regular files), which are not entries;
 * `abandonedTemp` names those of them whose writer is gone (left by a killed process).
 */
export interface StoreVerifyResult {
  ok: boolean;
  checked: number;
  totalBytes: number;
  failure: StoreFailure | undefined;
  failures: StoreFailure[];
  skippedTemp: number;
  abandonedTemp: string[];
}

/** What {@link EvidenceStore.scan} found: the entries, and every name that is not one. */
export interface StoreScan {
  /** Regular files named exactly 64 lowercase hex digits, sorted by raw name bytes. */
  entries: StoreEntry[];
  /** One `core/store/corruption` failure per other name (symlink, directory, junk name), in name order. */
  anomalies: StoreFailure[];
  /** Regular files named like the put's temporary files (`.tmp-<hex>-<pid>-<start>-<n>`, or `.tmp-<hex>-<pid>-<n>` of older versions). */
  temporary: string[];
  /** Those of {@link StoreScan.temporary} whose writer is gone (src/util/temp-owner.ts `ownerAlive`). */
  abandoned: string[];
  /** Every name in the directory (entries, anomalies and temporary files). */
  names: number;
}

/** The temporary-file name of {@link EvidenceStore.put}: writer pid, its start time (absent in older versions), a counter. */
const TEMP_NAME = /^\.tmp-[0-9a-f]{64}-([0-9]+)-(?:([0-9]+)-)?[0-9]+$/;

/** Options of {@link EvidenceStore}. */
export interface EvidenceStoreOptions {
  limits?: Partial<StoreLimits>;
  /** Fault-injection hook called with `store:put` before a new entry is written; throw to fail. */
  faults?: (step: string) => void;
}

let tempCounter = 0;
const CHUNK = 1 << 20;

function storeError(code: GcCode, message: string, exitCode: ExitCode, hex?: string, cause?: unknown): GcError {
  return new GcError(code, message, {
    exitCode,
    ...(hex !== undefined ? { location: { at: hex } } : {}),
    ...(cause !== undefined ? { cause } : {}),
  });
}

function ioFail(action: string, path: string, error: unknown): GcError {
  const reason = error instanceof Error ? error.message : String(error);
  return storeError(StoreCode.ioError, `cannot ${action} ${path}: ${reason}`, ExitCode.io, undefined, error);
}

/** The evidence store of one package. */
export class EvidenceStore {
  /** Absolute store directory (`<pkg>/.genesis/store`). */
  readonly dir: string;
  readonly limits: StoreLimits;
  private readonly faults: ((step: string) => void) | undefined;

  /**
   * @param dir the store directory (created on the first put).
   * @param options bounds and fault hook.
   */
  constructor(dir: string, options: EvidenceStoreOptions = {}) {
    this.dir = dir;
    this.limits = { ...DEFAULT_STORE_LIMITS, ...(options.limits ?? {}) };
    this.faults = options.faults;
  }

  /** The store of the package whose directory (holding `package.toml`) is `packageDir`. */
  static forPackage(packageDir: string, options: EvidenceStoreOptions = {}): EvidenceStore {
    return new EvidenceStore(join(packageDir, '.genesis', 'store'), options);
  }

  /** The file path of entry `hex`. */
  pathOf(hex: string): string {
    return join(this.dir, hex);
  }

  /**
   * Stores `bytes` write-once and returns their address (lowercase hex BLAKE3).
   * @throws GcError `core/store/corruption` when an existing entry of that name does not hash to
   *   it; `core/caps/resource-limit` above the per-artifact bound; `core/store/io-error`.
   */
  put(bytes: Uint8Array): string {
    this.assertWithinLimit(bytes);
    return this.putAt(bytes, storeAddress(bytes));
  }

  /** Stores a term as its `print_term` bytes; returns the address. @throws as {@link put}. */
  putTerm(t: Term): string {
    const printed = printTerm(t);
    const bytes = utf8(printed);
    this.assertWithinLimit(bytes);
    return this.putAt(bytes, termAddressOfPrint(printed));
  }

  private assertWithinLimit(bytes: Uint8Array): void {
    if (bytes.length > this.limits.maxArtifactBytes) {
      throw storeError(StoreCode.resourceLimit, `artifact of ${bytes.length} bytes exceeds the ${this.limits.maxArtifactBytes}-byte bound`, ExitCode.io);
    }
  }

  /** {@link put} of `bytes` (within the limit) whose store address `hex` this class has just computed. */
  private putAt(bytes: Uint8Array, hex: string): string {
    const final = this.pathOf(hex);
    if (this.existingEntry(hex)) return hex;
    this.faults?.('store:put');
    try {
      mkdirSync(this.dir, { recursive: true });
    } catch (error) {
      throw ioFail('create', this.dir, error);
    }
    const tmp = join(this.dir, `.tmp-${hex}-${ownerTag()}-${tempCounter++}`);
    let created: boolean;
    try {
      created = createFileExclusive(tmp, final, bytes, 0o444, 'rename');
    } catch (error) {
      throw ioFail('write', final, error);
    }
    if (!created) this.existingEntry(hex); // another writer won: verify what it wrote
    fsyncDirectory(this.dir);
    return hex;
  }

  /** True when entry `hex` exists and hashes to its name; throws corruption when it does not. */
  private existingEntry(hex: string): boolean {
    let size: number;
    try {
      const st = lstatSync(this.pathOf(hex));
      if (!st.isFile()) throw storeError(StoreCode.corruption, `store entry ${hex} is not a regular file`, ExitCode.verificationFailed, hex);
      size = st.size;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
      if (error instanceof GcError) throw error;
      throw ioFail('inspect', this.pathOf(hex), error);
    }
    const actual = this.hashFile(hex, size);
    if (actual !== hex) {
      throw storeError(StoreCode.corruption, `store entry ${hex} is corrupt: its bytes hash to ${actual}`, ExitCode.verificationFailed, hex);
    }
    return true;
  }

  /** Streams BLAKE3 of entry `hex` (bounded by the per-artifact limit). */
  private hashFile(hex: string, size: number): string {
    if (size > this.limits.maxArtifactBytes) {
      throw storeError(
        StoreCode.resourceLimit,
        `store entry ${hex} has ${size} bytes, above the ${this.limits.maxArtifactBytes}-byte bound`,
        ExitCode.verificationFailed,
        hex,
      );
    }
    const path = this.pathOf(hex);
    let fd: number | undefined;
    try {
      fd = openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
      const h = storeAddressStream();
      const buf = Buffer.allocUnsafe(Math.min(CHUNK, Math.max(size, 1)));
      let total = 0;
      for (;;) {
        const n = readSync(fd, buf, 0, buf.length, null);
        if (n === 0) break;
        total += n;
        if (total > this.limits.maxArtifactBytes) {
          throw storeError(
            StoreCode.resourceLimit,
            `store entry ${hex} exceeds the ${this.limits.maxArtifactBytes}-byte bound`,
            ExitCode.verificationFailed,
            hex,
          );
        }
        h.update(buf.subarray(0, n));
      }
      return h.address();
    } catch (error) {
      if (error instanceof GcError) throw error;
      throw ioFail('read', path, error);
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  }

  /**
   * Reads entry `hex` and checks that its bytes hash to its name.
   * @throws GcError `core/store/not-found` (exit 50) for a missing entry, or (exit 10) for a malformed name,
   *   `core/store/corruption` (exit 50), `core/store/io-error` (exit 70).
   */
  get(hex: string): Uint8Array {
    if (!isHex64(hex))
      throw storeError(StoreCode.notFound, `${JSON.stringify(hex)} is not a store address (64 lowercase hex digits)`, ExitCode.invalidInput, hex);
    let bytes: Buffer;
    try {
      const st = lstatSync(this.pathOf(hex));
      if (!st.isFile()) throw storeError(StoreCode.corruption, `store entry ${hex} is not a regular file`, ExitCode.verificationFailed, hex);
      if (st.size > this.limits.maxArtifactBytes) {
        throw storeError(StoreCode.resourceLimit, `store entry ${hex} has ${st.size} bytes, above the bound`, ExitCode.verificationFailed, hex);
      }
      const fd = openSync(this.pathOf(hex), constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
      try {
        bytes = Buffer.alloc(st.size);
        let off = 0;
        while (off < st.size) {
          const n = readSync(fd, bytes, off, st.size - off, off);
          if (n === 0) break;
          off += n;
        }
      } finally {
        closeSync(fd);
      }
    } catch (error) {
      if (error instanceof GcError) throw error;
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        throw storeError(StoreCode.notFound, `no store entry ${hex} in ${this.dir}`, ExitCode.verificationFailed, hex);
      }
      throw ioFail('read', this.pathOf(hex), error);
    }
    const actual = storeAddress(bytes);
    if (actual !== hex) {
      throw storeError(StoreCode.corruption, `store entry ${hex} is corrupt: its bytes hash to ${actual}`, ExitCode.verificationFailed, hex);
    }
    return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length);
  }

  /** Reads entry `hex` (verified) and parses it as one CoreForm term. */
  getTerm(hex: string): Term {
    try {
      return readTerm(this.get(hex));
    } catch (error) {
      if (error instanceof GcError && error.code.startsWith('core/parse/')) {
        throw storeError(StoreCode.corruption, `store entry ${hex} is not a CoreForm term: ${error.message}`, ExitCode.verificationFailed, hex);
      }
      throw error;
    }
  }

  /** True when a regular file named `hex` is present (not verified). */
  has(hex: string): boolean {
    try {
      return lstatSync(this.pathOf(hex)).isFile();
    } catch {
      return false;
    }
  }

  /**
   * Lists the entries: regular files named exactly 64 lowercase hex digits (temp files and
   * anything else are skipped: {@link verify} reports them), sorted by raw name bytes. A missing
   * store lists as empty.
   * @throws GcError `core/store/io-error`.
   */
  list(): StoreEntry[] {
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw ioFail('list', this.dir, error);
    }
    const out: StoreEntry[] = [];
    for (const name of names.filter(isHex64).sort(compareUtf8)) {
      try {
        const st = lstatSync(join(this.dir, name));
        if (st.isFile()) out.push({ hex: name, size: st.size });
      } catch (error) {
        throw ioFail('inspect', join(this.dir, name), error);
      }
    }
    return out;
  }

  /**
   * Looks at every name in the store directory (docs/patches.md "Evidence layout"): regular files named exactly 64
   * lowercase hex digits are entries; the put's own temporary files are set apart; anything else —
   * a symlink or directory (whatever its name), a file with any other name — is an anomaly
   * (`core/store/corruption`, exit 50), because nothing may sit in the store unverified.
   * A missing store is empty.
   * @throws GcError `core/store/io-error` when the directory cannot be listed.
   */
  scan(): StoreScan {
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { entries: [], anomalies: [], temporary: [], abandoned: [], names: 0 };
      throw ioFail('list', this.dir, error);
    }
    names.sort(compareUtf8);
    const out: StoreScan = { entries: [], anomalies: [], temporary: [], abandoned: [], names: names.length };
    for (const name of names) {
      let st;
      try {
        st = lstatSync(join(this.dir, name));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue; // removed meanwhile (a put's temp file)
        throw ioFail('inspect', join(this.dir, name), error);
      }
      const what = st.isSymbolicLink() ? 'a symbolic link' : st.isDirectory() ? 'a directory' : st.isFile() ? undefined : 'not a regular file';
      if (what === undefined && isHex64(name)) out.entries.push({ hex: name, size: st.size });
      else if (what === undefined && TEMP_NAME.test(name)) {
        out.temporary.push(name);
        const m = TEMP_NAME.exec(name)!;
        if (!ownerAlive(Number(m[1]), m[2])) out.abandoned.push(name);
      } else {
        const shown = JSON.stringify(name);
        const message =
          what !== undefined
            ? `${shown} in the evidence store is ${what}, not a store entry (entries are regular files): remove it`
            : `${shown} in the evidence store is not a store entry name (64 lowercase hex digits of the BLAKE3 of its bytes): remove it`;
        out.anomalies.push({ code: StoreCode.corruption, hex: name, message });
      }
    }
    return out;
  }

  /**
   * Verifies the whole store or one entry, re-hashing each (streamed: memory is bounded by one
   * 1 MiB buffer whatever the store holds). Whole-store mode checks every name (see
   * {@link scan}: a symlink, directory or junk-named file is a `core/store/corruption` failure),
   * re-hashes every entry in raw name order and goes on after a failure; `failure` is the first.
   * It fails with `core/caps/resource-limit` before hashing anything when the store holds more
   * than `maxEntries` names or more than `maxTotalBytes`.
   * @param hex one entry to verify; omit to verify every entry.
   */
  verify(hex?: string): StoreVerifyResult {
    const failureOf = (e: unknown, at: string | undefined): StoreFailure => {
      if (!(e instanceof GcError)) throw e;
      return { code: e.code, hex: at, message: e.message };
    };
    const result = (checked: number, totalBytes: number, failures: StoreFailure[], skippedTemp = 0, abandonedTemp: string[] = []): StoreVerifyResult => ({
      ok: failures.length === 0,
      checked,
      totalBytes,
      failure: failures[0],
      failures,
      skippedTemp,
      abandonedTemp,
    });
    if (hex !== undefined) {
      try {
        const bytes = this.get(hex);
        return result(1, bytes.length, []);
      } catch (e) {
        return result(0, 0, [failureOf(e, hex)]);
      }
    }
    let scan: StoreScan;
    try {
      scan = this.scan();
    } catch (e) {
      return result(0, 0, [failureOf(e, undefined)]);
    }
    const entries = scan.entries;
    const total = entries.reduce((n, e) => n + e.size, 0);
    const counted = entries.length + scan.anomalies.length;
    if (counted > this.limits.maxEntries) {
      const e = storeError(
        StoreCode.resourceLimit,
        `the store has ${counted} names, above the ${this.limits.maxEntries}-entry bound`,
        ExitCode.verificationFailed,
      );
      return result(0, total, [failureOf(e, undefined)], scan.temporary.length, scan.abandoned);
    }
    if (total > this.limits.maxTotalBytes) {
      const e = storeError(
        StoreCode.resourceLimit,
        `the store holds ${total} bytes, above the ${this.limits.maxTotalBytes}-byte bound`,
        ExitCode.verificationFailed,
      );
      return result(0, total, [failureOf(e, undefined)], scan.temporary.length, scan.abandoned);
    }
    // Anomalies and entries interleaved in raw name order, so `failure` is the first by name.
    const failures: StoreFailure[] = [];
    let checked = 0;
    let a = 0;
    const flushAnomalies = (upTo: string | undefined): void => {
      while (a < scan.anomalies.length && (upTo === undefined || compareUtf8(scan.anomalies[a]!.hex!, upTo) < 0)) failures.push(scan.anomalies[a++]!);
    };
    for (const entry of entries) {
      flushAnomalies(entry.hex);
      try {
        const actual = this.hashFile(entry.hex, entry.size);
        if (actual !== entry.hex) {
          throw storeError(StoreCode.corruption, `store entry ${entry.hex} is corrupt: its bytes hash to ${actual}`, ExitCode.verificationFailed, entry.hex);
        }
        checked++;
      } catch (e) {
        failures.push(failureOf(e, entry.hex));
      }
    }
    flushAnomalies(undefined);
    return result(checked, total, failures, scan.temporary.length, scan.abandoned);
  }

  /**
   * Removes the put's temporary files whose writer is gone ({@link StoreScan.abandoned}: a process
   * killed between writing one and linking it into place), and fsyncs the directory. Call it
   * holding the package lock (src/patch/guard.ts does, after recovery). Never throws: a file that
   * cannot be removed stays for the next time.
   * @returns the names removed, in name order.
   */
  removeAbandonedTemps(): string[] {
    let scan: StoreScan;
    try {
      scan = this.scan();
    } catch {
      return [];
    }
    const removed: string[] = [];
    for (const name of scan.abandoned) {
      try {
        unlinkSync(join(this.dir, name));
        removed.push(name);
      } catch {
        /* gone meanwhile, or not ours to remove */
      }
    }
    if (removed.length > 0) fsyncDirectory(this.dir);
    return removed;
  }
}
