/**
 * Decode: JSON text → {@link EditPlan}. Checks the wire shape only (JSON syntax, types, presence and
 * uniqueness of declared members); the invariants of spec "Core fields" are `validate.ts`'s job.
 *
 * Decode-error decisions (the Rust original reports these as untyped serde errors; the JS original
 * checked `schemaVersion` first, and so do we):
 *
 * 1. Input bytes that are not UTF-8, and malformed JSON (RFC 8259, strict: no BOM, no comments, no
 *    trailing commas, nesting ≤ 128) → `INVALID_PLAN` with `location.offset`/`line`/`column`.
 * 2. A top level that is not an object → `INVALID_PLAN`.
 * 3. `schemaVersion` missing, not a string, or not exactly `weavatrix.edit-plan.v1` (any
 *    occurrence, when repeated) → `SCHEMA_MISMATCH`, before any other structural check.
 * 4. Then each level in document order — plan, then files[i], then files[i].edits[j] — reports its own
 *    problems with its own code and indices: `INVALID_PLAN` (no indices), `INVALID_FILE`
 *    (`fileIndex`), `INVALID_EDIT` (`fileIndex`, `editIndex`). Within a level the order is: not an
 *    object → duplicate declared member → missing declared member (declared order) → wrong JSON type
 *    of a declared member (declared order) → a lone surrogate anywhere in the level's extensions.
 *    Unknown members never fail for their type.
 * 5. Positions (`startLine` … `endChar`) must be JSON numbers written as plain non-negative decimal
 *    integers ≤ 4294967295: `-1`, `-0`, `1.5`, `1.0`, `1e0` and `4294967296` are `INVALID_EDIT`
 *    (like a serde `u32`; `1.0` and `1e0` are rejected because they are not written as integers).
 *    `0` decodes; line 0 is rejected later by validation (`INVALID_EDIT`).
 * 6. `completeness` must be a string when present; `null` is rejected (`INVALID_PLAN`) as the spec's
 *    "COMPLETE or PARTIAL" and its JSON Schema say (the Rust decoder would read it as absent).
 * 7. Strings holding a lone surrogate (e.g. `"\ud800"`) cannot be held by the reference
 *    implementation; they are rejected anywhere — declared values, extension keys and values — with
 *    the code of the level they sit in.
 *
 * Declared member names match exactly and case-sensitively after JSON escapes are resolved, so
 * `"\u0073tartLine"` binds to `startLine` (and counts as a duplicate of a plain `startLine`).
 * Unknown members are kept per level in `extensions`; a repeated unknown member keeps its last value.
 * Objects nested inside extension values become `Map`s (duplicate keys last-wins); plain integer
 * literals of up to 15 digits become JS numbers and every other number a `JsonNumber` holding its
 * exact text, so serializing writes every number back as it was written.
 *
 * Implements weavatrix.edit-plan.v1 "Envelope" and "Core fields" (wire shape).
 */
import { decodeUtf8Strict } from '../util/bytes.js';
import { editError, type EditErrorIndices } from './errors.js';
import { JsonObjectNode, parseJson, type JsonNode } from './json.js';
import { EDIT_FIELDS, FILE_FIELDS, JsonNumber, PLAN_FIELDS, SCHEMA_VERSION, type EditPlan, type FileEdit, type JsonValue, type TextEdit } from './model.js';

/**
 * Decodes a plan from its JSON text.
 * @param text the JSON document.
 * @returns the plan model; `extensions` is present on a level only when it has unknown members.
 * @throws GcError `INVALID_PLAN`, `SCHEMA_MISMATCH`, `INVALID_FILE` or `INVALID_EDIT` (exit 10), see
 *   the module comment for which problem yields which code and indices.
 */
export function decodeEditPlan(text: string): EditPlan {
  return decodePlan(parseJson(text));
}

/**
 * Decodes a plan from raw bytes (strict UTF-8; a leading BOM is rejected as malformed JSON).
 * @throws GcError `INVALID_PLAN` for bytes that are not UTF-8, else as {@link decodeEditPlan}.
 */
export function decodeEditPlanBytes(bytes: Uint8Array): EditPlan {
  const text = decodeUtf8Strict(bytes);
  if (text === undefined) throw editError('INVALID_PLAN', 'the plan is not valid UTF-8');
  return decodeEditPlan(text);
}

type Level = 'INVALID_PLAN' | 'INVALID_FILE' | 'INVALID_EDIT';

/** Where the current level sits, for error codes and messages. */
interface Scope {
  code: Level;
  indices: EditErrorIndices;
}

function fail(scope: Scope, message: string): never {
  const { fileIndex, editIndex } = scope.indices;
  const what = fileIndex === undefined ? 'plan' : editIndex === undefined ? `files[${fileIndex}]` : `files[${fileIndex}].edits[${editIndex}]`;
  throw editError(scope.code, `${what}: ${message}`, scope.indices);
}

/** One scratch slot array per declared-field list; each level reads its slots before recursing. */
const scratch = new Map<readonly string[], Array<JsonNode | undefined>>();

/**
 * Splits an object's members into declared ones (slot i holds `fields[i]`; the array is reused, read
 * it before decoding nested levels) and unknown ones (last value wins; `undefined` when none).
 * @throws the level's code for a duplicate declared member or a missing required one.
 */
function splitMembers(
  node: JsonObjectNode,
  fields: readonly string[],
  scope: Scope,
): { declared: Array<JsonNode | undefined>; unknown: Map<string, JsonNode> | undefined } {
  let declared = scratch.get(fields);
  if (declared === undefined) scratch.set(fields, (declared = new Array<JsonNode | undefined>(fields.length)));
  declared.fill(undefined);
  let unknown: Map<string, JsonNode> | undefined;
  const { keys, values } = node;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const slot = fields.indexOf(key);
    if (slot >= 0) {
      if (declared[slot] !== undefined) fail(scope, `duplicate member ${JSON.stringify(key)}`);
      declared[slot] = values[i]!;
    } else {
      (unknown ??= new Map()).set(key, values[i]!);
    }
  }
  fields.forEach((name, slot) => {
    if (name !== 'completeness' && declared[slot] === undefined) fail(scope, `missing member ${JSON.stringify(name)}`);
  });
  return { declared, unknown };
}

function describe(node: JsonNode): string {
  if (node === null) return 'null';
  if (typeof node === 'boolean') return 'a boolean';
  if (typeof node === 'string') return 'a string';
  if (typeof node === 'number' || node instanceof JsonNumber) return 'a number';
  if (Array.isArray(node)) return 'an array';
  return 'an object';
}

function expectString(node: JsonNode, name: string, scope: Scope): string {
  if (typeof node !== 'string') fail(scope, `member ${JSON.stringify(name)} must be a string, got ${describe(node)}`);
  if (!node.isWellFormed()) fail(scope, `member ${JSON.stringify(name)} holds a lone surrogate`);
  return node;
}

function expectArray(node: JsonNode, name: string, scope: Scope): JsonNode[] {
  if (!Array.isArray(node)) fail(scope, `member ${JSON.stringify(name)} must be an array, got ${describe(node)}`);
  return node;
}

function expectPosition(node: JsonNode, name: string, scope: Scope): number {
  // Plain integer literals of up to 15 digits arrive as numbers; `-0`, fractions, exponents and
  // longer literals arrive as JsonNumber and are never a valid position.
  if (typeof node === 'number' && node >= 0 && node <= 0xffffffff) return node;
  const got = typeof node === 'number' ? String(node) : node instanceof JsonNumber ? node.text : describe(node);
  fail(scope, `member ${JSON.stringify(name)} must be an integer from 0 to 4294967295 without fraction or exponent, got ${got}`);
}

/** Converts unknown members to extension values, rejecting lone surrogates in keys or strings. */
function toExtensions(unknown: Map<string, JsonNode> | undefined, scope: Scope): Map<string, JsonValue> | undefined {
  if (unknown === undefined) return undefined;
  const out = new Map<string, JsonValue>();
  for (const [key, node] of unknown) {
    if (!key.isWellFormed()) fail(scope, 'an extension member name holds a lone surrogate');
    out.set(key, toJsonValue(node, key, scope));
  }
  return out;
}

function toJsonValue(node: JsonNode, key: string, scope: Scope): JsonValue {
  if (typeof node === 'string') {
    if (!node.isWellFormed()) fail(scope, `extension ${JSON.stringify(key)} holds a lone surrogate`);
    return node;
  }
  if (Array.isArray(node)) return node.map((item) => toJsonValue(item, key, scope));
  if (node instanceof JsonObjectNode) {
    const map = new Map<string, JsonValue>();
    for (let i = 0; i < node.keys.length; i++) {
      const name = node.keys[i]!;
      if (!name.isWellFormed()) fail(scope, `extension ${JSON.stringify(key)} holds a lone surrogate`);
      map.set(name, toJsonValue(node.values[i]!, key, scope));
    }
    return map;
  }
  return node;
}

/**
 * Decodes an already parsed JSON tree (see {@link decodeEditPlan} for the checks and codes).
 * @param root the document's top-level value.
 */
export function decodePlan(root: JsonNode): EditPlan {
  const scope: Scope = { code: 'INVALID_PLAN', indices: {} };
  if (!(root instanceof JsonObjectNode)) fail(scope, `must be a JSON object, got ${describe(root)}`);
  let sawVersion = false;
  for (let i = 0; i < root.keys.length; i++) {
    if (root.keys[i] !== 'schemaVersion') continue;
    sawVersion = true;
    const value = root.values[i]!;
    if (value !== SCHEMA_VERSION) {
      const got = typeof value === 'string' ? JSON.stringify(value) : describe(value);
      throw editError('SCHEMA_MISMATCH', `schemaVersion must be "${SCHEMA_VERSION}", got ${got}`);
    }
  }
  if (!sawVersion) throw editError('SCHEMA_MISMATCH', `missing schemaVersion (expected "${SCHEMA_VERSION}")`);

  const { declared, unknown } = splitMembers(root, PLAN_FIELDS, scope);
  const [, operationNode, filesNode, completenessNode] = declared;
  const operation = expectString(operationNode!, 'operation', scope);
  const fileNodes = expectArray(filesNode!, 'files', scope);
  const completeness = completenessNode === undefined ? undefined : expectString(completenessNode, 'completeness', scope);
  const extensions = toExtensions(unknown, scope);

  const files = fileNodes.map((node, fileIndex) => decodeFile(node, fileIndex));
  const plan: EditPlan = { schemaVersion: SCHEMA_VERSION, operation, files };
  if (completeness !== undefined) plan.completeness = completeness;
  if (extensions !== undefined) plan.extensions = extensions;
  return plan;
}

function decodeFile(node: JsonNode, fileIndex: number): FileEdit {
  const scope: Scope = { code: 'INVALID_FILE', indices: { fileIndex } };
  if (!(node instanceof JsonObjectNode)) fail(scope, `must be a JSON object, got ${describe(node)}`);
  const { declared, unknown } = splitMembers(node, FILE_FIELDS, scope);
  const path = expectString(declared[0]!, 'path', scope);
  const sha256 = expectString(declared[1]!, 'sha256', scope);
  const editNodes = expectArray(declared[2]!, 'edits', scope);
  const extensions = toExtensions(unknown, scope);
  const edits = editNodes.map((edit, editIndex) => decodeEdit(edit, fileIndex, editIndex));
  const file: FileEdit = { path, sha256, edits };
  if (extensions !== undefined) file.extensions = extensions;
  return file;
}

function decodeEdit(node: JsonNode, fileIndex: number, editIndex: number): TextEdit {
  const scope: Scope = { code: 'INVALID_EDIT', indices: { fileIndex, editIndex } };
  if (!(node instanceof JsonObjectNode)) fail(scope, `must be a JSON object, got ${describe(node)}`);
  const { declared, unknown } = splitMembers(node, EDIT_FIELDS, scope);
  const edit: TextEdit = {
    startLine: expectPosition(declared[0]!, 'startLine', scope),
    startChar: expectPosition(declared[1]!, 'startChar', scope),
    endLine: expectPosition(declared[2]!, 'endLine', scope),
    endChar: expectPosition(declared[3]!, 'endChar', scope),
    before: expectString(declared[4]!, 'before', scope),
    after: expectString(declared[5]!, 'after', scope),
    provenance: expectString(declared[6]!, 'provenance', scope),
  };
  const extensions = toExtensions(unknown, scope);
  if (extensions !== undefined) edit.extensions = extensions;
  return edit;
}
