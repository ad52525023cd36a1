/**
 * The refactor planner `core/cli::refactor-plan` (SEMANTIC_REFACTOR_PLAN_v0.1.md "Planning
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
 * Conflicts are collected in this order (all that apply are reported, each once):
 * 1. `refactor/kind-invalid`;
 * 2. `refactor/source-symbol-invalid`, 3. `refactor/destination-symbol-invalid` (see
 *    {@link symbolProblem});
 * 4. `refactor/no-op` (both symbols well-formed and equal);
 * 5. `refactor/source-symbol-missing` / `refactor/source-symbol-ambiguous` (source well-formed;
 *    one ambiguity conflict per definition after the first, located at that definition);
 * 6. `refactor/destination-symbol-exists` (destination well-formed, not a no-op; one per
 *    definition, located at it);
 * 7. move/extract only: `refactor/target-module-required` (empty target),
 *    `refactor/target-module-invalid` (not portable), `refactor/target-module-exists` (a request
 *    module already has that path);
 * 8. move/extract with a unique source definition: `refactor/target-order-dependency`, one per
 *    workspace definition in the source module or a later module (other than the moved definition
 *    itself) whose name occurs as a symbol term in the moved right-hand side, located at that
 *    definition, in manifest then form order.
 * For `rename`, `:target-module-path` has no semantic effect and is not checked.
 */
import { RESERVED_HEADS } from '../coreform/canon.js';
import { printTerm } from '../coreform/print.js';
import {
  FALSE,
  int,
  kw,
  kwMap,
  NIL,
  str,
  TRUE,
  vec,
  type MapTerm,
  type Term,
  type VecTerm,
} from '../coreform/term.js';
import { normalizePatch, opIdentitiesTerm, type NormalizedPatch } from '../patch/normalize.js';
import { portablePathProblem } from '../workspace/path.js';
import {
  ConflictCode,
  REFACTOR_KINDS,
  REFACTOR_PROFILE,
  REFACTOR_REPORT_KIND,
  type ConflictCodeValue,
} from './codes.js';
import { decodeRefactorRequest, termIdentity, type RefactorRequest } from './request.js';

/** One conflict record `{:code :message :module-path :path-repr}`; location fields are `''` when none applies. */
export interface RefactorConflict {
  code: ConflictCodeValue;
  message: string;
  /** Module the conflict points at, or `''`. */
  modulePath: string;
  /** `print_term` of the node path (e.g. `"[\n  [:form 2]]"`), or `''`. */
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

const DELIMITERS = new Set([' ', '\t', '\n', '\r', '(', ')', '[', ']', '{', '}', "'", '"', ';']);

/**
 * Why `name` is a malformed symbol for a refactor, or `undefined` when it is well-formed.
 * Malformed means the printer could not write it as one symbol token that reads back as the same
 * symbol, or it would change a form's meaning: empty; a lone UTF-16 surrogate; whitespace (space,
 * TAB, LF, CR) or a delimiter `( ) [ ] { } ' " ;`; a literal `nil`/`true`/`false`; one of the nine
 * reserved special-form heads (`quote def fn if begin let prim seal unseal`); a leading ASCII
 * digit or `-` followed by a digit (would read as an integer). Keywords (`:x`) are well-formed.
 */
export function symbolProblem(name: string): string | undefined {
  if (name.length === 0) return 'is empty';
  if (/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(name)) return 'contains a lone surrogate';
  for (const ch of name) {
    if (DELIMITERS.has(ch)) return `contains whitespace or the delimiter ${JSON.stringify(ch)}`;
  }
  if (name === 'nil' || name === 'true' || name === 'false') return 'is the literal nil, true or false, not a symbol';
  if (RESERVED_HEADS.has(name)) return 'is a reserved special-form head';
  if (/^-?[0-9]/.test(name)) return 'would read as an integer (leading digit)';
  return undefined;
}

/** A workspace definition: where it is and its right-hand side. */
interface Definition {
  name: string;
  moduleIndex: number;
  formIndex: number;
  rhs: Term;
}

/** The scan of one module: its definitions and its source-symbol term count. */
interface ModuleScan {
  definitions: Definition[];
  occurrences: number;
}

/** `(def <sym> <rhs>)` → [name, rhs]; anything else → undefined. */
function asDefinition(form: Term): [string, Term] | undefined {
  if (form.kind !== 'pair' || form.car.kind !== 'sym' || form.car.name !== 'def') return undefined;
  const rest = form.cdr;
  if (rest.kind !== 'pair' || rest.car.kind !== 'sym') return undefined;
  const tail = rest.cdr;
  if (tail.kind !== 'pair' || tail.cdr.kind !== 'nil') return undefined;
  return [rest.car.name, tail.car];
}

/** Number of symbol terms named `name` in `root` (iterative preorder walk). */
function countSymbol(root: Term, name: string): number {
  let count = 0;
  const stack: Term[] = [root];
  while (stack.length > 0) {
    const t = stack.pop()!;
    switch (t.kind) {
      case 'sym':
        if (t.name === name) count++;
        break;
      case 'pair':
        stack.push(t.cdr, t.car);
        break;
      case 'vec':
        for (let i = t.items.length - 1; i >= 0; i--) stack.push(t.items[i]!);
        break;
      case 'map':
        for (let i = t.entries.length - 1; i >= 0; i--) stack.push(t.entries[i]![1], t.entries[i]![0]);
        break;
      default:
        break;
    }
  }
  return count;
}

/** Every symbol name occurring in `root`. */
function symbolNames(root: Term): Set<string> {
  const names = new Set<string>();
  const stack: Term[] = [root];
  while (stack.length > 0) {
    const t = stack.pop()!;
    if (t.kind === 'sym') names.add(t.name);
    else if (t.kind === 'pair') stack.push(t.cdr, t.car);
    else if (t.kind === 'vec') stack.push(...t.items);
    else if (t.kind === 'map') for (const [k, v] of t.entries) stack.push(k, v);
  }
  return names;
}

function scanModule(moduleIndex: number, forms: VecTerm, from: string | undefined): ModuleScan {
  const definitions: Definition[] = [];
  let occurrences = 0;
  forms.items.forEach((form, formIndex) => {
    const def = asDefinition(form);
    if (def !== undefined) definitions.push({ name: def[0], moduleIndex, formIndex, rhs: def[1] });
    if (from !== undefined) occurrences += countSymbol(form, from);
  });
  return { definitions, occurrences };
}

/** `print_term([[:form i]])`, the `:path-repr` of a top-level form. */
export function formPathRepr(formIndex: number): string {
  return printTerm(vec([vec([kw('form'), int(formIndex)])]));
}

/**
 * The patch `:intent` of a safe plan: `refactor <kind> <from> -> <to>`, plus ` into <target>` for
 * move/extract. A pure function of the request.
 */
export function planIntent(request: RefactorRequest): string {
  const base = `refactor ${request.refactorKind} ${request.fromSymbol} -> ${request.toSymbol}`;
  return request.refactorKind === 'rename' ? base : `${base} into ${request.targetModulePath}`;
}

/**
 * The patch `:provenance` of a safe plan: `{:refactor-plan-request <request store address>
 * :refactor-plan-request-h <request-h>}`. Both are pure functions of the request, so the plan stays
 * deterministic; the address lets a reader of the patch or of its apply report fetch the request
 * from the evidence store (docs/refactor.md "Evidence linkage").
 */
export function planProvenance(request: RefactorRequest): MapTerm {
  return kwMap({
    'refactor-plan-request': str(request.address),
    'refactor-plan-request-h': str(request.requestH),
  });
}

function conflictTerm(c: RefactorConflict): MapTerm {
  return kwMap({ code: str(c.code), message: str(c.message), 'module-path': str(c.modulePath), 'path-repr': str(c.pathRepr) });
}

function collectConflicts(request: RefactorRequest, scans: readonly ModuleScan[]): {
  conflicts: RefactorConflict[];
  source: Definition | undefined;
} {
  const conflicts: RefactorConflict[] = [];
  const add = (code: ConflictCodeValue, message: string, modulePath = '', pathRepr = ''): void => {
    conflicts.push({ code, message, modulePath, pathRepr });
  };
  const { refactorKind: kind, fromSymbol: from, toSymbol: to, targetModulePath: target } = request;
  const modulePath = (d: Definition): string => request.modules[d.moduleIndex]!.modulePath;

  const kindValid = (REFACTOR_KINDS as readonly string[]).includes(kind);
  if (!kindValid) add(ConflictCode.kindInvalid, `refactor kind ${JSON.stringify(kind)} is not one of ${REFACTOR_KINDS.join(', ')}`);
  const fromProblem = symbolProblem(from);
  if (fromProblem !== undefined) add(ConflictCode.sourceSymbolInvalid, `source symbol ${JSON.stringify(from)} ${fromProblem}`);
  const toProblem = symbolProblem(to);
  if (toProblem !== undefined) add(ConflictCode.destinationSymbolInvalid, `destination symbol ${JSON.stringify(to)} ${toProblem}`);
  const noOp = fromProblem === undefined && toProblem === undefined && from === to;
  if (noOp) add(ConflictCode.noOp, `source and destination symbols are both ${JSON.stringify(from)}`);

  let source: Definition | undefined;
  if (fromProblem === undefined) {
    const defs = scans.flatMap((s) => s.definitions.filter((d) => d.name === from));
    if (defs.length === 0) {
      add(ConflictCode.sourceSymbolMissing, `no module has a top-level (def ${from} ...) definition`);
    } else {
      const first = defs[0]!;
      for (const d of defs.slice(1)) {
        add(
          ConflictCode.sourceSymbolAmbiguous,
          `source symbol ${from} is defined more than once; first definition is form ${first.formIndex} of ${modulePath(first)}`,
          modulePath(d),
          formPathRepr(d.formIndex),
        );
      }
      if (defs.length === 1) source = first;
    }
  }
  if (toProblem === undefined && !noOp) {
    for (const s of scans) {
      for (const d of s.definitions) {
        if (d.name === to) {
          add(ConflictCode.destinationSymbolExists, `destination symbol ${to} is already defined`, modulePath(d), formPathRepr(d.formIndex));
        }
      }
    }
  }
  if (kind === 'move' || kind === 'extract') {
    if (target === '') {
      add(ConflictCode.targetModuleRequired, `refactor kind ${kind} needs a target module path`);
    } else {
      const problem = portablePathProblem(target);
      if (problem !== undefined) {
        add(ConflictCode.targetModuleInvalid, `target module path ${JSON.stringify(target)} ${problem}`);
      } else if (request.modules.some((m) => m.modulePath === target)) {
        add(ConflictCode.targetModuleExists, `target module ${target} is already a module of the package`, target);
      }
    }
    if (source !== undefined) {
      const referenced = symbolNames(source.rhs);
      for (const s of scans.slice(source.moduleIndex)) {
        for (const d of s.definitions) {
          if (d === source || !referenced.has(d.name)) continue;
          add(
            ConflictCode.targetOrderDependency,
            `moved definition ${from} references ${d.name}, which is defined in the source module or a later module and would not be available before ${modulePath(source)}`,
            modulePath(d),
            formPathRepr(d.formIndex),
          );
        }
      }
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
  return { kind: 'map', entries: [[str('hash'), str('')], [str('path'), str(path)]] };
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
 * Implements SEMANTIC_REFACTOR_PLAN_v0.1.md "Planning Semantics", "Rename", "Move and Extract".
 * @example planRefactor(buildRefactorRequest({refactorKind: 'rename', fromSymbol: 'a', toSymbol: 'b'}, modules)).safe
 */
export function planRefactor(request: RefactorRequest | Term): RefactorPlan {
  const req = 'term' in request && 'requestH' in request ? request : decodeRefactorRequest(request as Term);
  const from = symbolProblem(req.fromSymbol) === undefined ? req.fromSymbol : undefined;
  const scans = req.modules.map((m, i) => scanModule(i, m.forms, from));
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
