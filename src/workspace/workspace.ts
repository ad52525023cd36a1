/**
 * Canonical module workspaces (docs/reference/patch-protocols.md §3.4, GenesisCode `docs/spec/SEMANTIC_PATCH_MERGE_v0.1.md` "Request"): the
 * closed vector of `{:module-path Str :forms [form …]}` records that diff and merge compare.
 *
 * Admission rejects duplicate or non-portable module paths, non-vector `:forms` and non-canonical
 * forms. An admitted workspace is keyed by module path; its canonical order is by module path in
 * UTF-8 byte order, so nothing computed from it depends on the order of the input vector.
 */
import { decodeClosed, D } from '../coreform/closed.js';
import { isCanonicalForm } from '../coreform/canon.js';
import { hashTerm } from '../coreform/hash.js';
import { kwMap, str, vec, type Term, type VecTerm } from '../coreform/term.js';
import { compareUtf8 } from '../util/bytes.js';
import { GcError } from '../util/errors.js';
import { canonicalizeFile, loadPackage, type LoadedPackage } from './package.js';
import { portablePathProblem } from './path.js';

/** One module of a workspace: its portable package-relative path and its canonical top-level forms. */
export interface WorkspaceModule {
  readonly modulePath: string;
  readonly forms: VecTerm;
}

/**
 * An admitted workspace. `modules` are sorted by module path (UTF-8 bytes) with no duplicates;
 * `byPath` indexes the same records. Treat both as immutable.
 */
export interface Workspace {
  readonly modules: readonly WorkspaceModule[];
  readonly byPath: ReadonlyMap<string, VecTerm>;
}

/** Error codes of workspace admission (all exit 10). */
export const WorkspaceCode = {
  /** `:module-path` is not a portable package-relative path. */
  nonPortablePath: 'workspace/non-portable-path',
  /** Two records name the same module path. */
  duplicatePath: 'workspace/duplicate-path',
  /** A form is not in canonical CoreForm (it is not what canonicalization of its print gives). */
  nonCanonicalForm: 'workspace/non-canonical-form',
  /** The workspace is not a vector of records. */
  notAVector: 'workspace/not-a-vector',
} as const;

/** Input of {@link makeWorkspace}: a module path and its forms, as an array or a vector term. */
export interface ModuleInput {
  modulePath: string;
  forms: readonly Term[] | VecTerm;
}

/**
 * Admits modules given in any order as a workspace.
 * @param modules the records; `forms` must already be canonical CoreForm.
 * @param what a name for error messages (e.g. `"base"`).
 * @param options `assumeCanonical` skips the per-form canonicality check, for forms that were just
 *   produced by the canonicalizer (package loaders).
 * @throws GcError `workspace/non-portable-path`, `workspace/duplicate-path`,
 *   `workspace/non-canonical-form` (exit 10).
 */
export function makeWorkspace(modules: Iterable<ModuleInput>, what = 'workspace', options: { assumeCanonical?: boolean } = {}): Workspace {
  const records: WorkspaceModule[] = [];
  for (const m of modules) {
    const problem = portablePathProblem(m.modulePath);
    if (problem !== undefined) {
      throw new GcError(
        WorkspaceCode.nonPortablePath,
        `${what} module path ${JSON.stringify(m.modulePath)} ${problem}; module paths are package-relative with / separators`,
        { location: { at: m.modulePath } },
      );
    }
    const forms = Array.isArray(m.forms) ? vec(m.forms as readonly Term[]) : (m.forms as VecTerm);
    if (!options.assumeCanonical) {
      forms.items.forEach((form, i) => {
        if (!isCanonicalForm(form)) {
          throw new GcError(
            WorkspaceCode.nonCanonicalForm,
            `${what} module ${JSON.stringify(m.modulePath)} form ${i} is not canonical CoreForm; run \`gcpatch fmt\` on the module`,
            { location: { at: `${m.modulePath} form ${i}` } },
          );
        }
      });
    }
    records.push({ modulePath: m.modulePath, forms });
  }
  records.sort((a, b) => compareUtf8(a.modulePath, b.modulePath));
  const byPath = new Map<string, VecTerm>();
  for (const r of records) {
    if (byPath.has(r.modulePath)) {
      throw new GcError(WorkspaceCode.duplicatePath, `${what} lists module path ${JSON.stringify(r.modulePath)} twice`, {
        location: { at: r.modulePath },
      });
    }
    byPath.set(r.modulePath, r.forms);
  }
  return { modules: records, byPath };
}

/**
 * Admits a workspace term: a vector of closed `{:module-path Str :forms Vec}` records in any
 * order. Implements the workspace admission of docs/reference/patch-protocols.md §3.4.
 * @param t the `:base`/`:target`/`:left`/`:right` field of a request; @param what its name.
 * @throws GcError `workspace/not-a-vector`, `core/closed/*` for a malformed record, and the codes
 *   of {@link makeWorkspace} (all exit 10).
 */
export function admitWorkspace(t: Term, what = 'workspace'): Workspace {
  if (t.kind !== 'vec') {
    throw new GcError(WorkspaceCode.notAVector, `${what} must be a vector of {:module-path :forms} records, got ${t.kind}`, {
      location: { at: what },
    });
  }
  const records = t.items.map((item, i) => {
    const r = decodeClosed(item, { 'module-path': D.str, forms: D.vec }, `${what}[${i}]`);
    return { modulePath: r['module-path'], forms: r.forms };
  });
  return makeWorkspace(records, what);
}

const termCache = new WeakMap<Workspace, VecTerm>();

/**
 * The canonical workspace vector: records `{:forms … :module-path …}` sorted by module path.
 * This is the term whose hash-term is a request's or report's `:base-h`/`:target-h`/`:merged-h`.
 * The result is cached per workspace object.
 */
export function workspaceTerm(ws: Workspace): VecTerm {
  let t = termCache.get(ws);
  if (t === undefined) {
    t = vec(ws.modules.map((m) => kwMap({ 'module-path': str(m.modulePath), forms: m.forms })));
    termCache.set(ws, t);
  }
  return t;
}

const hashCache = new WeakMap<Workspace, string>();

/**
 * hash-term of the canonical workspace vector (lowercase hex64), docs/reference/patch-protocols.md §3.4 `:base-h`.
 * Cached per workspace object: printing a large workspace dominates diff and merge time.
 */
export function workspaceHash(ws: Workspace): string {
  let h = hashCache.get(ws);
  if (h === undefined) {
    h = hashTerm(workspaceTerm(ws));
    hashCache.set(ws, h);
  }
  return h;
}

/** The empty workspace. */
export const EMPTY_WORKSPACE: Workspace = makeWorkspace([]);

/**
 * The workspace of a loaded package: the modules its manifest lists, with their canonical forms.
 * Manifest fields other than the module list are not part of a workspace (v0.1 does not diff or
 * merge manifests).
 */
export function workspaceFromPackage(pkg: LoadedPackage): Workspace {
  return makeWorkspace(
    pkg.modules.map((m) => ({ modulePath: m.path, forms: m.forms })),
    pkg.dir,
    { assumeCanonical: true },
  );
}

/**
 * Loads the workspace of the package on disk at `pathArg` (a directory holding `package.toml`, or
 * the manifest itself).
 * @returns the workspace and the loaded package (its `dir` is absolute).
 * @throws GcError `manifest/*`, `core/parse/*`, `core/canon/*`, `workspace/*` (exit 10), `io/*` (exit 70).
 */
export function loadWorkspace(pathArg: string): { workspace: Workspace; pkg: LoadedPackage } {
  const pkg = loadPackage(pathArg);
  return { workspace: workspaceFromPackage(pkg), pkg };
}

/** One module source for {@link workspaceFromSources}: raw `.gc` bytes and a file name for errors. */
export interface ModuleSource {
  modulePath: string;
  bytes: Uint8Array;
  /** Shown in error locations, e.g. `abc123:pkg/a.gc`. Defaults to `modulePath`. */
  file?: string;
}

/**
 * Canonicalizes module sources (read from anywhere: disk, a git tree, an archive) into a workspace.
 * @throws GcError `core/parse/*`, `core/canon/*` with `location.file`, and `workspace/*` (exit 10).
 */
export function workspaceFromSources(sources: Iterable<ModuleSource>, what = 'workspace'): Workspace {
  const modules: ModuleInput[] = [];
  for (const s of sources) {
    modules.push({ modulePath: s.modulePath, forms: canonicalizeFile(s.bytes, s.file ?? s.modulePath) });
  }
  return makeWorkspace(modules, what, { assumeCanonical: true });
}
