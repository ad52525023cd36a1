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
import { NIL, type MapTerm, type Term, type VecTerm } from '../coreform/term.js';
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
import { checkOpSequence, fail, field, strField, VerifyCheck, type RequestFacts } from './verify-checks.js';

export { VerifyCheck, type VerifyCheckName } from './verify-checks.js';

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
  if (
    oldProvenance?.kind === 'map' &&
    (field(oldProvenance, 'refactor-plan-request') !== undefined || field(oldProvenance, 'refactor-plan-request-h') !== undefined)
  ) {
    throw outdated('its patch :provenance names the request');
  }
  const facts = scanRequest(req);
  const expected = expectedConflicts(req, facts);
  const reportConflicts = r.conflicts as ConflictRecord[];
  if (!sameConflicts(reportConflicts, expected)) {
    if (oldStyleConflicts(reportConflicts)) throw outdated('its conflicts carry interpolated messages or form locations');
    const show = (cs: readonly ConflictRecord[]): string => `[${cs.map((c) => (c.modulePath === '' ? c.code : `${c.code} at ${c.modulePath}`)).join(', ')}]`;
    throw fail(
      VerifyCheck.conflictRules,
      `the report's conflicts ${show(reportConflicts)} are not the ones the conflict rules give for this request: ${show(expected)}`,
    );
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
    throw fail(
      VerifyCheck.patchHeader,
      `:provenance must be exactly {:from <from> :kind :${req.refactorKind} :to <to> :tool ${JSON.stringify(REFACTOR_TOOL)}}`,
    );
  }
  const ops = opsField.items;
  if (r['op-count'] !== ops.length) throw fail(VerifyCheck.opCount, `:op-count is ${r['op-count']}, the patch has ${ops.length} ops`);
  const ids = r['op-identities'];
  if (ids.length !== ops.length || ids.some((id, i) => id.ordinal !== i || id.opH !== hashTerm(ops[i]!))) {
    throw fail(VerifyCheck.opIdentities, ':op-identities must be {:op-h hash-term(op) :ordinal i} for every op in order');
  }

  return { patch, ids };
}
