/** `package.toml`: reading and validating the manifest (docs/reference/package-toml.md §4). */
import { parse, TomlError } from 'smol-toml';
import { tomlErrorMessage } from './toml-error.js';
import { GcError } from '../util/errors.js';
import { portablePathProblem } from './path.js';

/** One `[[modules]]` entry. `hash` is the pinned module hash (lowercase hex64) or undefined. */
export interface ManifestModule {
  path: string;
  hash: string | undefined;
}

/** One `[[dependencies]]` entry. */
export interface ManifestDependency {
  name: string;
  path: string;
  hash: string | undefined;
}

/** A validated manifest. `table` is the whole parsed TOML, unknown keys included. */
export interface Manifest {
  schema: number;
  name: string;
  version: string;
  modules: ManifestModule[];
  dependencies: ManifestDependency[];
  obligations: string[];
  tests: string[];
  table: Record<string, unknown>;
}

function invalid(file: string, message: string, line?: number, column?: number): GcError {
  const location: { file: string; line?: number; column?: number } = { file };
  if (line !== undefined) location.line = line;
  if (column !== undefined) location.column = column;
  return new GcError('manifest/invalid', message, { location });
}

/**
 * Parses and validates `package.toml` text. Required: `name`, `version` (strings), `modules`
 * (array of tables with `path` and optional `hash`), `obligations` (array of strings); `schema`
 * missing or 1; optional `dependencies` and `tests`. Every path must be portable.
 * @param text the TOML source; @param file its path, for error locations.
 * @throws GcError `manifest/toml` (syntax, with line and column) or `manifest/invalid` (exit 10).
 */
export function parseManifest(text: string, file = 'package.toml'): Manifest {
  let table: Record<string, unknown>;
  try {
    table = parse(text) as Record<string, unknown>;
  } catch (error) {
    if (error instanceof TomlError) {
      throw new GcError('manifest/toml', tomlErrorMessage(error, text), {
        location: { file, line: error.line, column: error.column },
      });
    }
    throw error;
  }
  const schema = table.schema ?? 1;
  if (schema !== 1) throw invalid(file, `schema must be 1, got ${String(schema)}`);
  const str = (key: string): string => {
    const v = table[key];
    if (typeof v !== 'string') throw invalid(file, `${key} must be a string`);
    return v;
  };
  const strList = (key: string, required: boolean): string[] => {
    const v = table[key];
    if (v === undefined && !required) return [];
    if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) {
      throw invalid(file, `${key} must be an array of strings`);
    }
    return v as string[];
  };
  const checkPath = (p: unknown, where: string): string => {
    if (typeof p !== 'string') throw invalid(file, `${where}.path must be a string`);
    const problem = portablePathProblem(p);
    if (problem !== undefined) throw invalid(file, `${where}.path ${JSON.stringify(p)} ${problem}`);
    return p;
  };
  const checkHash = (h: unknown, where: string): string | undefined => {
    if (h === undefined) return undefined;
    if (typeof h !== 'string') throw invalid(file, `${where}.hash must be a string`);
    return h;
  };
  const rawModules = table.modules;
  if (!Array.isArray(rawModules)) throw invalid(file, 'modules must be an array of tables ([[modules]])');
  const seen = new Set<string>();
  const modules = rawModules.map((m, i): ManifestModule => {
    if (typeof m !== 'object' || m === null || Array.isArray(m)) throw invalid(file, `modules[${i}] must be a table`);
    const rec = m as Record<string, unknown>;
    const path = checkPath(rec.path, `modules[${i}]`);
    if (seen.has(path)) throw invalid(file, `modules[${i}].path ${JSON.stringify(path)} is listed twice`);
    seen.add(path);
    return { path, hash: checkHash(rec.hash, `modules[${i}]`) };
  });
  const rawDeps = table.dependencies ?? [];
  if (!Array.isArray(rawDeps)) throw invalid(file, 'dependencies must be an array of tables');
  const dependencies = rawDeps.map((d, i): ManifestDependency => {
    if (typeof d !== 'object' || d === null || Array.isArray(d)) throw invalid(file, `dependencies[${i}] must be a table`);
    const rec = d as Record<string, unknown>;
    if (typeof rec.name !== 'string') throw invalid(file, `dependencies[${i}].name must be a string`);
    return { name: rec.name, path: checkPath(rec.path, `dependencies[${i}]`), hash: checkHash(rec.hash, `dependencies[${i}]`) };
  });
  return {
    schema: 1,
    name: str('name'),
    version: str('version'),
    modules,
    dependencies,
    obligations: strList('obligations', true),
    tests: strList('tests', false),
    table,
  };
}
