/**
 * Serialize: {@link EditPlan} → JSON text. Declared members first in their fixed order, then the
 * level's extensions sorted by key in Unicode code-point order (= UTF-8 byte order, not JS `<`).
 * Implements weavatrix.edit-plan.v1 "Envelope" (unknown fields are serialized again).
 */
import { compareUtf8 } from '../util/bytes.js';
import { JsonNumber, type EditPlan, type Extensions, type FileEdit, type JsonValue, type TextEdit } from './model.js';

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

/** One object member: its key and the function that writes its value. */
type Member = [string, () => void];

class Writer {
  out = '';
  private level = 0;

  constructor(private readonly indent: number) {}

  private newline(): string {
    return this.indent > 0 ? '\n' + ' '.repeat(this.indent * this.level) : '';
  }

  private get colon(): string {
    return this.indent > 0 ? ': ' : ':';
  }

  /** Writes `{…}`: each member's key, then whatever its writer writes. */
  private object(members: Member[]): void {
    if (members.length === 0) {
      this.out += '{}';
      return;
    }
    this.out += '{';
    this.level++;
    members.forEach(([key, write], i) => {
      this.out += (i > 0 ? ',' : '') + this.newline() + JSON.stringify(key) + this.colon;
      write();
    });
    this.level--;
    this.out += this.newline() + '}';
  }

  private array<T>(items: readonly T[], write: (item: T) => void): void {
    if (items.length === 0) {
      this.out += '[]';
      return;
    }
    this.out += '[';
    this.level++;
    items.forEach((item, i) => {
      this.out += (i > 0 ? ',' : '') + this.newline();
      write(item);
    });
    this.level--;
    this.out += this.newline() + ']';
  }

  private extensionMembers(extensions: Extensions | undefined): Member[] {
    if (extensions === undefined || extensions.size === 0) return [];
    return [...extensions.keys()]
      .sort(compareUtf8)
      .map((key) => [key, () => this.value(extensions.get(key)!)] as Member);
  }

  plan(plan: EditPlan): void {
    const members: Member[] = [
      ['schemaVersion', () => this.string(plan.schemaVersion)],
      ['operation', () => this.string(plan.operation)],
      ['files', () => this.array(plan.files, (file) => this.file(file))],
    ];
    if (plan.completeness !== undefined) members.push(['completeness', () => this.string(plan.completeness!)]);
    this.object(members.concat(this.extensionMembers(plan.extensions)));
  }

  private file(file: FileEdit): void {
    const members: Member[] = [
      ['path', () => this.string(file.path)],
      ['sha256', () => this.string(file.sha256)],
      ['edits', () => this.array(file.edits, (edit) => this.edit(edit))],
    ];
    this.object(members.concat(this.extensionMembers(file.extensions)));
  }

  private edit(edit: TextEdit): void {
    const members: Member[] = [
      ['startLine', () => this.number(edit.startLine)],
      ['startChar', () => this.number(edit.startChar)],
      ['endLine', () => this.number(edit.endLine)],
      ['endChar', () => this.number(edit.endChar)],
      ['before', () => this.string(edit.before)],
      ['after', () => this.string(edit.after)],
      ['provenance', () => this.string(edit.provenance)],
    ];
    this.object(members.concat(this.extensionMembers(edit.extensions)));
  }

  private string(value: string): void {
    this.out += JSON.stringify(value);
  }

  private number(value: number): void {
    if (!Number.isFinite(value)) throw new TypeError(`cannot serialize the number ${value} as JSON`);
    this.out += JSON.stringify(value);
  }

  private value(value: JsonValue): void {
    if (value === null || typeof value === 'boolean') this.out += String(value);
    else if (typeof value === 'string') this.string(value);
    else if (typeof value === 'number') this.number(value);
    else if (value instanceof JsonNumber) this.out += value.text;
    else if (Array.isArray(value)) this.array(value as readonly JsonValue[], (item) => this.value(item));
    else if (value instanceof Map) {
      const map = value as ReadonlyMap<string, JsonValue>;
      this.object([...map.keys()].sort(compareUtf8).map((key): Member => [key, () => this.value(map.get(key)!)]));
    } else if (typeof value === 'object') {
      const record = value as { readonly [key: string]: JsonValue };
      this.object(Object.keys(record).sort(compareUtf8).map((key): Member => [key, () => this.value(record[key]!)]));
    } else throw new TypeError(`cannot serialize a ${typeof value} as JSON`);
  }
}
