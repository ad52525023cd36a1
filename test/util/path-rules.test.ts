// The one set of path rules (src/util/path-rules.ts) against the verdicts and messages of the three
// functions as they were before it (test/util/path-rules.table.json, written once from them), and
// the properties that tie the three profiles together.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pathProblem } from '../../src/editplan/path.js';
import { patchPathProblem } from '../../src/patch/apply/host.js';
import { portablePathProblem } from '../../src/workspace/path.js';

interface Row {
  path: string;
  module: string | null;
  plan: string | null;
  plan16: string | null;
  patch: [string, string] | null;
}

const table = JSON.parse(readFileSync(join(import.meta.dirname, 'path-rules.table.json'), 'utf8')) as { rows: Row[] };

describe('the profiles give every path of the table the verdict and message of the rules as they were', () => {
  it('holds a few hundred paths, most rules refusing some and accepting others', () => {
    expect(table.rows.length).toBeGreaterThan(500);
    for (const column of ['module', 'plan', 'plan16', 'patch'] as const) {
      const refused = table.rows.filter((row) => row[column] !== null).length;
      expect(refused, column).toBeGreaterThan(100);
      expect(table.rows.length - refused, column).toBeGreaterThan(100);
    }
  });

  it('scores every row on all four columns', () => {
    const wrong: string[] = [];
    for (const row of table.rows) {
      const patch = patchPathProblem(row.path);
      const got = {
        module: portablePathProblem(row.path) ?? null,
        plan: pathProblem(row.path, 4096) ?? null,
        plan16: pathProblem(row.path, 16) ?? null,
        patch: patch === undefined ? null : [patch.code, patch.problem],
      };
      for (const column of ['module', 'plan', 'plan16', 'patch'] as const) {
        if (JSON.stringify(got[column]) !== JSON.stringify(row[column])) {
          wrong.push(`${JSON.stringify(row.path)} ${column}: ${JSON.stringify(got[column])} ≠ ${JSON.stringify(row[column])}`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });
});

describe('properties of the three profiles on random paths', () => {
  const atoms = [
    'a',
    'B',
    '.',
    '..',
    ' ',
    '/',
    '\\',
    ':',
    '~1',
    'con',
    'COM1',
    '.git',
    'GIT',
    'package.toml',
    '\u0000',
    '\u0085',
    '\ud800',
    '\udc00',
    '\u00e9',
    'e\u0301',
    '\u200c',
    '\u212a',
    '\ud83d\ude00',
  ];
  const paths = fc.array(fc.constantFrom(...atoms), { maxLength: 8 }).map((xs) => xs.join(''));

  it('a patch path is accepted exactly when it is a portable module path and a plan path that names nothing reserved', () => {
    fc.assert(
      fc.property(paths, (path) => {
        const patch = patchPathProblem(path);
        const portable = portablePathProblem(path);
        const refused = portable !== undefined || pathProblem(path, 4096) !== undefined;
        expect(refused && patch === undefined, 'refused by a profile, yet a valid patch path').toBe(false);
        if (patch === undefined) return;
        // Not portable: refused for exactly that problem.
        const notPortable = { code: 'patch/non-portable-path', problem: portable };
        expect(portable === undefined ? notPortable : patch).toEqual(notPortable);
        // Portable, yet refused as non-portable: for what the plan-path rules say of it.
        const asPlanPath = portable === undefined && patch.code === 'patch/non-portable-path';
        expect(asPlanPath ? `path ${patch.problem}` : 'portable').toBe(asPlanPath ? pathProblem(path, 4096) : 'portable');
      }),
      { seed: 2025, numRuns: 2000 },
    );
  });

  it('a shorter byte bound refuses at least what a longer one refuses', () => {
    fc.assert(
      fc.property(paths, fc.integer({ min: 0, max: 40 }), (path, bound) => {
        expect(pathProblem(path, bound + 1) !== undefined && pathProblem(path, bound) === undefined).toBe(false);
      }),
      { seed: 2026, numRuns: 2000 },
    );
  });
});
