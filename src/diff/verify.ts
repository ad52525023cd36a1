/**
 * The independent verifier of `genesis/patch-diff-v0.1` reports (docs/reference/patch-protocols.md §3.4 "verifier
 * checks sorted paths, ascending indices, no no-op/overlap/duplicate ops, add/remove pairing,
 * reconstruction"). It shares no code with the producer in `diff.ts`: it decodes the patch's ops
 * with their closed shapes, checks their order and minimality, applies them to the base with its
 * own small applier and requires the result to equal the target exactly.
 */
import { D, decodeClosed, literal } from '../coreform/closed.js';
import { hashTerm } from '../coreform/hash.js';
import { printTerm } from '../coreform/print.js';
import { formsEqual } from '../coreform/forms.js';
import { int, termsEqual, type Term } from '../coreform/term.js';
import { compareUtf8 } from '../util/bytes.js';
import { ExitCode, GcError, isGcError, type GcCode } from '../util/errors.js';
import { workspaceHash, type Workspace } from '../workspace/workspace.js';
import { decodeDiffReport, decodeDiffRequest, type DiffReport, type DiffRequest } from './protocol.js';

/** Error code of every diff verification failure (exit 50). */
export const DIFF_VERIFY_FAILED = 'diff/verify-failed';

/**
 * The error helpers of a report verifier whose failures all carry `code` and exit 50:
 * `fail(field, message)` builds one, its message `<subject> <field>: <message>` and location
 * `{at: field}`; `decoding(field, fn)` runs a decoder over report content and turns any `GcError`
 * it throws that is not already a verification failure (exit 50) into a failure of `field`;
 * `expectEqual(field, actual, expected)` fails `field` (`is <actual>, expected <expected>`) unless
 * they are `===`; `expectIdentity(report, request, sides)` checks `:request-h`, then `:<side>-h`
 * (the report's `<side>H` against the workspace hash of the request's `<side>`) for each side in
 * order, stopping at the first that differs.
 */
export function verificationFailures(
  code: GcCode,
  subject: string,
): {
  fail: (field: string, message: string, cause?: unknown) => GcError;
  decoding: <T>(field: string, fn: () => T) => T;
  expectEqual: (field: string, actual: unknown, expected: unknown) => void;
  expectIdentity: <S extends string>(
    report: { requestH: string } & Record<`${S}H`, string>,
    request: { requestH: string } & Record<S, Workspace>,
    sides: readonly S[],
  ) => void;
} {
  const fail = (field: string, message: string, cause?: unknown): GcError =>
    new GcError(code, `${subject} ${field}: ${message}`, { exitCode: ExitCode.verificationFailed, location: { at: field }, cause });
  const decoding = <T>(field: string, fn: () => T): T => {
    try {
      return fn();
    } catch (error) {
      if (isGcError(error) && error.exitCode !== ExitCode.verificationFailed) throw fail(field, error.message, error);
      throw error;
    }
  };
  const expectEqual = (field: string, actual: unknown, expected: unknown): void => {
    if (actual !== expected) throw fail(field, `is ${String(actual)}, expected ${String(expected)}`);
  };
  // The report's `:request-h`, then each side's workspace hash (`:base-h` is `baseH` of the report
  // against the hash of the request's `base`, …), in that order.
  const expectIdentity = <S extends string>(
    report: { requestH: string } & Record<`${S}H`, string>,
    request: { requestH: string } & Record<S, Workspace>,
    sides: readonly S[],
  ): void => {
    expectEqual(':request-h', report.requestH, request.requestH);
    for (const side of sides) expectEqual(`:${side}-h`, report[`${side}H`], workspaceHash(request[side]));
  };
  return { fail, decoding, expectEqual, expectIdentity };
}

const { fail, decoding, expectEqual, expectIdentity } = verificationFailures(DIFF_VERIFY_FAILED, 'diff report');

/** One decoded op of a diff patch. */
type DiffOp =
  | { op: 'replace-node'; modulePath: string; index: number; form: Term }
  | { op: 'add-module'; modulePath: string; forms: readonly Term[] }
  | { op: 'remove-module'; modulePath: string };

function decodeOp(t: Term, at: string): DiffOp {
  if (t.kind !== 'map') throw fail(at, `must be an op map, got ${t.kind}`);
  const opField = t.entries.find(([k]) => k.kind === 'sym' && k.name === ':op')?.[1];
  const name = opField?.kind === 'sym' ? opField.name : undefined;
  switch (name) {
    case ':replace-node': {
      const r = decodeClosed(t, { op: D.sym, 'module-path': D.str, path: D.vec, new: D.any }, at);
      const step = r.path.items.length === 1 ? r.path.items[0]! : undefined;
      const tag = step?.kind === 'vec' && step.items.length === 2 ? step.items[0] : undefined;
      const index = step?.kind === 'vec' && step.items.length === 2 ? step.items[1] : undefined;
      if (tag?.kind !== 'sym' || tag.name !== ':form' || index?.kind !== 'int' || index.value < 0n) {
        throw fail(`${at} :path`, `must be exactly [[:form i]] (top-form granularity), got ${printTerm(r.path)}`);
      }
      return { op: 'replace-node', modulePath: r['module-path'], index: Number(index.value), form: r.new };
    }
    case ':add-module': {
      const r = decodeClosed(t, { op: D.sym, 'module-path': D.str, content: D.vec }, at);
      return { op: 'add-module', modulePath: r['module-path'], forms: r.content.items };
    }
    case ':remove-module': {
      const r = decodeClosed(t, { op: D.sym, 'module-path': D.str }, at);
      return { op: 'remove-module', modulePath: r['module-path'] };
    }
    default:
      throw fail(at, `op must be :replace-node, :add-module or :remove-module, got ${opField === undefined ? 'none' : printTerm(opField)}`);
  }
}

/**
 * Checks the op sequence rules: module paths ascending (UTF-8 bytes); within one path either a
 * single `:add-module`, a single `:remove-module`, `:remove-module` immediately followed by
 * `:add-module` (only when the top-form count changes), or `:replace-node` ops with strictly
 * ascending form indices, each changing its form.
 */
function checkOpSequence(ops: readonly DiffOp[], base: ReadonlyMap<string, readonly Term[]>, target: ReadonlyMap<string, readonly Term[]>): void {
  let group: { path: string; last: DiffOp } | undefined;
  ops.forEach((op, i) => {
    const at = `:patch :ops[${i}]`;
    if (group !== undefined && group.path === op.modulePath) {
      const prev = group.last;
      if (prev.op === 'replace-node' && op.op === 'replace-node') {
        if (op.index === prev.index) throw fail(at, `duplicate :replace-node of ${op.modulePath} form ${op.index}`);
        if (op.index < prev.index) throw fail(at, `form indices of ${op.modulePath} are not ascending`);
      } else if (prev.op === 'remove-module' && op.op === 'add-module') {
        const before = base.get(op.modulePath);
        if (before !== undefined && before.length === op.forms.length) {
          throw fail(at, `remove/add pair of ${op.modulePath} keeps ${before.length} top forms; expected :replace-node ops`);
        }
      } else {
        throw fail(at, `overlapping ops on ${op.modulePath}: :${op.op} after :${prev.op}`);
      }
    } else {
      if (group !== undefined && compareUtf8(group.path, op.modulePath) > 0) {
        throw fail(at, `module paths are not in ascending order (${op.modulePath} after ${group.path})`);
      }
      if (op.op === 'remove-module') {
        const pairedAdd = ops[i + 1];
        const paired = pairedAdd?.op === 'add-module' && pairedAdd.modulePath === op.modulePath;
        if (!paired && target.has(op.modulePath)) {
          throw fail(at, `:remove-module of ${op.modulePath}, which the target keeps, without a paired :add-module`);
        }
      }
    }
    group = { path: op.modulePath, last: op };
  });
}

/** Applies decoded ops to a copy of the base; every precondition failure is a verification failure. */
function applyOps(ops: readonly DiffOp[], base: ReadonlyMap<string, readonly Term[]>): Map<string, readonly Term[]> {
  const modules = new Map(base);
  ops.forEach((op, i) => {
    const at = `:patch :ops[${i}]`;
    const current = modules.get(op.modulePath);
    switch (op.op) {
      case 'add-module':
        if (current !== undefined) throw fail(at, `:add-module of ${op.modulePath}, which already exists`);
        modules.set(op.modulePath, op.forms);
        break;
      case 'remove-module':
        if (current === undefined) throw fail(at, `:remove-module of ${op.modulePath}, which does not exist`);
        modules.delete(op.modulePath);
        break;
      case 'replace-node': {
        if (current === undefined) throw fail(at, `:replace-node in ${op.modulePath}, which does not exist`);
        if (op.index >= current.length) throw fail(at, `form index ${op.index} is out of range for ${op.modulePath} (${current.length} forms)`);
        if (termsEqual(current[op.index]!, op.form)) throw fail(at, `no-op :replace-node of ${op.modulePath} form ${op.index}`);
        const next = current.slice();
        next[op.index] = op.form;
        modules.set(op.modulePath, next);
        break;
      }
    }
  });
  return modules;
}

function formsMap(req: DiffRequest['base']): Map<string, readonly Term[]> {
  return new Map(req.modules.map((m) => [m.modulePath, m.forms.items]));
}

/**
 * Verifies a diff report against its request, independently of the producer.
 * Checks: closed report shape; `:request-h`, `:base-h`, `:target-h`; the patch's closed shape,
 * `:version 1`, and `:intent`/`:provenance` equal to the request's; `:patch-h`; `:op-count`;
 * `:op-identities` (ordinal i, hash-term of op i); `:stats`; the op sequence rules; and that
 * applying the ops to the base reconstructs the target exactly.
 * @param request the request term (admitted here) or an already admitted {@link DiffRequest}.
 * @param report the report term to check.
 * @returns the decoded report.
 * @throws GcError `diff/verify-failed` (exit 50) naming the first field that disagrees; request
 *   admission errors (`core/closed/*`, `workspace/*`, exit 10) when `request` is a term.
 */
export function verifyDiffReport(request: Term | DiffRequest, report: Term): DiffReport {
  const req = 'requestH' in request ? request : decodeDiffRequest(request);
  const decoded = decoding('shape', () => decodeDiffReport(report));
  expectIdentity(decoded, req, ['base', 'target']);

  const patch = decoding(':patch', () =>
    decodeClosed(decoded.patch, { intent: D.str, ops: D.vec, provenance: D.map, version: literal(int(1)) }, 'diff report :patch'),
  );
  expectEqual(':patch :intent', patch.intent, req.intent);
  if (!termsEqual(patch.provenance, req.provenance)) throw fail(':patch :provenance', 'differs from the request');
  expectEqual(':patch-h', decoded.patchH, hashTerm(decoded.patch));
  const opTerms = patch.ops.items;
  expectEqual(':op-count', decoded.opCount, opTerms.length);
  expectEqual(':op-identities count', decoded.opIdentities.length, opTerms.length);
  decoded.opIdentities.forEach((id, i) => {
    expectEqual(`:op-identities[${i}] :ordinal`, id.ordinal, i);
    expectEqual(`:op-identities[${i}] :op-h`, id.opH, hashTerm(opTerms[i]!));
  });

  const ops = opTerms.map((t, i) => decoding(`:patch :ops[${i}]`, () => decodeOp(t, `:patch :ops[${i}]`)));
  const count = (kind: DiffOp['op']): number => ops.filter((o) => o.op === kind).length;
  expectEqual(':stats :additions', decoded.stats.additions, count('add-module'));
  expectEqual(':stats :removals', decoded.stats.removals, count('remove-module'));
  expectEqual(':stats :replacements', decoded.stats.replacements, count('replace-node'));

  const base = formsMap(req.base);
  const target = formsMap(req.target);
  checkOpSequence(ops, base, target);
  const rebuilt = applyOps(ops, base);
  for (const [path, forms] of target) {
    const got = rebuilt.get(path);
    if (got === undefined) throw fail(':patch :ops', `applying the patch to the base does not create ${path}`);
    if (!formsEqual(got, forms)) {
      throw fail(':patch :ops', `applying the patch to the base does not reproduce ${path}`);
    }
  }
  for (const path of rebuilt.keys()) {
    if (!target.has(path)) throw fail(':patch :ops', `applying the patch to the base leaves ${path}, which the target lacks`);
  }
  return decoded;
}
