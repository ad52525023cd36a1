/**
 * The checks of the independent refactor-plan verifier (`verify.ts`): their names, the error each
 * failure throws, and the checks of a safe patch's op sequence (renames, split, manifest update),
 * each re-derived from the request, never from the planner.
 */
import { mapGet, sym, type Term, type VecTerm } from '../coreform/term.js';
import { ExitCode, GcError } from '../util/errors.js';
import { RefactorErrorCode } from './codes.js';
import type { RefactorRequest } from './request.js';

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

export function fail(check: VerifyCheckName, message: string): GcError {
  return new GcError(RefactorErrorCode.verificationFailed, `refactor plan report rejected (${check}): ${message}`, {
    exitCode: ExitCode.verificationFailed,
    details: { check },
  });
}

export function key(name: string): Term {
  return sym(`:${name}`);
}

export function field(m: Term, name: string): Term | undefined {
  return m.kind === 'map' ? mapGet(m, key(name)) : undefined;
}

export function strField(m: Term, name: string): string | undefined {
  const t = field(m, name);
  return t?.kind === 'str' ? t.value : undefined;
}

/** Facts the verifier derives from the request on its own. */
export interface RequestFacts {
  /** Per module (manifest order): number of symbol terms named `from`. */
  counts: number[];
  /** Top-level `(def name rhs)` forms: module index, form index, name, rhs. */
  defs: { module: number; form: number; name: string; rhs: Term }[];
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

/** The ops of a safe patch: renames in manifest order of exactly the modules holding the symbol, then the move/extract tail. Returns the renamed module paths. */
export function checkOpSequence(opsField: VecTerm, req: RefactorRequest, facts: RequestFacts, sourcePath: string): string[] {
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
      throw fail(
        VerifyCheck.opUnsupported,
        `op ${i} is ${name ?? 'not an op'}; a refactor plan contains only :rename-symbol${tail.length > 0 ? ', :split-module and :update-manifest' : ''}`,
      );
    }
  });
  if (renamed.length !== expectedAffected.length || renamed.some((p, i) => p !== expectedAffected[i])) {
    throw fail(
      VerifyCheck.affectedModules,
      `renamed modules [${renamed.join(', ')}] are not the modules holding ${req.fromSymbol}: [${expectedAffected.join(', ')}]`,
    );
  }
  if (phase !== tail.length) throw fail(VerifyCheck.opOrder, `missing final ${tail.slice(phase).join(' and ')}`);
  return renamed;
}
