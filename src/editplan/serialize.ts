/**
 * Serialize: {@link EditPlan} → JSON text. Declared members first in their fixed order, then the
 * level's extensions sorted by key in Unicode code-point order (= UTF-8 byte order, not JS `<`).
 * Implements weavatrix.edit-plan.v1 "Envelope" (unknown fields are serialized again).
 */
import { compareUtf8 } from '../util/bytes.js';
import { EDIT_FIELDS, FILE_FIELDS, JsonNumber, PLAN_FIELDS, type EditPlan, type Extensions, type FileEdit, type JsonValue, type TextEdit } from './model.js';

/** Options of {@link serializeEditPlan}. */
export interface SerializeOptions {
  /** Spaces per indentation level; 0 (default) produces compact JSON on one line. */
  indent?: number;
}

/**
 * Serializes a plan.
 * Order — plan: `schemaVersion`, `operation`, `files`, `completeness` (only when present), then
 * extensions; file: `path`, `sha256`, `edits`, extensions; edit: `startLine`, `startChar`, `endLine`,
 * `endChar`, `before`, `after`, `provenance`, extensions. Objects nested in extension values are
 * also written with keys in code-point order; `JsonNumber`s are written as their source text.
 * @param plan the plan (not validated here; a declared name used as an extension key would be
 *   written twice — `validateEditPlan` rejects such plans).
 * @returns JSON text without a trailing newline.
 * @throws TypeError for a non-finite JS number or a value that is not JSON.
 */
export function serializeEditPlan(plan: EditPlan, options: SerializeOptions = {}): string {
  const writer = new Writer(options.indent ?? 0);
  writer.plan(plan);
  return writer.out;
}

/** Declared member names, quoted once. */
const QUOTED = new Map([...PLAN_FIELDS, ...FILE_FIELDS, ...EDIT_FIELDS].map((name) => [name as string, JSON.stringify(name)]));

/**
 * Appends JSON to `out`. `open`/`close` bracket an object or array; `key`/`item` start a member or
 * element, writing the separator and (when indenting) the line break.
 */
class Writer {
  /** The output so far (V8 keeps `+=` results as ropes and flattens once). */
  out = '';
  /** Per open object/array: whether it has no member yet. */
  private readonly empty: boolean[] = [];

  constructor(private readonly indent: number) {}

  private newline(depth: number): string {
    return this.indent > 0 ? '\n' + ' '.repeat(this.indent * depth) : '';
  }

  private open(bracket: '{' | '['): void {
    this.out += bracket;
    this.empty.push(true);
  }

  private close(bracket: '}' | ']'): void {
    const wasEmpty = this.empty.pop()!;
    if (!wasEmpty && this.indent > 0) this.out += this.newline(this.empty.length);
    this.out += bracket;
  }

  private item(): void {
    const top = this.empty.length - 1;
    if (!this.empty[top]) this.out += ',';
    if (this.indent > 0) this.out += this.newline(this.empty.length);
    this.empty[top] = false;
  }

  private key(name: string): void {
    this.item();
    this.out += (QUOTED.get(name) ?? JSON.stringify(name)) + (this.indent > 0 ? ': ' : ':');
  }

  private extensions(extensions: Extensions | undefined): void {
    if (extensions === undefined || extensions.size === 0) return;
    for (const name of [...extensions.keys()].sort(compareUtf8)) {
      this.key(name);
      this.value(extensions.get(name)!);
    }
  }

  plan(plan: EditPlan): void {
    this.open('{');
    this.stringMember('schemaVersion', plan.schemaVersion);
    this.stringMember('operation', plan.operation);
    this.arrayMember('files', plan.files, (file) => this.file(file));
    if (plan.completeness !== undefined) this.stringMember('completeness', plan.completeness);
    this.extensions(plan.extensions);
    this.close('}');
  }

  private file(file: FileEdit): void {
    this.open('{');
    this.stringMember('path', file.path);
    this.stringMember('sha256', file.sha256);
    this.arrayMember('edits', file.edits, (edit) => this.edit(edit));
    this.extensions(file.extensions);
    this.close('}');
  }

  private edit(edit: TextEdit): void {
    this.checkFinite(edit.startLine);
    this.checkFinite(edit.startChar);
    this.checkFinite(edit.endLine);
    this.checkFinite(edit.endChar);
    if (edit.extensions === undefined || edit.extensions.size === 0) {
      // Fast path (the common case): declared members only, written natively. Their names are not
      // integer-like, so a plain object keeps them in insertion order.
      const { startLine, startChar, endLine, endChar, before, after, provenance } = edit;
      const text = JSON.stringify({ startLine, startChar, endLine, endChar, before, after, provenance }, null, this.indent);
      // JSON text holds no raw line breaks inside strings, so re-indenting every line is safe.
      this.out += this.indent > 0 ? text.replace(/\n/g, this.newline(this.empty.length)) : text;
      return;
    }
    this.open('{');
    this.numberMember('startLine', edit.startLine);
    this.numberMember('startChar', edit.startChar);
    this.numberMember('endLine', edit.endLine);
    this.numberMember('endChar', edit.endChar);
    this.stringMember('before', edit.before);
    this.stringMember('after', edit.after);
    this.stringMember('provenance', edit.provenance);
    this.extensions(edit.extensions);
    this.close('}');
  }

  private stringMember(name: string, value: string): void {
    this.key(name);
    this.string(value);
  }

  private numberMember(name: string, value: number): void {
    this.key(name);
    this.number(value);
  }

  /** A member whose value is an array, each element written by `write`. */
  private arrayMember<T>(name: string, items: readonly T[], write: (item: T) => void): void {
    this.key(name);
    this.open('[');
    for (const item of items) {
      this.item();
      write(item);
    }
    this.close(']');
  }

  private string(value: string): void {
    this.out += JSON.stringify(value);
  }

  private checkFinite(value: number): void {
    if (!Number.isFinite(value)) throw new TypeError(`cannot serialize the number ${value} as JSON`);
  }

  private number(value: number): void {
    this.checkFinite(value);
    this.out += String(value);
  }

  private members(keys: string[], get: (key: string) => JsonValue): void {
    this.open('{');
    for (const name of keys.sort(compareUtf8)) {
      this.key(name);
      this.value(get(name));
    }
    this.close('}');
  }

  private value(value: JsonValue): void {
    if (value === null || typeof value === 'boolean') this.out += String(value);
    else if (typeof value === 'string') this.string(value);
    else if (typeof value === 'number') this.number(value);
    else if (value instanceof JsonNumber) this.out += value.text;
    else if (Array.isArray(value)) {
      this.open('[');
      for (const element of value as readonly JsonValue[]) {
        this.item();
        this.value(element);
      }
      this.close(']');
    } else if (value instanceof Map) {
      const map = value as ReadonlyMap<string, JsonValue>;
      this.members([...map.keys()], (name) => map.get(name)!);
    } else if (typeof value === 'object') {
      const record = value as { readonly [key: string]: JsonValue };
      this.members(Object.keys(record), (name) => record[name]!);
    } else throw new TypeError(`cannot serialize a ${typeof value} as JSON`);
  }
}
