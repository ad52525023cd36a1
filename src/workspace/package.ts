/** Loading a GenesisCode package from disk: manifest, modules in manifest order, hashes vs pins. */
import { readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { canonicalizeSource, canonicalizeSourceSpans } from '../coreform/canon.js';
import { hashModule } from '../coreform/hash.js';
import type { Term } from '../coreform/term.js';
import { ioError, isGcError } from '../util/errors.js';
import { lineColumn, type SpannedModule } from '../coreform/read.js';
import { parseManifest, type Manifest } from './manifest.js';
import { modulePathOnDisk } from './path.js';

/** One loaded module. `hash` is the computed module hash; `pin` the manifest's (may be undefined). */
export interface LoadedModule {
  path: string;
  file: string;
  bytes: Uint8Array;
  forms: Term[];
  hash: string;
  pin: string | undefined;
}

/** A package read from disk. `dir` is the absolute package directory. */
export interface LoadedPackage {
  dir: string;
  manifestFile: string;
  manifestText: string;
  manifest: Manifest;
  modules: LoadedModule[];
}

/**
 * Resolves a `--pkg` argument (a `package.toml` file or a directory containing one) to the
 * absolute manifest path.
 * @throws GcError `io/enoent` (exit 70) when there is no manifest there.
 */
export function resolveManifestPath(arg: string): string {
  const abs = resolve(arg);
  try {
    if (statSync(abs).isDirectory()) return join(abs, 'package.toml');
  } catch (error) {
    throw ioError(error, abs, 'read');
  }
  return abs;
}

/**
 * Reads `.gc` source bytes and canonicalizes them, attaching the file name (and line/column) to
 * reader and canonicalizer errors.
 * @throws GcError `core/parse/*`, `core/canon/*` (exit 10) with `location.file` set.
 */
export function canonicalizeFile(bytes: Uint8Array, file: string): Term[] {
  return atFile(bytes, file, () => canonicalizeSource(bytes));
}

/**
 * {@link canonicalizeFile} that also keeps the reader's node spans (`canonicalizeSourceSpans`).
 * @throws GcError as {@link canonicalizeFile}.
 */
export function canonicalizeFileSpans(bytes: Uint8Array, file: string): { module: SpannedModule; forms: Term[] } {
  return atFile(bytes, file, () => canonicalizeSourceSpans(bytes));
}

/** Runs `read` on `bytes`, giving a GcError it throws the file name and, from its offset, line and column. */
function atFile<T>(bytes: Uint8Array, file: string, read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (isGcError(error)) {
      const loc = error.location.offset !== undefined && error.location.line === undefined ? { file, ...lineColumn(bytes, error.location.offset) } : { file };
      throw error.withLocation(loc);
    }
    throw error;
  }
}

/**
 * Loads a package: parses the manifest, reads every module in manifest order, canonicalizes it
 * and computes its module hash. Does not check pins (see {@link pinFindings}).
 * @param manifestArg path to `package.toml` or its directory.
 * @throws GcError `manifest/*` and `core/parse/*` (exit 10), `io/*` (exit 70).
 */
export function loadPackage(manifestArg: string): LoadedPackage {
  const manifestFile = resolveManifestPath(manifestArg);
  let manifestText: string;
  try {
    manifestText = readFileSync(manifestFile, 'utf8');
  } catch (error) {
    throw ioError(error, manifestFile, 'read');
  }
  const manifest = parseManifest(manifestText, manifestFile);
  const dir = dirname(manifestFile);
  const modules = manifest.modules.map((m): LoadedModule => {
    const file = modulePathOnDisk(dir, m.path);
    let bytes: Uint8Array;
    try {
      bytes = readFileSync(file);
    } catch (error) {
      throw ioError(error, file, 'read module');
    }
    const forms = canonicalizeFile(bytes, file);
    return { path: m.path, file, bytes, forms, hash: hashModule(forms), pin: m.hash };
  });
  return { dir, manifestFile, manifestText, manifest, modules };
}

/** The result of comparing one module's computed hash with its pin. */
export interface PinFinding {
  path: string;
  pin: string | undefined;
  computed: string;
  status: 'ok' | 'mismatch' | 'missing-pin' | 'empty-pin';
}

/**
 * Compares every module's computed hash with its manifest pin (docs/reference/package-toml.md §4: a missing or
 * empty pin, or a mismatch, fails verification).
 * @returns one finding per module, in manifest order.
 */
export function pinFindings(pkg: LoadedPackage): PinFinding[] {
  return pkg.modules.map((m) => ({
    path: m.path,
    pin: m.pin,
    computed: m.hash,
    status: m.pin === undefined ? 'missing-pin' : m.pin === '' ? 'empty-pin' : m.pin === m.hash ? 'ok' : 'mismatch',
  }));
}

/** True when every finding is `ok`. */
export function pinsVerified(findings: readonly PinFinding[]): boolean {
  return findings.every((f) => f.status === 'ok');
}
