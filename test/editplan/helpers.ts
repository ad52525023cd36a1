/** Shared builders and assertions for the edit-plan tests. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect } from 'vitest';
import { GcError } from '../../src/util/errors.js';
import { SCHEMA_VERSION, type EditPlan, type FileEdit, type TextEdit } from '../../src/editplan/index.js';

/** A syntactically valid sha256 (the pure layers only check its shape). */
export const HASH = 'a'.repeat(64);

/** An edit; positions are (1-based line, 0-based UTF-16 char). */
export function edit(
  startLine: number,
  startChar: number,
  endLine: number,
  endChar: number,
  before: string,
  after: string,
  provenance = 'EXACT_LSP',
): TextEdit {
  return { startLine, startChar, endLine, endChar, before, after, provenance };
}

/** A file entry with one default edit unless `edits` is given. */
export function file(path: string, edits: TextEdit[] = [edit(1, 0, 1, 1, 'a', 'b')], sha256 = HASH): FileEdit {
  return { path, sha256, edits };
}

/** A plan over `files` (default: one file `a.ts`). */
export function plan(files: FileEdit[] = [file('a.ts')], extra: Partial<EditPlan> = {}): EditPlan {
  return { schemaVersion: SCHEMA_VERSION, operation: 'rename_symbol', files, ...extra };
}

/** The expected code and exact indices of a failure (absent index = must be absent). */
export interface Expected {
  code: string;
  fileIndex?: number;
  editIndex?: number;
  relatedEditIndex?: number;
}

/** The code and indices of the GcError `fn` throws, or undefined when it returns; any other throw passes through. */
export function failureOf(fn: () => unknown): Expected | undefined {
  try {
    fn();
  } catch (error) {
    if (!(error instanceof GcError)) throw error;
    const { fileIndex, editIndex, relatedEditIndex } = error.location;
    return { code: error.code, fileIndex, editIndex, relatedEditIndex };
  }
  return undefined;
}

/** Runs `fn`, asserts it throws a GcError with exactly this code and these indices, returns it. */
export function expectFailure(fn: () => unknown, expected: Expected): GcError {
  let caught: unknown;
  try {
    fn();
  } catch (error) {
    caught = error;
  }
  expect(caught, `expected ${expected.code}`).toBeInstanceOf(GcError);
  const error = caught as GcError;
  expect({
    code: error.code,
    fileIndex: error.location.fileIndex,
    editIndex: error.location.editIndex,
    relatedEditIndex: error.location.relatedEditIndex,
  }).toEqual({
    code: expected.code,
    fileIndex: expected.fileIndex,
    editIndex: expected.editIndex,
    relatedEditIndex: expected.relatedEditIndex,
  });
  return error;
}

/**
 * Registers clean-up for the calling test file and returns a maker of fresh temp directories
 * (`<tmpdir>/<prefix>…`), each removed after the test that made it.
 */
export function scratchDirs(): (prefix: string) => string {
  const made: string[] = [];
  afterEach(() => {
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return (prefix) => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    made.push(dir);
    return dir;
  };
}
