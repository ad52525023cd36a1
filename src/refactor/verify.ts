/**
 * Independent host verification of refactor-plan reports (GenesisCode `docs/spec/SEMANTIC_REFACTOR_PLAN_v0.1.md`
 * "Independent Host Verification"). Fail-closed and separate from the producer: nothing here is
 * imported from `plan.ts`; every expectation is re-derived from the request by this file's own
 * read-only scan.
 *
 * Any mismatch throws `GcError` `refactor/verification-failed` (exit 50) whose `details.check`
 * names the failed check (stable strings, listed in {@link VerifyCheck}). A mismatch is never
 * turned into a planner conflict.
 */
import { decodeClosed, D, vecOf } from '../coreform/closed.js';
import { hashTerm } from '../coreform/hash.js';
import { mapGet, NIL, sym, type MapTerm, type Term, type VecTerm } from '../coreform/term.js';
import { ExitCode, GcError, isGcError } from '../util/errors.js';
import { topLevelDef } from '../patch/ops/common.js';
import { portablePathProblem } from '../workspace/path.js';
import {
  CONFLICT_CODES,
  CONFLICT_MESSAGES,
  ConflictCode,
  REFACTOR_INTENT_PREFIX,
  REFACTOR_PROFILE,
  REFACTOR_REPORT_KIND,
  REFACTOR_TOOL,
  RefactorErrorCode,
  type ConflictCodeValue,
} from './codes.js';
import { decodeRefactorRequest, termIdentity, type RefactorRequest } from './request.js';

/**
 * The names of the verifier's checks (`details.check` of a `refactor/verification-failed` error),
 * in the order they run.
 */
export const VerifyCheck = {
  /** The report is not a closed map with the exact key set and field types. */
  reportShape: 'report-shape',
  /** `:kind`, `:profile` or `:v` is not the fixed identity. */
  identity: 'identity',
  /** `:request-h` is not hash-term of the request. */
  requestH: 'request-h',
  /** `:ok` differs from `:safe-to-apply`, or the status disagrees with the conflicts. */
  status: 'status',
  /** `:module-count` is not the request's module count. */
  moduleCount: 'module-count',
  /** A conflict code is outside the closed allowlist, or a conflict location names no module. */
  conflicts: 'conflicts',
  /**
   * A report written before gcpatch matched the reference (old patch header or interpolated
   * conflict messages); thrown as `refactor/report-outdated`, not `refactor/verification-failed`.
   */
  outdated: 'outdated',
  /**
   * The report's conflicts (codes, messages, locations, order) are not exactly the ones the
   * conflict rules give for the request; for a safe report, the rules give a conflict.
   */
  conflictRules: 'conflict-rules',
  /** A conflicted report carries a patch, a patch hash, op identities or non-zero counts. */
  conflictedShape: 'conflicted-shape',
  /** A safe report lacks a patch map, a hex64 `:patch-h`, or positive counts. */
  safeShape: 'safe-shape',
  /** `:patch-h` is not hash-term(`:patch`). */
  patchH: 'patch-h',
  /** `:patch` is not exactly `{:intent :ops :provenance :version 1}` (each op's exact normalized shape is checked per op). */
  patchNormalized: 'patch-normalized',
  /** `:intent`, `:provenance` or `:version` differ from the values the request determines. */
  patchHeader: 'patch-header',
  /** `:op-count` is not the number of ops. */
  opCount: 'op-count',
  /** `:op-identities` are not exactly `{:op-h hash-term(op_i) :ordinal i}` in op order. */
  opIdentities: 'op-identities',
  /** An op of a kind the plan may not contain (e.g. `:replace-node`). */
  opUnsupported: 'op-unsupported',
  /** A `:rename-symbol` op's `:from`/`:to` are not the requested symbols. */
  renameOperands: 'rename-operands',
  /** Two `:rename-symbol` ops name the same module. */
  renameDuplicate: 'rename-duplicate',
  /** `:rename-symbol` ops are not in manifest order. */
  renameOrder: 'rename-order',
  /** The renamed modules are not exactly the modules holding a source-symbol term. */
  affectedModules: 'affected-modules',
  /** `:replacement-count` is not the number of source-symbol terms in the request. */
  replacementCount: 'replacement-count',
  /** The `:split-module` op is missing, repeated, misplaced or has the wrong source, target or symbols. */
  split: 'split',
  /** The `:update-manifest` op is missing, misplaced, or not exactly `:set {:modules [target-before-source]}`. */
  manifestPayload: 'manifest-payload',
  /** Ops are out of order or missing (renames, then split, then the final manifest update). */
  opOrder: 'op-order',
} as const;
/** One of the {@link VerifyCheck} names (`details.check` of a verification error). */
export type VerifyCheckName = (typeof VerifyCheck)[keyof typeof VerifyCheck];

/** A verified report, decoded. */
export interface VerifiedRefactorReport {
  /** The request the report was verified against. */
  request: RefactorRequest;
  /** The report term as given. */
  report: MapTerm;
  /** hash-term of the report; `address` its store address. */
  reportH: string;
  address: string;
  /** `:ok` (= `:safe-to-apply`). */
  safe: boolean;
  conflicts: { code: ConflictCodeValue; message: string; modulePath: string; pathRepr: string }[];
  /** The normalized patch of a safe report, else `null`. */
  patch: MapTerm | null;
  /** `:patch-h` (`''` when conflicted). */
  patchH: string;
  replacementCount: number;
  opIdentities: { ordinal: number; opH: string }[];
  /** Modules renamed by the patch, manifest order. */
  affectedModules: string[];
}

function fail(check: VerifyCheckName, message: string): GcError {
  return new GcError(RefactorErrorCode.verificationFailed, `refactor plan report rejected (${check}): ${message}`, {
    exitCode: ExitCode.verificationFailed,
    details: { check },
  });
}

function key(name: string): Term {
  return sym(`:${name}`);
}

function field(m: Term, name: string): Term | undefined {
  return m.kind === 'map' ? mapGet(m, key(name)) : undefined;
}

function strField(m: Term, name: string): string | undefined {
  const t = field(m, name);
  return t?.kind === 'str' ? t.value : undefined;
}

/** Facts the verifier derives from the request on its own. */
interface RequestFacts {
  /** Per module (manifest order): number of symbol terms named `from`. */
  counts: number[];
  /** Top-level `(def name rhs)` forms: module index, form index, name, rhs. */
  defs: { module: number; form: number; name: string; rhs: Term }[];
}

/** Read-only breadth-first scan of every module's canonical forms. */
function scanRequest(request: RefactorRequest): RequestFacts {
  const from = request.fromSymbol;
  const counts: number[] = [];
  const defs: RequestFacts['defs'] = [];
  request.modules.forEach((m, module) => {
    let count = 0;
    const queue: Term[] = [...m.forms.items];
    for (let head = 0; head < queue.length; head++) {
      const t = queue[head]!;
      if (t.kind === 'sym') {
        if (t.name === from) count++;
      } else if (t.kind === 'pair') {
        queue.push(t.car, t.cdr);
      } else if (t.kind === 'vec') {
        for (const item of t.items) queue.push(item);
      } else if (t.kind === 'map') {
        for (const [k, v] of t.entries) queue.push(k, v);
      }
      // Drop consumed prefixes now and then so huge modules keep memory bounded.
      if (head > 4096 && head * 2 > queue.length) {
        queue.splice(0, head + 1);
        head = -1;
      }
    }
    counts.push(count);
    m.forms.items.forEach((form, formIndex) => {
      const def = topLevelDef(form);
      if (def !== undefined) defs.push({ module, form: formIndex, name: def.name, rhs: def.rhs });
    });
  });
  return { counts, defs };
}

/** True when `rhs` contains a symbol term named `name`. */
function mentions(rhs: Term, name: string): boolean {
  const pending: Term[] = [rhs];
  while (pending.length > 0) {
    const t = pending.pop()!;
    if (t.kind === 'sym' && t.name === name) return true;
    if (t.kind === 'pair') pending.push(t.car, t.cdr);
    else if (t.kind === 'vec') for (const item of t.items) pending.push(item);
    else if (t.kind === 'map') for (const [k, v] of t.entries) pending.push(k, v);
  }
  return false;
}

function decodeReport(t: Term) {
  try {
    return decodeClosed(
      t,
      {
        kind: D.str,
        profile: D.str,
        v: D.int,
        'request-h': D.str,
        ok: D.bool,
        'safe-to-apply': D.bool,
        'module-count': D.index,
        'replacement-count': D.index,
        'op-count': D.index,
        'op-identities': vecOf((e, at) => {
          const r = decodeClosed(e, { 'op-h': D.hex64, ordinal: D.index }, at);
          return { ordinal: r.ordinal, opH: r['op-h'] };
        }),
        conflicts: vecOf((e, at) => {
          const r = decodeClosed(e, { code: D.str, message: D.str, 'module-path': D.str, 'path-repr': D.str }, at);
          return { code: r.code, message: r.message, modulePath: r['module-path'], pathRepr: r['path-repr'] };
        }),
        patch: D.any,
        'patch-h': D.str,
      },
      'refactor plan report',
    );
  } catch (error) {
    if (isGcError(error)) throw fail(VerifyCheck.reportShape, error.message);
    throw error;
  }
}

/** One conflict record as the report carries it. */
type ConflictRecord = { code: ConflictCodeValue; message: string; modulePath: string; pathRepr: string };

/**
 * The conflicts the rules of docs/reference/patch-protocols.md §3.10 give for `request`, derived by this file's own
 * scan: each code at most once, fixed message, no location, in check order; the order dependency
 * only when nothing else conflicts, as the single conflict located at the module of the first
 * offending definition.
 */
function expectedConflicts(request: RefactorRequest, facts: RequestFacts): ConflictRecord[] {
  const { refactorKind: kind, fromSymbol: from, toSymbol: to, targetModulePath: target } = request;
  const out: ConflictRecord[] = [];
  const record = (code: ConflictCodeValue, modulePath = ''): ConflictRecord => ({ code, message: CONFLICT_MESSAGES[code], modulePath, pathRepr: '' });
  const sources = facts.defs.filter((d) => d.name === from).length;
  const isMove = kind === 'move' || kind === 'extract';
  const checks: [boolean, ConflictCodeValue][] = [
    [kind !== 'rename' && !isMove, ConflictCode.kindInvalid],
    [from.length === 0, ConflictCode.sourceSymbolInvalid],
    [to.length === 0, ConflictCode.destinationSymbolInvalid],
    [from === to && !request.nonStrings.has('from-symbol') && !request.nonStrings.has('to-symbol'), ConflictCode.noOp],
    [sources === 0, ConflictCode.sourceSymbolMissing],
    [sources >= 2, ConflictCode.sourceSymbolAmbiguous],
    [facts.defs.some((d) => d.name === to), ConflictCode.destinationSymbolExists],
  ];
  if (isMove) {
    const portable = target.length > 0 && portablePathProblem(target) === undefined;
    checks.push(
      [target.length === 0, ConflictCode.targetModuleRequired],
      [target.length > 0 && !portable, ConflictCode.targetModuleInvalid],
      [portable && request.modules.some((m) => m.modulePath === target), ConflictCode.targetModuleExists],
    );
  }
  for (const [applies, code] of checks) if (applies) out.push(record(code));
  if (out.length > 0 || !isMove) return out;
  const source = facts.defs.find((d) => d.name === from)!;
  for (const d of facts.defs) {
    if (d.module >= source.module && mentions(source.rhs, d.name)) {
      return [record(ConflictCode.targetOrderDependency, request.modules[d.module]!.modulePath)];
    }
  }
  return out;
}

function sameConflicts(a: readonly ConflictRecord[], b: readonly ConflictRecord[]): boolean {
  return (
    a.length === b.length &&
    a.every((x, i) => x.code === b[i]!.code && x.message === b[i]!.message && x.modulePath === b[i]!.modulePath && x.pathRepr === b[i]!.pathRepr)
  );
}

function outdated(message: string): GcError {
  return new GcError(
    RefactorErrorCode.reportOutdated,
    `refactor plan report was written by an earlier gcpatch (${message}); its linkage and bytes differ from the reference's. ` +
      'Re-plan it with `gcpatch refactor plan` (same --kind/--from/--to/--target) and commit the new request and report',
    { exitCode: ExitCode.verificationFailed, details: { check: VerifyCheck.outdated } },
  );
}

/** True when `conflicts` have the layout of gcpatch before reports matched the reference: a `:path-repr` form location. */
function oldStyleConflicts(conflicts: readonly ConflictRecord[]): boolean {
  return conflicts.some((c) => c.pathRepr !== '');
}

function opName(op: Term): string | undefined {
  const t = field(op, 'op');
  return t?.kind === 'sym' ? t.name : undefined;
}

/** Exactly `{:from f :module-path p :op :rename-symbol :to t}` with string operands. */
function checkRename(op: Term, index: number, request: RefactorRequest): string {
  if (op.kind !== 'map' || op.entries.length !== 4) throw fail(VerifyCheck.renameOperands, `op ${index} is not a closed :rename-symbol map`);
  const from = field(op, 'from');
  const to = field(op, 'to');
  const path = strField(op, 'module-path');
  if (from?.kind !== 'str' || from.value !== request.fromSymbol || to?.kind !== 'str' || to.value !== request.toSymbol) {
    throw fail(VerifyCheck.renameOperands, `op ${index} does not rename exactly ${request.fromSymbol} -> ${request.toSymbol}`);
  }
  if (path === undefined) throw fail(VerifyCheck.renameOperands, `op ${index} has no string :module-path`);
  return path;
}

function checkSplit(op: Term, index: number, request: RefactorRequest, sourcePath: string): void {
  const ok =
    op.kind === 'map' &&
    op.entries.length === 4 &&
    strField(op, 'from-module-path') === sourcePath &&
    strField(op, 'to-module-path') === request.targetModulePath &&
    (() => {
      const s = field(op, 'symbols');
      return s?.kind === 'vec' && s.items.length === 1 && s.items[0]!.kind === 'str' && s.items[0]!.value === request.toSymbol;
    })();
  if (!ok) {
    throw fail(VerifyCheck.split, `op ${index} must split [${request.toSymbol}] from ${sourcePath} into ${request.targetModulePath}`);
  }
}

function checkManifest(op: Term, index: number, request: RefactorRequest, sourcePath: string): void {
  const bad = (why: string): GcError => fail(VerifyCheck.manifestPayload, `op ${index}: ${why}`);
  if (op.kind !== 'map' || op.entries.length !== 7) throw bad('not a normalized :update-manifest map');
  for (const name of ['obligations-add', 'obligations-remove', 'tests-add', 'tests-remove']) {
    const v = field(op, name);
    if (v?.kind !== 'vec' || v.items.length !== 0) throw bad(`:${name} must be []`);
  }
  if (field(op, 'caps-policy')?.kind !== 'nil') throw bad(':caps-policy must be nil');
  const set = field(op, 'set');
  if (set?.kind !== 'map' || set.entries.length !== 1) throw bad(':set must be exactly {:modules [...]}');
  const modules = mapGet(set, key('modules'));
  if (modules?.kind !== 'vec') throw bad(':set must be exactly {:modules [...]}');
  const expected: string[] = [];
  for (const m of request.modules) {
    if (m.modulePath === sourcePath) expected.push(request.targetModulePath);
    expected.push(m.modulePath);
  }
  if (modules.items.length !== expected.length) throw bad(`:modules lists ${modules.items.length} modules, expected ${expected.length}`);
  modules.items.forEach((rec, i) => {
    const hashValue = rec.kind === 'map' ? mapGet(rec, { kind: 'str', value: 'hash' }) : undefined;
    const pathValue = rec.kind === 'map' ? mapGet(rec, { kind: 'str', value: 'path' }) : undefined;
    if (
      rec.kind !== 'map' ||
      rec.entries.length !== 2 ||
      hashValue?.kind !== 'str' ||
      hashValue.value !== '' ||
      pathValue?.kind !== 'str' ||
      pathValue.value !== expected[i]
    ) {
      throw bad(`:modules[${i}] must be {"hash" "" "path" ${JSON.stringify(expected[i])}} (target immediately before source)`);
    }
  });
}

/** A report as `decodeReport` gives it. */
type DecodedReport = ReturnType<typeof decodeReport>;

/**
 * Verifies a refactor-plan report against its request, independently of the planner.
 * Checks, in order: closed shape and types; fixed `:kind`/`:profile`/`:v`; `:request-h`; status
 * relations (`:ok` = `:safe-to-apply` = no conflicts); `:module-count`; conflict-code allowlist
 * and locations; that the report is not in the pre-reference layout (else
 * `refactor/report-outdated`); that the conflicts are exactly the ones the rules of docs/reference/patch-protocols.md
 * §3.10 give (codes, fixed messages, locations, order; none for a safe report); then for a
 * conflicted report its empty shape, and for a safe report: `:patch-h` = hash-term(`:patch`); the
 * patch is exactly `{:intent :ops :provenance :version 1}` and every op has exactly its normalized
 * field set; `:intent "semantic-refactor/<kind>"` and `:provenance {:from :kind :to :tool}`;
 * `:op-count`; `:op-identities`; the ops: only `:rename-symbol` (exact operands, unique, manifest
 * order, exactly the modules an independent scan finds holding a source-symbol term), then for
 * move/extract exactly one `:split-module` (source module → target, `[to]`) and one final
 * `:update-manifest` (`:set {:modules [...]}` with the target immediately before the source, every
 * record `{"hash" "" "path" p}`, no other manifest edit); and `:replacement-count` = the scan's count.
 * @param report the report term; @param request the admitted request or its term.
 * The request's identity is the one bound at admission (`request.ts` hashes the exact request
 * term); this function compares the report's `:request-h` with it.
 * @returns the decoded, verified report (`reportH`/`address` are computed on first access).
 * @throws GcError `refactor/verification-failed` (exit 50) with `details.check`;
 *   `refactor/report-outdated` (exit 50, `details.check` `outdated`) for a report written by an
 *   earlier gcpatch, whose message says to re-plan; for an inadmissible
 *   request term, the admission errors of `decodeRefactorRequest` (exit 10).
 * Implements GenesisCode `docs/spec/SEMANTIC_REFACTOR_PLAN_v0.1.md` "Independent Host Verification".
 */
export function verifyRefactorReport(report: Term, request: RefactorRequest | Term): VerifiedRefactorReport {
  const req: RefactorRequest = 'requestH' in request && 'term' in request ? request : decodeRefactorRequest(request as Term);
  const r = decodeReport(report);
  if (r.kind !== REFACTOR_REPORT_KIND || r.profile !== REFACTOR_PROFILE || r.v !== 1n) {
    throw fail(VerifyCheck.identity, `kind/profile/v must be ${REFACTOR_REPORT_KIND} / ${REFACTOR_PROFILE} / 1`);
  }
  // The request's identity is bound at admission (`request.ts` hashes the exact request term).
  const requestH = req.requestH;
  if (r['request-h'] !== requestH) throw fail(VerifyCheck.requestH, `:request-h ${r['request-h']} is not the request's hash-term ${requestH}`);
  if (r.ok !== r['safe-to-apply']) throw fail(VerifyCheck.status, ':ok and :safe-to-apply differ');
  if (r.ok !== (r.conflicts.length === 0)) throw fail(VerifyCheck.status, ':ok must be true exactly when :conflicts is empty');
  if (r['module-count'] !== req.modules.length) {
    throw fail(VerifyCheck.moduleCount, `:module-count is ${r['module-count']}, the request has ${req.modules.length} modules`);
  }
  const knownPaths = new Set(req.modules.map((m) => m.modulePath));
  // Conflict records are checked in three steps: allowlist and locations here, then the exact
  // set the rules give (below), which also decides whether a safe report may be safe at all.
  r.conflicts.forEach((c, i) => {
    if (!(CONFLICT_CODES as readonly string[]).includes(c.code)) throw fail(VerifyCheck.conflicts, `conflict ${i} has unknown code ${JSON.stringify(c.code)}`);
    if (c.modulePath !== '' && !knownPaths.has(c.modulePath)) {
      throw fail(VerifyCheck.conflicts, `conflict ${i} names module ${JSON.stringify(c.modulePath)}, which is not in the request`);
    }
  });
  const oldProvenance = field(field(report, 'patch') ?? NIL, 'provenance');
  if (oldProvenance?.kind === 'map' && (field(oldProvenance, 'refactor-plan-request') !== undefined || field(oldProvenance, 'refactor-plan-request-h') !== undefined)) {
    throw outdated('its patch :provenance names the request');
  }
  const facts = scanRequest(req);
  const expected = expectedConflicts(req, facts);
  const reportConflicts = r.conflicts as ConflictRecord[];
  if (!sameConflicts(reportConflicts, expected)) {
    if (oldStyleConflicts(reportConflicts)) throw outdated('its conflicts carry interpolated messages or form locations');
    const show = (cs: readonly ConflictRecord[]): string => `[${cs.map((c) => (c.modulePath === '' ? c.code : `${c.code} at ${c.modulePath}`)).join(', ')}]`;
    throw fail(VerifyCheck.conflictRules, `the report's conflicts ${show(reportConflicts)} are not the ones the conflict rules give for this request: ${show(expected)}`);
  }
  let identity: { address: string; hashTerm: string } | undefined;
  const base = {
    request: req,
    report: report as MapTerm,
    // Printing a large report costs time; compute its identities only when asked.
    get reportH(): string {
      identity ??= termIdentity(report);
      return identity.hashTerm;
    },
    get address(): string {
      identity ??= termIdentity(report);
      return identity.address;
    },
    conflicts: r.conflicts as VerifiedRefactorReport['conflicts'],
  };
  if (!r.ok) {
    if (r.patch.kind !== 'nil' || r['patch-h'] !== '' || r['op-identities'].length !== 0 || r['op-count'] !== 0 || r['replacement-count'] !== 0) {
      throw fail(VerifyCheck.conflictedShape, 'a conflicted report must have nil :patch, "" :patch-h, [] :op-identities and zero counts');
    }
    return Object.assign(base, { safe: false, patch: null, patchH: '', replacementCount: 0, opIdentities: [], affectedModules: [] });
  }

  // The rules gave no conflict, so `from` has exactly one definition.
  const source = facts.defs.find((d) => d.name === req.fromSymbol)!;
  const sourcePath = req.modules[source.module]!.modulePath;
  const { patch, ids } = checkSafePatch(r, req);
  const renamed = checkOpSequence(field(patch, 'ops') as VecTerm, req, facts, sourcePath);
  const total = facts.counts.reduce((a, b) => a + b, 0);
  if (r['replacement-count'] !== total) {
    throw fail(VerifyCheck.replacementCount, `:replacement-count is ${r['replacement-count']}, the scan finds ${total} ${req.fromSymbol} terms`);
  }
  return Object.assign(base, {
    safe: true,
    patch,
    patchH: r['patch-h'],
    replacementCount: total,
    opIdentities: ids,
    affectedModules: renamed,
  });
}

/** The patch of a safe report: its shape, `:patch-h`, the normalized header and the op identities. */
function checkSafePatch(r: DecodedReport, req: RefactorRequest): { patch: MapTerm; ids: DecodedReport['op-identities'] } {
  const patch = r.patch;
  if (patch.kind !== 'map' || r['op-count'] === 0 || r['replacement-count'] === 0) {
    throw fail(VerifyCheck.safeShape, 'a safe report needs a patch map and positive :op-count and :replacement-count');
  }
  if (r['patch-h'] !== hashTerm(patch)) throw fail(VerifyCheck.patchH, ':patch-h is not hash-term(:patch)');
  const version = field(patch, 'version');
  const opsField = field(patch, 'ops');
  if (
    patch.entries.length !== 4 ||
    version?.kind !== 'int' ||
    version.value !== 1n ||
    opsField?.kind !== 'vec' ||
    field(patch, 'intent') === undefined ||
    field(patch, 'provenance') === undefined
  ) {
    throw fail(VerifyCheck.patchNormalized, 'the patch must be exactly {:intent :ops :provenance :version 1}');
  }
  const provenance = field(patch, 'provenance');
  const expectedIntent = `${REFACTOR_INTENT_PREFIX}${req.refactorKind}`;
  const intent = field(patch, 'intent');
  if (intent?.kind !== 'str' || intent.value !== expectedIntent) throw fail(VerifyCheck.patchHeader, `:intent must be ${JSON.stringify(expectedIntent)}`);
  const kindField = provenance === undefined ? undefined : field(provenance, 'kind');
  const provenanceOk =
    provenance?.kind === 'map' &&
    provenance.entries.length === 4 &&
    strField(provenance, 'from') === req.fromSymbol &&
    strField(provenance, 'to') === req.toSymbol &&
    strField(provenance, 'tool') === REFACTOR_TOOL &&
    kindField?.kind === 'sym' &&
    kindField.name === `:${req.refactorKind}`;
  if (!provenanceOk) {
    throw fail(VerifyCheck.patchHeader, `:provenance must be exactly {:from <from> :kind :${req.refactorKind} :to <to> :tool ${JSON.stringify(REFACTOR_TOOL)}}`);
  }
  const ops = opsField.items;
  if (r['op-count'] !== ops.length) throw fail(VerifyCheck.opCount, `:op-count is ${r['op-count']}, the patch has ${ops.length} ops`);
  const ids = r['op-identities'];
  if (ids.length !== ops.length || ids.some((id, i) => id.ordinal !== i || id.opH !== hashTerm(ops[i]!))) {
    throw fail(VerifyCheck.opIdentities, ':op-identities must be {:op-h hash-term(op) :ordinal i} for every op in order');
  }

  return { patch, ids };
}

/** The ops of a safe patch: renames in manifest order of exactly the modules holding the symbol, then the move/extract tail. Returns the renamed module paths. */
function checkOpSequence(opsField: VecTerm, req: RefactorRequest, facts: RequestFacts, sourcePath: string): string[] {
  const ops = opsField.items;
  const expectedAffected = req.modules.filter((_, i) => facts.counts[i]! > 0).map((m) => m.modulePath);
  const position = new Map(req.modules.map((m, i) => [m.modulePath, i]));
  const renamed: string[] = [];
  const tail = req.refactorKind === 'rename' ? [] : [':split-module', ':update-manifest'];
  let phase = 0; // 0 renames, then one step per entry of `tail`
  ops.forEach((op, i) => {
    const name = opName(op);
    if (name === ':rename-symbol') {
      if (phase !== 0) throw fail(VerifyCheck.opOrder, `op ${i}: :rename-symbol after ${tail[phase - 1]}`);
      const path = checkRename(op, i, req);
      if (renamed.includes(path)) throw fail(VerifyCheck.renameDuplicate, `op ${i} renames ${path} a second time`);
      const at = position.get(path);
      if (at === undefined || facts.counts[at] === 0) {
        throw fail(VerifyCheck.affectedModules, `op ${i} renames ${path}, which holds no ${req.fromSymbol} term`);
      }
      const last = renamed.length === 0 ? -1 : position.get(renamed[renamed.length - 1]!)!;
      if (at < last) throw fail(VerifyCheck.renameOrder, `op ${i} renames ${path} out of manifest order`);
      renamed.push(path);
    } else if (name !== undefined && phase < tail.length && name === tail[phase]) {
      if (renamed.length !== expectedAffected.length) {
        throw fail(VerifyCheck.affectedModules, `the patch renames ${renamed.length} modules, the scan finds ${expectedAffected.length}`);
      }
      if (name === ':split-module') checkSplit(op, i, req, sourcePath);
      else checkManifest(op, i, req, sourcePath);
      phase++;
    } else if (name === ':split-module') {
      throw fail(tail.length === 0 ? VerifyCheck.opUnsupported : VerifyCheck.split, `op ${i}: unexpected :split-module`);
    } else if (name === ':update-manifest') {
      throw fail(tail.length === 0 ? VerifyCheck.opUnsupported : VerifyCheck.manifestPayload, `op ${i}: unexpected :update-manifest`);
    } else {
      throw fail(VerifyCheck.opUnsupported, `op ${i} is ${name ?? 'not an op'}; a refactor plan contains only :rename-symbol${tail.length > 0 ? ', :split-module and :update-manifest' : ''}`);
    }
  });
  if (renamed.length !== expectedAffected.length || renamed.some((p, i) => p !== expectedAffected[i])) {
    throw fail(VerifyCheck.affectedModules, `renamed modules [${renamed.join(', ')}] are not the modules holding ${req.fromSymbol}: [${expectedAffected.join(', ')}]`);
  }
  if (phase !== tail.length) throw fail(VerifyCheck.opOrder, `missing final ${tail.slice(phase).join(' and ')}`);
  return renamed;
}

