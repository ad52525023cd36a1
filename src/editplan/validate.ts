/**
 * Validate: the plan invariants of weavatrix.edit-plan.v1 in the reference's fixed, fail-fast order
 * (docs/reference/edit-plan-engine.md "Validation order"). Pure: no source text, positions versus lines, `before` versus source or
 * overlap is looked at here — that is `apply.ts`.
 */
import { isHex64 } from '../util/bytes.js';
import { editError, type EditErrorCode, type EditErrorIndices } from './errors.js';
import { planLimits, MAX_PLAN_OPERATION_BYTES, type PlanLimits } from './limits.js';
import {
  COMPLETENESS_VALUES,
  EDIT_FIELDS,
  FILE_FIELDS,
  PLAN_FIELDS,
  PROVENANCE_LABELS,
  SCHEMA_VERSION,
  type EditPlan,
  type Extensions,
  type FileEdit,
  type TextEdit,
} from './model.js';
import { pathProblem, portablePathKey } from './path.js';
import { utf8ByteLength } from './unicode.js';

/** What a successful validation counted. */
export interface PlanTotals {
  /** Number of file entries. */
  files: number;
  /** Number of edits over all files. */
  totalEdits: number;
  /** UTF-8 bytes of every `before` plus every `after`. */
  totalTextBytes: number;
}

const PROVENANCE_SET: ReadonlySet<string> = new Set(PROVENANCE_LABELS);
const MAX_U32 = 0xffffffff;

function reservedKey(extensions: Extensions | undefined, fields: readonly string[]): string | undefined {
  if (extensions === undefined) return undefined;
  return fields.find((name) => extensions.has(name));
}

function isU32(value: unknown): boolean {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= MAX_U32;
}

/**
 * Checks one edit on its own (checks 8f–8j of the fixed order), in this order:
 * an extension key equal to a declared edit name → `INVALID_EDIT`; a position that is not an
 * integer in 0…4294967295 (only reachable programmatically) or `startLine`/`endLine` 0 →
 * `INVALID_EDIT`; end before start, comparing (line, char) → `INVALID_EDIT`; `before`/`after` not
 * strings or equal → `INVALID_EDIT`; `before`/`after` with a lone surrogate → `INVALID_EDIT`;
 * `provenance` not one of the four labels (case-sensitive) → `UNPROVEN_EDIT`.
 * @param edit the edit; @param editIndex its index in the file's `edits`;
 * @param fileIndex its file's index, when known (the per-source API has none).
 * @throws GcError with `editIndex` (and `fileIndex` when given).
 */
export function checkEdit(edit: TextEdit, editIndex: number, fileIndex?: number): void {
  const problem = editProblem(edit);
  if (problem !== undefined) {
    const indices: EditErrorIndices = fileIndex === undefined ? { editIndex } : { fileIndex, editIndex };
    throw editError(problem[0], problem[1], indices);
  }
}

/** The first problem of one edit as [code, message], or undefined (allocates nothing when valid). */
function editProblem(edit: TextEdit): [EditErrorCode, string] | undefined {
  const reserved = reservedKey(edit.extensions, EDIT_FIELDS);
  if (reserved !== undefined) {
    return ['INVALID_EDIT', `edit extension ${JSON.stringify(reserved)} shadows a declared member`];
  }
  if (!isU32(edit.startLine) || !isU32(edit.startChar) || !isU32(edit.endLine) || !isU32(edit.endChar)) {
    return ['INVALID_EDIT', 'edit positions must be integers from 0 to 4294967295'];
  }
  if (edit.startLine === 0 || edit.endLine === 0) {
    return ['INVALID_EDIT', 'edit lines are 1-based; line 0 does not exist'];
  }
  if (edit.endLine < edit.startLine || (edit.endLine === edit.startLine && edit.endChar < edit.startChar)) {
    return ['INVALID_EDIT', `edit end (${edit.endLine},${edit.endChar}) precedes its start (${edit.startLine},${edit.startChar})`];
  }
  if (typeof edit.before !== 'string' || typeof edit.after !== 'string') {
    return ['INVALID_EDIT', 'edit before and after must be strings'];
  }
  if (edit.before === edit.after) {
    return ['INVALID_EDIT', 'edit after equals before; an edit must change its range'];
  }
  if (!edit.before.isWellFormed() || !edit.after.isWellFormed()) {
    return ['INVALID_EDIT', 'edit before or after holds a lone surrogate'];
  }
  if (!PROVENANCE_SET.has(edit.provenance)) {
    return ['UNPROVEN_EDIT', `provenance ${JSON.stringify(edit.provenance)} is not one of ${PROVENANCE_LABELS.join(', ')}`];
  }
  return undefined;
}

/**
 * Validates a whole plan, fail-fast, in this order (each line: check → code, indices):
 * 1. `schemaVersion` ≠ `weavatrix.edit-plan.v1` → `SCHEMA_MISMATCH`;
 * 2. a plan extension named like a declared plan member → `INVALID_PLAN`;
 * 3. `operation` empty (or with a lone surrogate) → `INVALID_PLAN`;
 * 4. `operation` over 4,096 UTF-8 bytes → `PLAN_TOO_LARGE`;
 * 5. `files` empty → `INVALID_PLAN`; 6. more than `maxFiles` files → `PLAN_TOO_LARGE`;
 * 7. `completeness` present and not `COMPLETE`/`PARTIAL` → `INVALID_PLAN`;
 * 8. then each file i completely before file i+1 (all with `fileIndex` i):
 *    a. file extension named `path`/`sha256`/`edits` → `INVALID_FILE`;
 *    b. path rules ({@link pathProblem}) → `INVALID_PATH`;
 *    c. `sha256` not 64 lowercase hex → `INVALID_FILE`; d. no edits → `INVALID_FILE`;
 *    e. more than `maxEditsPerFile` edits → `PLAN_TOO_LARGE`;
 *    f–j. each edit j in order: {@link checkEdit} (`editIndex` j);
 *    k. exact path seen before → `INVALID_PLAN`; l. alias key ({@link portablePathKey}) seen before →
 *       `INVALID_PLAN` (both with the later file's index);
 *    m. running edit total over `maxTotalEdits` → `PLAN_TOO_LARGE` (no indices);
 *    n. running `before`+`after` UTF-8 bytes, after each edit, over `maxTotalTextBytes` →
 *       `PLAN_TOO_LARGE` (no indices).
 * Budgets compare with strict "greater than".
 * @param plan the decoded or programmatically built plan.
 * @param limits budgets; missing members take {@link DEFAULT_PLAN_LIMITS}.
 * @returns the counts of files, edits and text bytes.
 * @throws GcError with the code and indices above (exit 10).
 * Implements weavatrix.edit-plan.v1 "Core fields", "Path rules", "Default budgets".
 */
export function validateEditPlan(plan: EditPlan, limits: Partial<PlanLimits> = {}): PlanTotals {
  const budget = planLimits(limits);
  if (plan.schemaVersion !== SCHEMA_VERSION) {
    throw editError('SCHEMA_MISMATCH', `schemaVersion must be "${SCHEMA_VERSION}"`);
  }
  const planReserved = reservedKey(plan.extensions, PLAN_FIELDS);
  if (planReserved !== undefined) {
    throw editError('INVALID_PLAN', `plan extension ${JSON.stringify(planReserved)} shadows a declared member`);
  }
  if (typeof plan.operation !== 'string' || plan.operation.length === 0) {
    throw editError('INVALID_PLAN', 'operation must be a non-empty string');
  }
  if (!plan.operation.isWellFormed()) throw editError('INVALID_PLAN', 'operation holds a lone surrogate');
  if (utf8ByteLength(plan.operation) > MAX_PLAN_OPERATION_BYTES) {
    throw editError('PLAN_TOO_LARGE', `operation is longer than ${MAX_PLAN_OPERATION_BYTES} UTF-8 bytes`);
  }
  if (!Array.isArray(plan.files) || plan.files.length === 0) {
    throw editError('INVALID_PLAN', 'files must be a non-empty array');
  }
  if (plan.files.length > budget.maxFiles) {
    throw editError('PLAN_TOO_LARGE', `${plan.files.length} files exceed the limit of ${budget.maxFiles}`);
  }
  if (plan.completeness !== undefined && !(COMPLETENESS_VALUES as readonly unknown[]).includes(plan.completeness)) {
    throw editError('INVALID_PLAN', `completeness must be ${COMPLETENESS_VALUES.join(' or ')}`);
  }

  const seenPaths = new Set<string>();
  const seenKeys = new Set<string>();
  let totalEdits = 0;
  let totalTextBytes = 0;
  plan.files.forEach((file, fileIndex) => {
    checkFile(file, fileIndex, budget);
    if (seenPaths.has(file.path)) {
      throw editError('INVALID_PLAN', `path ${JSON.stringify(file.path)} appears twice`, { fileIndex });
    }
    seenPaths.add(file.path);
    const key = portablePathKey(file.path);
    if (seenKeys.has(key)) {
      throw editError('INVALID_PLAN', `path ${JSON.stringify(file.path)} is a Windows-portable alias of an earlier path (key ${JSON.stringify(key)})`, {
        fileIndex,
      });
    }
    seenKeys.add(key);
    totalEdits += file.edits.length;
    if (totalEdits > budget.maxTotalEdits) {
      throw editError('PLAN_TOO_LARGE', `more than ${budget.maxTotalEdits} edits in the plan`);
    }
    for (const edit of file.edits) {
      totalTextBytes += utf8ByteLength(edit.before) + utf8ByteLength(edit.after);
      if (totalTextBytes > budget.maxTotalTextBytes) {
        throw editError('PLAN_TOO_LARGE', `before and after texts exceed ${budget.maxTotalTextBytes} UTF-8 bytes`);
      }
    }
  });
  return { files: plan.files.length, totalEdits, totalTextBytes };
}

/** Checks 8a–8j for one file entry. */
function checkFile(file: FileEdit, fileIndex: number, budget: PlanLimits): void {
  const indices = { fileIndex };
  const reserved = reservedKey(file.extensions, FILE_FIELDS);
  if (reserved !== undefined) {
    throw editError('INVALID_FILE', `file extension ${JSON.stringify(reserved)} shadows a declared member`, indices);
  }
  const problem = typeof file.path === 'string' ? pathProblem(file.path, budget.maxPathBytes) : 'path must be a string';
  if (problem !== undefined) throw editError('INVALID_PATH', problem, indices);
  if (typeof file.sha256 !== 'string' || !isHex64(file.sha256)) {
    throw editError('INVALID_FILE', 'sha256 must be exactly 64 lowercase hexadecimal characters', indices);
  }
  if (!Array.isArray(file.edits) || file.edits.length === 0) {
    throw editError('INVALID_FILE', 'edits must be a non-empty array', indices);
  }
  if (file.edits.length > budget.maxEditsPerFile) {
    throw editError('PLAN_TOO_LARGE', `${file.edits.length} edits exceed the per-file limit of ${budget.maxEditsPerFile}`, indices);
  }
  file.edits.forEach((edit, editIndex) => checkEdit(edit, editIndex, fileIndex));
}
