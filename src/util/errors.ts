/** The one error class of gcpatch: a stable `code`, a message for people, an exit code and a location. */

import { codeExit, ExitCode, ioErrnoCode, type GcCode } from './codes.js';

export { ExitCode };
export type { GcCode };

/**
 * Where an error happened. Offsets are 0-based UTF-8 byte offsets; `line` is 1-based and
 * `column` is 1-based in UTF-8 bytes (for humans). Edit-plan errors use the 0-based array indices.
 */
export interface GcErrorLocation {
  file?: string;
  offset?: number;
  line?: number;
  column?: number;
  fileIndex?: number;
  editIndex?: number;
  relatedEditIndex?: number;
  /** A human-readable pointer inside a structured input, e.g. a key name or a path-repr. */
  at?: string;
}

/**
 * A typed failure with a stable machine `code` (e.g. `core/parse/eof`, `patch/path-state-conflict`,
 * `BEFORE_MISMATCH`) from the registry `src/util/codes.ts`. Messages may change between versions;
 * codes may not.
 */
export class GcError extends Error {
  readonly code: GcCode;
  readonly exitCode: ExitCode;
  readonly location: GcErrorLocation;
  readonly details: Record<string, unknown> | undefined;

  /**
   * @param code stable error code, one of the registry's (`tsc` rejects any other).
   * @param message human-readable explanation, ideally naming the fix.
   * @param options `exitCode` (default: the code's registered exit code), `location`, structured
   *   `details`, `cause`.
   */
  constructor(
    code: GcCode,
    message: string,
    options: {
      exitCode?: ExitCode;
      location?: GcErrorLocation;
      details?: Record<string, unknown>;
      cause?: unknown;
    } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'GcError';
    this.code = code;
    this.exitCode = options.exitCode ?? codeExit(code);
    this.location = options.location ?? {};
    this.details = options.details;
  }

  /** Returns a copy of this error with `file` (and any other location fields) filled in. */
  withLocation(location: GcErrorLocation): GcError {
    return new GcError(this.code, this.message, {
      exitCode: this.exitCode,
      location: { ...this.location, ...location },
      details: this.details,
      cause: this.cause,
    });
  }

  /**
   * Renders `file:line:col: code: message` (parts that are unknown are left out), the form the
   * CLI prints on standard error.
   */
  format(): string {
    const loc = this.location;
    const parts: string[] = [];
    if (loc.file !== undefined) {
      let where = loc.file;
      if (loc.line !== undefined) where += `:${loc.line}`;
      if (loc.column !== undefined) where += `:${loc.column}`;
      parts.push(where);
    }
    parts.push(this.code);
    const head = parts.join(': ');
    const tail: string[] = [];
    if (loc.offset !== undefined && loc.line === undefined) tail.push(`byte ${loc.offset}`);
    if (loc.fileIndex !== undefined) tail.push(`file ${loc.fileIndex}`);
    if (loc.editIndex !== undefined) tail.push(`edit ${loc.editIndex}`);
    if (loc.relatedEditIndex !== undefined) tail.push(`related edit ${loc.relatedEditIndex}`);
    // A message that already names the revision (`… at HEAD`) does not repeat it.
    if (loc.at !== undefined && !this.message.includes(loc.at)) tail.push(loc.at);
    return `${head}: ${this.message}${tail.length > 0 ? ` (${tail.join(', ')})` : ''}`;
  }

  /** JSON shape used by every `--json` output: `{code, message, exitCode, location, details?}`. */
  toJSON(): Record<string, unknown> {
    const out: Record<string, unknown> = {
      code: this.code,
      message: this.message,
      exitCode: this.exitCode,
      location: this.location,
    };
    if (this.details !== undefined) out.details = this.details;
    return out;
  }
}

/** True when `value` is a {@link GcError}. */
export function isGcError(value: unknown): value is GcError {
  return value instanceof GcError;
}

/**
 * Wraps a Node.js filesystem error as a `GcError` with code `io/<errno code>` and exit code 70.
 * @param error the caught value; @param file the path being read or written.
 */
export function ioError(error: unknown, file: string, action: string): GcError {
  const errno = (error as NodeJS.ErrnoException | undefined)?.code ?? 'unknown';
  // Node's own text repeats the code and the path: "ENOENT: no such file or directory, open 'a.gc'".
  const reason = error instanceof Error ? error.message.replace(/^[A-Z][A-Z0-9]+: (.*), [a-z]+ '.*'$/s, '$1') : String(error);
  return new GcError(ioErrnoCode(errno), `cannot ${action} ${file}: ${reason}`, {
    exitCode: ExitCode.io,
    location: { file },
    cause: error,
  });
}
