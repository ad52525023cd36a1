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
 * Objects nested inside extension values become `Map`s (duplicate keys last-wins).
 *
 * Implements weavatrix.edit-plan.v1 "Envelope" and "Core fields" (wire shape).
 */
import { decodeUtf8Strict } from '../util/bytes.js';
import { editError, type EditErrorIndices } from './errors.js';
import { JsonObjectNode, parseJson, type JsonNode } from './json.js';
import {
  EDIT_FIELDS,
  FILE_FIELDS,
  JsonNumber,
  PLAN_FIELDS,
  SCHEMA_VERSION,
  type EditPlan,
  type FileEdit,
  type JsonValue,
  type TextEdit,
} from './model.js';
import { isWellFormed } from './unicode.js';

/**
 * Decodes a plan from its JSON text.
 * @param text the JSON document.
 * @returns the plan model; every level has an `extensions` map (possibly empty).
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
  what: string;
}

function fail(scope: Scope, message: string): never {
  throw editError(scope.code, `${scope.what}: ${message}`, scope.indices);
}

/**
 * Splits an object's members into declared ones (by name) and unknown ones (last value wins).
 * @throws the level's code for a duplicate declared member.
 */
function splitMembers(
  node: JsonObjectNode,
  fields: readonly string[],
  scope: Scope,
): { declared: Map<string, JsonNode>; unknown: Map<string, JsonNode> } {
  const declared = new Map<string, JsonNode>();
  const unknown = new Map<string, JsonNode>();
  const { keys, values } = node;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    if (fields.includes(key)) {
      if (declared.has(key)) fail(scope, `duplicate member ${JSON.stringify(key)}`);
      declared.set(key, values[i]!);
    } else {
      unknown.set(key, values[i]!);
    }
  }
  for (const name of fields) {
    if (name !== 'completeness' && !declared.has(name)) fail(scope, `missing member ${JSON.stringify(name)}`);
  }
  return { declared, unknown };
}

function describe(node: JsonNode): string {
  if (node === null) return 'null';
  if (typeof node === 'boolean') return 'a boolean';
  if (typeof node === 'string') return 'a string';
  if (node instanceof JsonNumber) return 'a number';
  if (Array.isArray(node)) return 'an array';
  return 'an object';
}

function expectString(node: JsonNode, name: string, scope: Scope): string {
  if (typeof node !== 'string') fail(scope, `member ${JSON.stringify(name)} must be a string, got ${describe(node)}`);
  if (!isWellFormed(node)) fail(scope, `member ${JSON.stringify(name)} holds a lone surrogate`);
  return node;
}

function expectArray(node: JsonNode, name: string, scope: Scope): JsonNode[] {
  if (!Array.isArray(node)) fail(scope, `member ${JSON.stringify(name)} must be an array, got ${describe(node)}`);
  return node;
}

const U32_DIGITS = /^(?:0|[1-9][0-9]{0,9})$/;

function expectPosition(node: JsonNode, name: string, scope: Scope): number {
  if (node instanceof JsonNumber && U32_DIGITS.test(node.text)) {
    const value = Number(node.text);
    if (value <= 0xffffffff) return value;
  }
  const got = node instanceof JsonNumber ? node.text : describe(node);
  fail(scope, `member ${JSON.stringify(name)} must be an integer from 0 to 4294967295 without fraction or exponent, got ${got}`);
}

/** Converts unknown members to extension values, rejecting lone surrogates in keys or strings. */
function toExtensions(unknown: Map<string, JsonNode>, scope: Scope): Map<string, JsonValue> {
  const out = new Map<string, JsonValue>();
  for (const [key, node] of unknown) {
    if (!isWellFormed(key)) fail(scope, 'an extension member name holds a lone surrogate');
    out.set(key, toJsonValue(node, key, scope));
  }
  return out;
}

function toJsonValue(node: JsonNode, key: string, scope: Scope): JsonValue {
  if (typeof node === 'string') {
    if (!isWellFormed(node)) fail(scope, `extension ${JSON.stringify(key)} holds a lone surrogate`);
    return node;
  }
  if (Array.isArray(node)) return node.map((item) => toJsonValue(item, key, scope));
  if (node instanceof JsonObjectNode) {
    const map = new Map<string, JsonValue>();
    for (let i = 0; i < node.keys.length; i++) {
      const name = node.keys[i]!;
      if (!isWellFormed(name)) fail(scope, `extension ${JSON.stringify(key)} holds a lone surrogate`);
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
  const scope: Scope = { code: 'INVALID_PLAN', indices: {}, what: 'plan' };
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
  const operation = expectString(declared.get('operation')!, 'operation', scope);
  const fileNodes = expectArray(declared.get('files')!, 'files', scope);
  const completenessNode = declared.get('completeness');
  const completeness =
    completenessNode === undefined ? undefined : expectString(completenessNode, 'completeness', scope);
  const extensions = toExtensions(unknown, scope);

  const files = fileNodes.map((node, fileIndex) => decodeFile(node, fileIndex));
  const plan: EditPlan = { schemaVersion: SCHEMA_VERSION, operation, files, extensions };
  if (completeness !== undefined) plan.completeness = completeness;
  return plan;
}

function decodeFile(node: JsonNode, fileIndex: number): FileEdit {
  const scope: Scope = { code: 'INVALID_FILE', indices: { fileIndex }, what: `files[${fileIndex}]` };
  if (!(node instanceof JsonObjectNode)) fail(scope, `must be a JSON object, got ${describe(node)}`);
  const { declared, unknown } = splitMembers(node, FILE_FIELDS, scope);
  const path = expectString(declared.get('path')!, 'path', scope);
  const sha256 = expectString(declared.get('sha256')!, 'sha256', scope);
  const editNodes = expectArray(declared.get('edits')!, 'edits', scope);
  const extensions = toExtensions(unknown, scope);
  const edits = editNodes.map((edit, editIndex) => decodeEdit(edit, fileIndex, editIndex));
  return { path, sha256, edits, extensions };
}

function decodeEdit(node: JsonNode, fileIndex: number, editIndex: number): TextEdit {
  const scope: Scope = {
    code: 'INVALID_EDIT',
    indices: { fileIndex, editIndex },
    what: `files[${fileIndex}].edits[${editIndex}]`,
  };
  if (!(node instanceof JsonObjectNode)) fail(scope, `must be a JSON object, got ${describe(node)}`);
  const { declared, unknown } = splitMembers(node, EDIT_FIELDS, scope);
  return {
    startLine: expectPosition(declared.get('startLine')!, 'startLine', scope),
    startChar: expectPosition(declared.get('startChar')!, 'startChar', scope),
    endLine: expectPosition(declared.get('endLine')!, 'endLine', scope),
    endChar: expectPosition(declared.get('endChar')!, 'endChar', scope),
    before: expectString(declared.get('before')!, 'before', scope),
    after: expectString(declared.get('after')!, 'after', scope),
    provenance: expectString(declared.get('provenance')!, 'provenance', scope),
    extensions: toExtensions(unknown, scope),
  };
}
