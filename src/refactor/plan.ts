/**
 * The refactor planner `core/cli::refactor-plan` (GenesisCode `docs/spec/SEMANTIC_REFACTOR_PLAN_v0.1.md` "Planning
 * Semantics", "Rename", "Move and Extract", "Closed Report"): a pure function from the closed
 * request to the closed report `genesis/refactor-plan-v0.1`. Its independent verifier is
 * `verify.ts`, which shares no code with this file.
 *
 * Definitions. A *workspace definition* is a top-level canonical form `(def <symbol> <rhs>)`
 * (exactly three list items, head the symbol `def`, name a symbol). A *source-symbol term* is any
 * symbol term whose name equals `:from-symbol` exactly, anywhere in a module's canonical forms:
 * definition names, references, `fn`/`let` binders, quoted data, vector elements, map keys and
 * values. That is the set the patch engine's `:rename-symbol` rewrites, so `:replacement-count`
 * is the exact number of terms the patch will rewrite. Keywords are symbols too: `:foo` and `foo`
 * are different names. Strings are never symbol terms.
 *
 * Conflicts follow the reference producer exactly (docs/reference/patch-protocols.md §3.10): each code at most
 * once, with its one fixed message (`codes.ts` `CONFLICT_MESSAGES`) and `:module-path ""`
 * `:path-repr ""`, in this order:
 * 1. `refactor/kind-invalid` (kind not rename|move|extract);
 * 2. `refactor/source-symbol-invalid` (`:from-symbol` is "" or not a string),
 *    3. `refactor/destination-symbol-invalid` (`:to-symbol` likewise); any other non-empty string is
 *    a valid symbol ("12", "a b", "quote");
 * 4. `refactor/no-op` (both strings and equal, even both "");
 * 5. `refactor/source-symbol-missing` (no definition named `from`), 6. `refactor/source-symbol-ambiguous`
 *    (more than one), 7. `refactor/destination-symbol-exists` (at least one named `to`; so a no-op
 *    on a defined symbol gives 4 and 7);
 * 8.–10. move/extract only: `refactor/target-module-required` (target "" or not a string), else
 *    `refactor/target-module-invalid` (not portable), else `refactor/target-module-exists`.
 * Only when none of these applies, and only for move/extract: `refactor/target-order-dependency`
 * as the single conflict, located at (`:module-path`) the first definition, in module then form
 * order, whose module is the source module or a later one and whose name occurs as a symbol term
 * in the moved right-hand side (the moved definition itself included, so a recursive definition
 * cannot move).
 * For `rename`, `:target-module-path` has no semantic effect and is not checked.
 */
import { FALSE, forEachSymbol, int, kw, kwMap, NIL, str, TRUE, vec, type MapTerm, type Term, type VecTerm } from '../coreform/term.js';
import { normalizePatch, opIdentitiesTerm, type NormalizedPatch } from '../patch/protocol/normalize.js';
import { topLevelDef } from '../patch/ops/common.js';
import { portablePathProblem } from '../workspace/path.js';
import {
  CONFLICT_MESSAGES,
  ConflictCode,
  REFACTOR_INTENT_PREFIX,
  REFACTOR_KINDS,
  REFACTOR_PROFILE,
  REFACTOR_REPORT_KIND,
  REFACTOR_TOOL,
  type ConflictCodeValue,
} from './codes.js';
import { decodeRefactorRequest, termIdentity, type RefactorRequest } from './request.js';

/** One conflict record `{:code :message :module-path :path-repr}`; location fields are `''` when none applies. */
export interface RefactorConflict {
  code: ConflictCodeValue;
  message: string;
  /** Module the conflict points at (only `refactor/target-order-dependency` has one), or `''`. */
  modulePath: string;
  /** Always `''`: the reference locates no conflict by node path. */
  pathRepr: string;
}

/** The planner's result: the closed report term plus the decoded facts it was built from. */
export interface RefactorPlan {
  /** The admitted request. */
  request: RefactorRequest;
  /** The closed report `genesis/refactor-plan-v0.1`. */
  report: MapTerm;
  /** `:ok` = `:safe-to-apply`. */
  safe: boolean;
  conflicts: RefactorConflict[];
  /** Source-symbol terms rewritten by the rename ops (0 when conflicted). */
  replacementCount: number;
  /** Modules with a `:rename-symbol` op, manifest order (empty when conflicted). */
  affectedModules: string[];
  /** The normalized patch and its identities, or `null` when conflicted. */
  patch: NormalizedPatch | null;
}

/** A workspace definition: where it is and its right-hand side. */
interface Definition {
  name: string;
  /** Index of the module in the request (manifest order). */
  moduleIndex: number;
  rhs: Term;
}

/** The scan of one module: its definitions and its source-symbol term count. */
interface ModuleScan {
  definitions: Definition[];
  occurrences: number;
}

/** Number of symbol terms named `name` in `root` (iterative preorder walk). */
function countSymbol(root: Term, name: string): number {
  let count = 0;
  forEachSymbol(root, (n) => {
    if (n === name) count++;
  });
  return count;
}

/** Every symbol name occurring in `root`. */
export function symbolNames(root: Term): Set<string> {
  const names = new Set<string>();
  forEachSymbol(root, (n) => names.add(n));
  return names;
}

function scanModule(moduleIndex: number, forms: VecTerm, from: string | undefined): ModuleScan {
  const definitions: Definition[] = [];
  let occurrences = 0;
  forms.items.forEach((form) => {
    const def = topLevelDef(form);
    if (def !== undefined) definitions.push({ name: def.name, moduleIndex, rhs: def.rhs });
    if (from !== undefined) occurrences += countSymbol(form, from);
  });
  return { definitions, occurrences };
}

/**
 * The patch `:intent` of a safe plan: `semantic-refactor/<kind>`, e.g. `semantic-refactor/move`
 * (docs/reference/patch-protocols.md §3.10 "Safe patch header").
 */
export function planIntent(request: RefactorRequest): string {
  return `${REFACTOR_INTENT_PREFIX}${request.refactorKind}`;
}

/**
 * The patch `:provenance` of a safe plan: `{:from <from> :kind :<kind> :to <to> :tool "genesis
 * semantic-edit refactor-plan"}` with `:kind` a keyword symbol (docs/reference/patch-protocols.md §3.10). It names
 * no request: evidence is linked by the report's `:request-h` and `:patch-h` (`evidence.ts`).
 */
export function planProvenance(request: RefactorRequest): MapTerm {
  return kwMap({
    from: str(request.fromSymbol),
    kind: kw(request.refactorKind),
    to: str(request.toSymbol),
    tool: str(REFACTOR_TOOL),
  });
}

function conflictTerm(c: RefactorConflict): MapTerm {
  return kwMap({ code: str(c.code), message: str(c.message), 'module-path': str(c.modulePath), 'path-repr': str(c.pathRepr) });
}

function collectConflicts(
  request: RefactorRequest,
  scans: readonly ModuleScan[],
): {
  conflicts: RefactorConflict[];
  source: Definition | undefined;
} {
  const conflicts: RefactorConflict[] = [];
  const add = (when: boolean, code: ConflictCodeValue): void => {
    if (when) conflicts.push({ code, message: CONFLICT_MESSAGES[code], modulePath: '', pathRepr: '' });
  };
  const { refactorKind: kind, fromSymbol: from, toSymbol: to, targetModulePath: target } = request;
  const definitions = scans.flatMap((s) => s.definitions);
  const sources = definitions.filter((d) => d.name === from);
  const moveKind = kind === 'move' || kind === 'extract';

  add(!(REFACTOR_KINDS as readonly string[]).includes(kind), ConflictCode.kindInvalid);
  add(from === '', ConflictCode.sourceSymbolInvalid);
  add(to === '', ConflictCode.destinationSymbolInvalid);
  add(from === to && !request.nonStrings.has('from-symbol') && !request.nonStrings.has('to-symbol'), ConflictCode.noOp);
  add(sources.length === 0, ConflictCode.sourceSymbolMissing);
  add(sources.length > 1, ConflictCode.sourceSymbolAmbiguous);
  add(
    definitions.some((d) => d.name === to),
    ConflictCode.destinationSymbolExists,
  );
  if (moveKind) {
    const missing = target === '';
    const invalid = !missing && portablePathProblem(target) !== undefined;
    add(missing, ConflictCode.targetModuleRequired);
    add(invalid, ConflictCode.targetModuleInvalid);
    add(!missing && !invalid && request.modules.some((m) => m.modulePath === target), ConflictCode.targetModuleExists);
  }
  if (conflicts.length > 0) return { conflicts, source: undefined };

  const source = sources[0]!;
  if (moveKind) {
    const referenced = symbolNames(source.rhs);
    const late = definitions.find((d) => d.moduleIndex >= source.moduleIndex && referenced.has(d.name));
    if (late !== undefined) {
      const code = ConflictCode.targetOrderDependency;
      conflicts.push({ code, message: CONFLICT_MESSAGES[code], modulePath: request.modules[late.moduleIndex]!.modulePath, pathRepr: '' });
      return { conflicts, source: undefined };
    }
  }
  return { conflicts, source };
}

function renameOp(modulePath: string, from: string, to: string): MapTerm {
  return kwMap({ op: kw('rename-symbol'), 'module-path': str(modulePath), from: str(from), to: str(to) });
}

function sourcePatch(request: RefactorRequest, affected: readonly string[], source: Definition): MapTerm {
  const ops: Term[] = affected.map((p) => renameOp(p, request.fromSymbol, request.toSymbol));
  if (request.refactorKind !== 'rename') {
    const sourcePath = request.modules[source.moduleIndex]!.modulePath;
    const target = request.targetModulePath;
    ops.push(
      kwMap({
        op: kw('split-module'),
        'from-module-path': str(sourcePath),
        'to-module-path': str(target),
        symbols: vec([str(request.toSymbol)]),
      }),
    );
    const manifest: Term[] = [];
    for (const m of request.modules) {
      if (m.modulePath === sourcePath) manifest.push(manifestRecord(target));
      manifest.push(manifestRecord(m.modulePath));
    }
    ops.push(kwMap({ op: kw('update-manifest'), set: kwMap({ modules: vec(manifest) }) }));
  }
  return kwMap({ version: int(1), intent: str(planIntent(request)), provenance: planProvenance(request), ops: vec(ops) });
}

/** A manifest module record `{"hash" "" "path" p}` (apply re-pins the hash). */
function manifestRecord(path: string): MapTerm {
  return {
    kind: 'map',
    entries: [
      [str('hash'), str('')],
      [str('path'), str(path)],
    ],
  };
}

function reportTerm(
  request: RefactorRequest,
  fields: { ok: boolean; replacementCount: number; patch: NormalizedPatch | null; conflicts: readonly RefactorConflict[] },
): MapTerm {
  const { patch } = fields;
  return kwMap({
    kind: str(REFACTOR_REPORT_KIND),
    profile: str(REFACTOR_PROFILE),
    v: int(1),
    'request-h': str(request.requestH),
    ok: fields.ok ? TRUE : FALSE,
    'safe-to-apply': fields.ok ? TRUE : FALSE,
    'module-count': int(request.modules.length),
    'replacement-count': int(fields.replacementCount),
    'op-count': int(patch === null ? 0 : patch.ops.length),
    'op-identities': patch === null ? vec([]) : opIdentitiesTerm(patch.opIdentities),
    conflicts: vec(fields.conflicts.map(conflictTerm)),
    patch: patch === null ? NIL : patch.normalized,
    'patch-h': str(patch === null ? '' : patch.patchH),
  });
}

/**
 * Plans a refactor: a pure function of the closed request (no I/O, time or randomness).
 * Safe report: `:ok`/`:safe-to-apply` true, `[]` conflicts, the normalized patch (one
 * `:rename-symbol` per manifest-ordered module holding a source-symbol term; for move/extract then
 * one `:split-module` source→target with `:symbols [to]` and a final `:update-manifest` whose
 * `:set {:modules [...]}` lists every module as `{"hash" "" "path" p}` with the target inserted
 * immediately before the source module), `:patch-h`, `:op-identities`, positive counts.
 * Conflicted report: `:ok`/`:safe-to-apply` false, the conflicts, `nil` patch, `""` patch-h,
 * `[]` op identities, zero op and replacement counts.
 * @param request an admitted request, or a request term (admitted with `decodeRefactorRequest`).
 * @returns the report term and the facts behind it.
 * @throws GcError only for an inadmissible request term (`core/closed/*`, `refactor/request-invalid`).
 * Implements GenesisCode `docs/spec/SEMANTIC_REFACTOR_PLAN_v0.1.md` "Planning Semantics", "Rename", "Move and Extract".
 * @example planRefactor(buildRefactorRequest({refactorKind: 'rename', fromSymbol: 'a', toSymbol: 'b'}, modules)).safe
 */
export function planRefactor(request: RefactorRequest | Term): RefactorPlan {
  const req = 'term' in request && 'requestH' in request ? request : decodeRefactorRequest(request as Term);
  const scans = req.modules.map((m, i) => scanModule(i, m.forms, req.fromSymbol === '' ? undefined : req.fromSymbol));
  const { conflicts, source } = collectConflicts(req, scans);
  if (conflicts.length > 0 || source === undefined) {
    return {
      request: req,
      report: reportTerm(req, { ok: false, replacementCount: 0, patch: null, conflicts }),
      safe: false,
      conflicts,
      replacementCount: 0,
      affectedModules: [],
      patch: null,
    };
  }
  const affectedModules = req.modules.filter((_, i) => scans[i]!.occurrences > 0).map((m) => m.modulePath);
  const replacementCount = scans.reduce((n, s) => n + s.occurrences, 0);
  const patch = normalizePatch(sourcePatch(req, affectedModules, source));
  return {
    request: req,
    report: reportTerm(req, { ok: true, replacementCount, patch, conflicts: [] }),
    safe: true,
    conflicts: [],
    replacementCount,
    affectedModules,
    patch,
  };
}

/** The evidence-store address of a plan's report (plain BLAKE3 of its `print_term` bytes). */
export function reportAddress(plan: RefactorPlan): string {
  return termIdentity(plan.report).address;
}
