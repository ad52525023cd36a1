// The merge triples of fixtures/merge/<case>/{Base,Left,Right,Expected}.gc (Left = ours, Right =
// theirs), merged by the driver's cascade and by plain `git merge-file`; expected bytes exactly.
// An optional options.json sets {markerSize, style, exitCode}; defaults: 7, diff3, exit code 0 when
// Expected has no markers, else 1. Set UPDATE_FIXTURES=1 to write a missing Expected.gc.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { gitMergeBytes, hasConflictMarkers } from '../../src/textmerge/line-based.js';
import { mergeFileBytes } from '../../src/textmerge/driver.js';
import type { MarkerOptions } from '../../src/textmerge/common/diff3.js';
import { checkInvariants } from './invariants.js';
import { MERGE_FIXTURES, mergeFixture, mergeFixtureCases as cases } from './merge-fixtures.js';

const tally = { cases: 0, driverClean: 0, driverCorrect: 0, gitClean: 0, gitCorrect: 0 };
/** Per-case rows for the summary: `name  driver: clean|conflict ok|WRONG  git merge-file: …`. */
const rows = new Map<string, string>();

describe('fixtures/merge triples', () => {
  it('has at least 40 cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(40);
  });

  for (const name of cases) {
    it(name, () => {
      const { dir, read, options } = mergeFixture(name);
      const markers: MarkerOptions = {
        markerSize: options.markerSize ?? 7,
        style: options.style ?? 'diff3',
        oursLabel: 'ours',
        baseLabel: 'base',
        theirsLabel: 'theirs',
      };
      const base = read('Base.gc');
      const ours = read('Left.gc');
      const theirs = read('Right.gc');
      const lineMerge = (): ReturnType<typeof gitMergeBytes> => gitMergeBytes(base, ours, theirs, markers);
      const outcome = mergeFileBytes(base, ours, theirs, { mode: 'gc', markers, path: `${name}.gc` }, lineMerge);
      const result = outcome.result ?? ours;
      const expectedFile = join(dir, 'Expected.gc');
      if (!existsSync(expectedFile) && process.env.UPDATE_FIXTURES === '1') writeFileSync(expectedFile, result);
      const expected = read('Expected.gc');
      const git = lineMerge();

      tally.cases++;
      if (outcome.exitCode === 0) tally.driverClean++;
      if (Buffer.from(result).equals(expected)) tally.driverCorrect++;
      if (git.ok && git.conflicts === 0) tally.gitClean++;
      if (git.ok && Buffer.from(git.text).equals(expected)) tally.gitCorrect++;
      const verdict = (clean: boolean, same: boolean): string =>
        `${clean ? 'clean   ' : 'conflict'} ${same ? 'same as Expected' : clean ? 'DIFFERS (clean)' : 'differs'}`;
      rows.set(
        name,
        `${name.padEnd(48)} driver: ${verdict(outcome.exitCode === 0, Buffer.from(result).equals(expected))}   git merge-file: ${
          git.ok ? verdict(git.conflicts === 0, Buffer.from(git.text).equals(expected)) : 'failed'
        }`,
      );

      expect(outcome.exitCode).toBe(options.exitCode ?? (hasConflictMarkers(expected) ? 1 : 0));
      expect(Buffer.from(result).toString('latin1')).toBe(Buffer.from(expected).toString('latin1'));
      if (options.invariants !== false) checkInvariants(base, ours, theirs, outcome, markers);
    });
  }

  afterAll(() => {
    const line =
      `merge triples: ${tally.cases} cases; gcpatch driver: ${tally.driverClean} clean, ${tally.driverCorrect} correct; ` +
      `git merge-file: ${tally.gitClean} clean, ${tally.gitCorrect} correct`;
    // The summary the issue asks for (also written to fixtures/merge/SUMMARY.txt by UPDATE_FIXTURES=1).
    const perCase = [...rows.keys()].sort().map((k) => rows.get(k)!);
    console.log([line, ...perCase].join('\n'));
    if (process.env.UPDATE_FIXTURES === '1' && tally.cases === cases.length)
      writeFileSync(join(MERGE_FIXTURES, 'SUMMARY.txt'), [line, '', ...perCase].join('\n') + '\n');
  });
});
