/** The in-memory model of a `weavatrix.edit-plan.v1` plan: plan, file entries, edits and extensions. */

/** The only accepted `schemaVersion` (spec "Core fields / Plan"). */
export const SCHEMA_VERSION = 'weavatrix.edit-plan.v1';

/** The four applicable provenance labels (spec "Applicable provenance"). Case-sensitive. */
export const PROVENANCE_LABELS = ['EXACT_LSP', 'RESOLVED', 'EXTRACTED', 'LEXICAL_EXACT'] as const;
/** An applicable provenance label. */
export type Provenance = (typeof PROVENANCE_LABELS)[number];

/** Accepted values of the optional plan member `completeness`. */
export const COMPLETENESS_VALUES = ['COMPLETE', 'PARTIAL'] as const;

/** Declared plan members in serialization order; an extension may never use one of these keys. */
export const PLAN_FIELDS = ['schemaVersion', 'operation', 'files', 'completeness'] as const;
/** Declared file-entry members in serialization order. */
export const FILE_FIELDS = ['path', 'sha256', 'edits'] as const;
/** Declared edit members in serialization order. */
export const EDIT_FIELDS = ['startLine', 'startChar', 'endLine', 'endChar', 'before', 'after', 'provenance'] as const;

/**
 * A JSON number kept as its exact source text (e.g. `1e400`, `-0`, a 30-digit integer), so that
 * extension values survive decode → serialize byte for byte.
 */
export class JsonNumber {
  /** @param text the number exactly as written in the JSON document (RFC 8259 grammar). */
  constructor(readonly text: string) {}
  /** The value as a JS number (may lose precision or be ±Infinity). */
  valueOf(): number {
    return Number(this.text);
  }
}

/**
 * An extension value: any JSON value. Decoded objects are `Map`s (keys kept exactly, duplicate keys
 * last-wins); programmatic callers may also use plain objects and JS numbers. Objects are
 * serialized with keys in Unicode code-point order.
 */
export type JsonValue =
  null | boolean | number | string | JsonNumber | readonly JsonValue[] | ReadonlyMap<string, JsonValue> | { readonly [key: string]: JsonValue };

/** Unknown members of one plan, file or edit object, keyed by their decoded name. */
export type Extensions = ReadonlyMap<string, JsonValue>;

/**
 * One edit over the original source of its file. Positions: lines 1-based, characters 0-based
 * UTF-16 code units; the range [start, end) is half-open (spec "Position rules").
 */
export interface TextEdit {
  startLine: number;
  startChar: number;
  endLine: number;
  endChar: number;
  /** Exact original text of the range. */
  before: string;
  /** Replacement text; must differ from `before`. */
  after: string;
  /** One of {@link PROVENANCE_LABELS}; other strings decode but fail validation (`UNPROVEN_EDIT`). */
  provenance: string;
  extensions?: Extensions;
}

/** One file entry: a portable repository-relative path, the SHA-256 of its source, its edits. */
export interface FileEdit {
  path: string;
  /** 64 lowercase hex characters: SHA-256 of the file's raw bytes the edits were planned against. */
  sha256: string;
  edits: TextEdit[];
  extensions?: Extensions;
}

/** A whole plan (spec "Envelope"). */
export interface EditPlan {
  schemaVersion: string;
  operation: string;
  files: FileEdit[];
  /** `COMPLETE` or `PARTIAL` when present. */
  completeness?: string;
  extensions?: Extensions;
}
