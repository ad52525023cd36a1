/**
 * The independent verifier of `genesis/patch-merge-v0.1` reports (GenesisCode `docs/spec/SEMANTIC_PATCH_MERGE_v0.1.md`
 * "Host Boundary"): it rebuilds the expected merge from the request with its own code (one
 * three-way choice function used at module and at form level, absence as `null`), then compares
 * every selected form, conflict, ordering fact, hash and the embedded diff report (checked by the
 * diff verifier). It exposes no merge producer.
 */
import { D, decodeClosed } from '../coreform/closed.js';
import { hashTerm } from '../coreform/hash.js';
import { int, kwMap, NIL, str, termsEqual, type Term, type VecTerm } from '../coreform/term.js';
import { diffRequestTerm } from '../diff/protocol.js';
import { verificationFailures, verifyDiffReport } from '../diff/verify.js';
import { compareUtf8 } from '../util/bytes.js';
import { makeWorkspace, workspaceHash, type Workspace } from '../workspace/workspace.js';
import {
  CONFLICT_EXPLANATIONS,
  decodeMergeReport,
  decodeMergeRequest,
  type ConflictCode,
  type MergeConflict,
  type MergeReport,
  type MergeRequest,
} from './report.js';

/** Error code of every merge verification failure (exit 50). */
export const MERGE_VERIFY_FAILED = 'merge/verify-failed';

const { fail, decoding, expectEqual, expectIdentity } = verificationFailures(MERGE_VERIFY_FAILED, 'merge report');

/** Equality of optional values; `null` (absent) equals only `null`. */
function same(a: Term | null, b: Term | null): boolean {
  return a === null || b === null ? a === b : termsEqual(a, b);
}

/**
 * Rules 1–3: which side a clean three-way choice takes, or `undefined` when both sides changed
 * differently. Used for module values (absent = `null`) and for single forms.
 */
function cleanChoice(base: Term | null, left: Term | null, right: Term | null): 'left' | 'right' | undefined {
  if (same(left, right)) return 'left';
  if (same(left, base)) return 'right';
  if (same(right, base)) return 'left';
  return undefined;
}

type Expected = Omit<MergeConflict, 'conflictH'>;

function expectedConflict(code: ConflictCode, modulePath: string, formIndex: number | null, b: Term, l: Term, r: Term): Expected {
  return {
    code,
    explanation: CONFLICT_EXPLANATIONS[code],
    modulePath,
    formIndex,
    baseH: hashTerm(b),
    leftH: hashTerm(l),
    rightH: hashTerm(r),
  };
}

/** hash-term of the conflict record without `:conflict-h`, built from the decoded fields. */
function conflictIdentity(c: Expected): string {
  return hashTerm(
    kwMap({
      code: str(c.code),
      explanation: str(c.explanation),
      'module-path': str(c.modulePath),
      'form-index': c.formIndex === null ? NIL : int(c.formIndex),
      'base-h': str(c.baseH),
      'left-h': str(c.leftH),
      'right-h': str(c.rightH),
    }),
  );
}

/** Rebuilds the expected merge: selected forms per present path, and the ordered conflicts. */
function expectedMerge(req: MergeRequest): { modules: Map<string, readonly Term[]>; conflicts: Expected[] } {
  const paths = new Set<string>();
  for (const ws of [req.base, req.left, req.right]) for (const m of ws.modules) paths.add(m.modulePath);
  const modules = new Map<string, readonly Term[]>();
  const conflicts: Expected[] = [];
  for (const path of [...paths].sort(compareUtf8)) {
    const bf = req.base.byPath.get(path) ?? null;
    const lf = req.left.byPath.get(path) ?? null;
    const rf = req.right.byPath.get(path) ?? null;
    const choice = cleanChoice(bf, lf, rf);
    if (choice !== undefined) {
      const picked = choice === 'left' ? lf : rf;
      if (picked !== null) modules.set(path, picked.items);
      continue;
    }
    const [b, l, r] = [bf ?? NIL, lf ?? NIL, rf ?? NIL];
    if (bf === null) {
      conflicts.push(expectedConflict('module/divergent-add', path, null, b, l, r));
    } else if (lf === null || rf === null) {
      conflicts.push(expectedConflict('module/delete-modify', path, null, b, l, r));
    } else if (bf.items.length !== lf.items.length || bf.items.length !== rf.items.length) {
      conflicts.push(expectedConflict('module/structural-divergence', path, null, b, l, r));
    } else {
      const forms = bf.items.map((baseForm, i) => {
        const formChoice = cleanChoice(baseForm, lf.items[i]!, rf.items[i]!);
        if (formChoice === undefined) {
          conflicts.push(expectedConflict('form/divergent-edit', path, i, baseForm, lf.items[i]!, rf.items[i]!));
          return baseForm;
        }
        return formChoice === 'left' ? lf.items[i]! : rf.items[i]!;
      });
      modules.set(path, forms);
    }
  }
  return { modules, conflicts };
}

/** Checks the report's `:merged` records against the expected modules, form by form. */
function checkMerged(merged: VecTerm, expected: Map<string, readonly Term[]>): Workspace {
  const records = merged.items.map((item, i) => {
    const r = decoding(`:merged[${i}]`, () => decodeClosed(item, { 'module-path': D.str, forms: D.vec }, `:merged[${i}]`));
    return { modulePath: r['module-path'], forms: r.forms };
  });
  records.forEach((rec, i) => {
    if (i > 0 && compareUtf8(records[i - 1]!.modulePath, rec.modulePath) >= 0) {
      throw fail(`:merged[${i}]`, `module paths are not strictly ascending (${rec.modulePath} after ${records[i - 1]!.modulePath})`);
    }
    const want = expected.get(rec.modulePath);
    if (want === undefined) throw fail(`:merged[${i}]`, `selects module ${rec.modulePath}, which the merge does not keep`);
    if (rec.forms.items.length !== want.length) {
      throw fail(`:merged[${i}]`, `${rec.modulePath} has ${rec.forms.items.length} forms, expected ${want.length}`);
    }
    rec.forms.items.forEach((form, j) => {
      if (!termsEqual(form, want[j]!)) throw fail(`:merged[${i}] form ${j}`, `${rec.modulePath} form ${j} is not the selected form`);
    });
  });
  if (records.length !== expected.size) {
    const missing = [...expected.keys()].find((p) => !records.some((r) => r.modulePath === p));
    throw fail(':merged', `lacks module ${missing ?? '?'}`);
  }
  return makeWorkspace(records, 'merged', { assumeCanonical: true });
}

/**
 * Verifies a merge report against its request, independently of the producer.
 * Checks the closed shape; `:request-h`, `:base-h`, `:left-h`, `:right-h`; `:ok`; on conflict, the
 * exact ordered conflict set (every field and `:conflict-h`) and nil `:merged`/`:merged-h`/`:diff`;
 * on success, no conflicts, every selected form of `:merged`, `:merged-h`, and the embedded diff
 * report base → merged with the request's intent and provenance (via `verifyDiffReport`).
 * @param request the request term (admitted here) or an admitted {@link MergeRequest}.
 * @returns the decoded report.
 * @throws GcError `merge/verify-failed` or `diff/verify-failed` (exit 50) naming the first field
 *   that disagrees; request admission errors (exit 10) when `request` is a term.
 */
export function verifyMergeReport(request: Term | MergeRequest, report: Term): MergeReport {
  const req = 'requestH' in request ? request : decodeMergeRequest(request);
  const decoded = decoding('shape', () => decodeMergeReport(report));
  expectIdentity(decoded, req, ['base', 'left', 'right']);

  const expected = expectedMerge(req);
  expectEqual(':ok', decoded.ok, expected.conflicts.length === 0);
  expectEqual(':conflict-count', decoded.conflictCount, expected.conflicts.length);
  expectEqual(':conflicts count', decoded.conflicts.length, expected.conflicts.length);
  decoded.conflicts.forEach((got, i) => {
    const want = expected.conflicts[i]!;
    const at = `:conflicts[${i}]`;
    expectEqual(`${at} :code`, got.code, want.code);
    expectEqual(`${at} :explanation`, got.explanation, want.explanation);
    expectEqual(`${at} :module-path`, got.modulePath, want.modulePath);
    expectEqual(`${at} :form-index`, got.formIndex, want.formIndex);
    expectEqual(`${at} :base-h`, got.baseH, want.baseH);
    expectEqual(`${at} :left-h`, got.leftH, want.leftH);
    expectEqual(`${at} :right-h`, got.rightH, want.rightH);
    expectEqual(`${at} :conflict-h`, got.conflictH, conflictIdentity(want));
  });

  if (!decoded.ok) {
    if (decoded.merged !== null) throw fail(':merged', 'must be nil on conflict (no partial result)');
    if (decoded.mergedH !== null) throw fail(':merged-h', 'must be nil on conflict');
    if (decoded.diff !== null) throw fail(':diff', 'must be nil on conflict (no partial patch)');
    return decoded;
  }
  if (decoded.merged === null) throw fail(':merged', 'is nil on success');
  const merged = checkMerged(decoded.merged, expected.modules);
  expectEqual(':merged-h', decoded.mergedH, workspaceHash(merged));
  if (decoded.diff === null) throw fail(':diff', 'is nil on success');
  const diffRequest = diffRequestTerm(req.base, merged, req.intent, req.provenance);
  verifyDiffReport({ intent: req.intent, provenance: req.provenance, base: req.base, target: merged, requestH: hashTerm(diffRequest) }, decoded.diff);
  return decoded;
}
