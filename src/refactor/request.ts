/**
 * The closed refactor-plan request `genesis/refactor-plan-request-v0.1`
 * (GenesisCode `docs/spec/SEMANTIC_REFACTOR_PLAN_v0.1.md` "Closed Request"): building it from a package on disk (or from
 * module sources read anywhere, e.g. a git revision), admitting a request term, and its identities.
 *
 * Admission only checks the request's shape and its module records; symbol, kind and target
 * problems are planner conflicts (the report carries them), not admission errors.
 */
import { isCanonicalForm } from '../coreform/canon.js';
import { D, decodeClosed, fixedIdentity } from '../coreform/closed.js';
import { hashTermOfPrint, storeAddress } from '../coreform/hash.js';
import { printTerm } from '../coreform/print.js';
import { int, kwMap, str, vec, type MapTerm, type Term, type VecTerm } from '../coreform/term.js';
import { utf8 } from '../util/bytes.js';
import { GcError, isGcError } from '../util/errors.js';
import { canonicalizeFile, loadPackage, type LoadedPackage } from '../workspace/package.js';
import { portablePathProblem } from '../workspace/path.js';
import { REFACTOR_PROFILE, REFACTOR_REQUEST_KIND, RefactorErrorCode } from './codes.js';

/** What to refactor. Strings are taken as given; the planner reports malformed values as conflicts. */
export interface RefactorParams {
  /** `rename`, `move` or `extract` (anything else plans to a `refactor/kind-invalid` conflict). */
  refactorKind: string;
  /** The source symbol's name, e.g. `app/util::helper`. */
  fromSymbol: string;
  /** The destination symbol's name. */
  toSymbol: string;
  /** Package-relative path of the new module for move/extract; `''` or absent for none. */
  targetModulePath?: string;
}

/** A request field that the planner reads as a string. */
export type RequestStringField = 'refactor-kind' | 'from-symbol' | 'to-symbol' | 'target-module-path';

/** One `{:module-path :forms}` record: a portable path and the canonical top-level forms. */
export interface RequestModule {
  readonly modulePath: string;
  readonly forms: VecTerm;
}

/**
 * An admitted request. `modules` are in manifest order. `requestH` is hash-term(request) (the
 * report's `:request-h`); `address` is its evidence-store address (plain BLAKE3 of the
 * `print_term` bytes). Both are lowercase hex64.
 */
export interface RefactorRequest {
  /** `:refactor-kind`; `''` when the request term holds a non-string there (see `nonStrings`). */
  readonly refactorKind: string;
  readonly fromSymbol: string;
  readonly toSymbol: string;
  readonly targetModulePath: string;
  readonly modules: readonly RequestModule[];
  /**
   * The request fields (`refactor-kind`, `from-symbol`, `to-symbol`, `target-module-path`) whose
   * value in the term is not a string. The reference admits any term there and plans it to a
   * conflict (docs/reference/patch-protocols.md §3.10); the string field then holds `''`. Empty for requests built
   * by gcpatch.
   */
  readonly nonStrings: ReadonlySet<RequestStringField>;
  /** The closed request term. */
  readonly term: MapTerm;
  readonly requestH: string;
  readonly address: string;
}

/** The identities of a term computed from one canonical print. */
export interface TermIdentity {
  /** `print_term(t)` as UTF-8: the bytes the evidence store keeps. */
  bytes: Uint8Array;
  /** hash-term(t) = BLAKE3("GCv0.2\0" ‖ bytes), hex64. */
  hashTerm: string;
  /** Store address = BLAKE3(bytes), hex64. */
  address: string;
}

/**
 * Prints `t` once and returns its stored bytes, hash-term and store address (docs/reference/hashing.md §2,
 * §5). Cheaper than calling `hashTerm` and `termAddress` separately on a large request.
 */
export function termIdentity(t: Term): TermIdentity {
  const bytes = utf8(printTerm(t));
  return { bytes, hashTerm: hashTermOfPrint(bytes), address: storeAddress(bytes) };
}

function requestError(message: string, at?: string): GcError {
  return new GcError(RefactorErrorCode.requestInvalid, message, at === undefined ? {} : { location: { at } });
}

/**
 * Builds the closed request term `{:from-symbol :kind :modules :profile :refactor-kind
 * :target-module-path :to-symbol :v 1}` with `:modules` = `[{:forms [...] :module-path p} …]` in
 * the given (manifest) order. No validation; see {@link buildRefactorRequest}.
 */
export function refactorRequestTerm(params: RefactorParams, modules: readonly RequestModule[]): MapTerm {
  return kwMap({
    kind: str(REFACTOR_REQUEST_KIND),
    profile: str(REFACTOR_PROFILE),
    v: int(1),
    'refactor-kind': str(params.refactorKind),
    'from-symbol': str(params.fromSymbol),
    'to-symbol': str(params.toSymbol),
    'target-module-path': str(params.targetModulePath ?? ''),
    modules: vec(modules.map((m) => kwMap({ 'module-path': str(m.modulePath), forms: m.forms }))),
  });
}

/**
 * Checks module records: portable unique paths and (unless `assumeCanonical`) canonical forms.
 * Implements "Duplicate paths, malformed records, or omitted manifest modules fail before planning".
 */
function checkModules(modules: readonly RequestModule[], assumeCanonical: boolean): void {
  const seen = new Set<string>();
  modules.forEach((m, i) => {
    const at = `:modules[${i}]`;
    const problem = portablePathProblem(m.modulePath);
    if (problem !== undefined) {
      throw requestError(`request module ${i} path ${JSON.stringify(m.modulePath)} ${problem}; module paths are package-relative with / separators`, at);
    }
    if (seen.has(m.modulePath)) {
      throw requestError(`request lists module path ${JSON.stringify(m.modulePath)} twice`, at);
    }
    seen.add(m.modulePath);
    if (!assumeCanonical) {
      m.forms.items.forEach((form, j) => {
        if (!isCanonicalForm(form)) {
          throw requestError(`request module ${JSON.stringify(m.modulePath)} form ${j} is not canonical CoreForm`, `${at} :forms[${j}]`);
        }
      });
    }
  });
}

/**
 * Builds and admits a request from parameters and module records in manifest order.
 * @param params the refactor; @param modules every module of the package, manifest order.
 * @param options `assumeCanonical`: skip the per-form canonicality check (forms fresh from the
 *   canonicalizer).
 * @throws GcError `refactor/request-invalid` (exit 10) for a non-portable or duplicate path or a
 *   non-canonical form.
 */
export function buildRefactorRequest(params: RefactorParams, modules: readonly RequestModule[], options: { assumeCanonical?: boolean } = {}): RefactorRequest {
  checkModules(modules, options.assumeCanonical ?? false);
  const term = refactorRequestTerm(params, modules);
  const id = termIdentity(term);
  return {
    refactorKind: params.refactorKind,
    fromSymbol: params.fromSymbol,
    toSymbol: params.toSymbol,
    targetModulePath: params.targetModulePath ?? '',
    modules: [...modules],
    nonStrings: new Set(),
    term,
    requestH: id.hashTerm,
    address: id.address,
  };
}

/**
 * The request for a loaded package: every manifest module, in manifest order, with the canonical
 * forms the loader produced.
 */
export function refactorRequestFromPackage(pkg: LoadedPackage, params: RefactorParams): RefactorRequest {
  return buildRefactorRequest(
    params,
    pkg.modules.map((m) => ({ modulePath: m.path, forms: vec(m.forms) })),
    { assumeCanonical: true },
  );
}

/**
 * Loads the package at `manifestArg` (a `package.toml` or its directory) and builds its request.
 * @throws GcError `manifest/*`, `core/parse/*`, `core/canon/*` (exit 10), `io/*` (exit 70).
 */
export function loadRefactorRequest(manifestArg: string, params: RefactorParams): { request: RefactorRequest; pkg: LoadedPackage } {
  const pkg = loadPackage(manifestArg);
  return { request: refactorRequestFromPackage(pkg, params), pkg };
}

/** One module's source bytes, for {@link refactorRequestFromSources}. */
export interface RequestModuleSource {
  modulePath: string;
  bytes: Uint8Array;
  /** Shown in error locations (e.g. `REV:pkg/a.gc`); defaults to `modulePath`. */
  file?: string;
}

/**
 * Builds a request from module sources read anywhere (a git revision, an archive), in manifest
 * order: each source is read and canonicalized (docs/reference/coreform.md §1.6).
 * @throws GcError `core/parse/*`, `core/canon/*` with `location.file`, `refactor/request-invalid`.
 */
export function refactorRequestFromSources(params: RefactorParams, sources: readonly RequestModuleSource[]): RefactorRequest {
  const modules = sources.map((s) => ({
    modulePath: s.modulePath,
    forms: vec(canonicalizeFile(s.bytes, s.file ?? s.modulePath)),
  }));
  return buildRefactorRequest(params, modules, { assumeCanonical: true });
}

/**
 * Admits a request term: the exact key set, fixed `:kind`/`:profile`/`:v`, and a `:modules`
 * vector of closed `{:module-path Str :forms Vec}` records with portable, unique paths and
 * canonical forms. `:refactor-kind`, the symbols and the target may be any terms, as in the
 * reference (docs/reference/patch-protocols.md §3.10): the planner turns bad values, non-strings included, into
 * conflicts (`nonStrings` lists the non-string fields).
 * @param t the request term (e.g. read from the evidence store with `readTerm`).
 * @returns the admitted request; `requestH` is hash-term of `t` exactly as given.
 * @throws GcError `core/closed/*` for a malformed map or record; `refactor/request-invalid` for a
 *   non-portable or duplicate path or a non-canonical form (all exit 10).
 */
export function decodeRefactorRequest(t: Term): RefactorRequest {
  const r = decodeClosed(
    t,
    {
      ...fixedIdentity(REFACTOR_REQUEST_KIND, REFACTOR_PROFILE),
      'refactor-kind': D.any,
      'from-symbol': D.any,
      'to-symbol': D.any,
      'target-module-path': D.any,
      modules: D.vec,
    },
    'refactor-plan request',
  );
  const modules = r.modules.items.map((item, i): RequestModule => {
    try {
      const rec = decodeClosed(item, { 'module-path': D.str, forms: D.vec }, `refactor-plan request :modules[${i}]`);
      return { modulePath: rec['module-path'], forms: rec.forms };
    } catch (error) {
      if (isGcError(error)) throw new GcError(RefactorErrorCode.requestInvalid, error.message, { location: error.location });
      throw error;
    }
  });
  checkModules(modules, false);
  const id = termIdentity(t);
  const nonStrings = new Set<RequestStringField>();
  const text = (field: RequestStringField): string => {
    const v = r[field];
    if (v.kind === 'str') return v.value;
    nonStrings.add(field);
    return '';
  };
  return {
    refactorKind: text('refactor-kind'),
    fromSymbol: text('from-symbol'),
    toSymbol: text('to-symbol'),
    targetModulePath: text('target-module-path'),
    modules,
    nonStrings,
    term: t as MapTerm,
    requestH: id.hashTerm,
    address: id.address,
  };
}
