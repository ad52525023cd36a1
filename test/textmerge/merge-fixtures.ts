// The merge triples of fixtures/merge/<case>/{Base,Left,Right,Expected}.gc and their optional
// options.json, read one way for test/textmerge/fixtures.test.ts and test/driver-service/fixtures.test.ts.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../helpers/cli.js';

/** The folder of the merge triples: fixtures/merge. */
export const MERGE_FIXTURES = join(ROOT, 'fixtures/merge');

/** The case names (the folders holding a Base.gc), sorted; none when fixtures/merge is missing. */
export const mergeFixtureCases: string[] = existsSync(MERGE_FIXTURES)
  ? readdirSync(MERGE_FIXTURES)
      .filter((d) => existsSync(join(MERGE_FIXTURES, d, 'Base.gc')))
      .sort()
  : [];

/** A case's options.json (every member optional; the tests give the defaults). */
export interface MergeCaseOptions {
  markerSize?: number;
  style?: 'merge' | 'diff3';
  exitCode?: 0 | 1;
  /** Skip the semantic invariants (fallback cases whose sides do not read). */
  invariants?: boolean;
}

/** One case: its folder, a reader of a file's bytes in it, and its options (`{}` without options.json). */
export function mergeFixture(name: string): { dir: string; read: (file: string) => Uint8Array; options: MergeCaseOptions } {
  const dir = join(MERGE_FIXTURES, name);
  const read = (f: string): Uint8Array => new Uint8Array(readFileSync(join(dir, f)));
  const options: MergeCaseOptions = existsSync(join(dir, 'options.json'))
    ? (JSON.parse(readFileSync(join(dir, 'options.json'), 'utf8')) as MergeCaseOptions)
    : {};
  return { dir, read, options };
}
