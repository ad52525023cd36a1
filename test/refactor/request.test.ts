// The closed request (GenesisCode `docs/spec/SEMANTIC_REFACTOR_PLAN_v0.1.md` "Closed Request"): building, identities and
// admission, which rejects duplicate or malformed module records before planning.
import { describe, expect, test } from 'vitest';
import { hashTerm, termAddress } from '../../src/coreform/hash.js';
import { printTerm } from '../../src/coreform/print.js';
import { readTerm } from '../../src/coreform/read.js';
import { decodeRefactorRequest } from '../../src/refactor/request.js';
import { GcError } from '../../src/util/errors.js';
import { requestOf, THREE_MODULES } from './helpers.js';
import { errorOf } from '../patch/helpers.js';

const HEAD = ':kind "genesis/refactor-plan-request-v0.1" :profile "genesis/patch-authority-v0.1" :v 1';
const FIELDS = ':refactor-kind "rename" :from-symbol "a" :to-symbol "b" :target-module-path ""';

function admit(text: string): string {
  try {
    decodeRefactorRequest(readTerm(text));
    return 'ok';
  } catch (error) {
    if (error instanceof GcError) return `${error.code} ${error.exitCode}`;
    throw error;
  }
}

describe('request', () => {
  test('exact key set, manifest order, identities of the canonical print', () => {
    const r = requestOf({ refactorKind: 'rename', fromSymbol: 'x', toSymbol: 'y' }, THREE_MODULES);
    expect(r.term.entries.map(([k]) => printTerm(k))).toEqual([
      ':from-symbol',
      ':kind',
      ':modules',
      ':profile',
      ':refactor-kind',
      ':target-module-path',
      ':to-symbol',
      ':v',
    ]);
    expect(r.modules.map((m) => m.modulePath)).toEqual(['lib/math.gc', 'lib/text.gc', 'app/main.gc']);
    expect(r.targetModulePath).toBe('');
    expect(r.requestH).toBe(hashTerm(r.term));
    expect(r.address).toBe(termAddress(r.term));
    // Round trip through the canonical print (the stored bytes).
    const again = decodeRefactorRequest(readTerm(printTerm(r.term)));
    expect(again.requestH).toBe(r.requestH);
    expect(again.modules.map((m) => m.modulePath)).toEqual(r.modules.map((m) => m.modulePath));
  });

  test.each([
    ['a well-formed request', `{${HEAD} ${FIELDS} :modules [{:module-path "a.gc" :forms [(def a 1)]}]}`, 'ok'],
    ['symbols and kind are not admission errors', `{${HEAD} :refactor-kind "?" :from-symbol "" :to-symbol "(" :target-module-path "../x" :modules []}`, 'ok'],
    ['duplicate module path', `{${HEAD} ${FIELDS} :modules [{:module-path "a.gc" :forms []} {:module-path "a.gc" :forms []}]}`, 'refactor/request-invalid 10'],
    ['non-portable module path', `{${HEAD} ${FIELDS} :modules [{:module-path "../a.gc" :forms []}]}`, 'refactor/request-invalid 10'],
    ['non-canonical forms', `{${HEAD} ${FIELDS} :modules [{:module-path "a.gc" :forms [(f a b)]}]}`, 'refactor/request-invalid 10'],
    ['record with an extra key', `{${HEAD} ${FIELDS} :modules [{:module-path "a.gc" :forms [] :hash ""}]}`, 'refactor/request-invalid 10'],
    ['record missing :forms', `{${HEAD} ${FIELDS} :modules [{:module-path "a.gc"}]}`, 'refactor/request-invalid 10'],
    ['forms not a vector', `{${HEAD} ${FIELDS} :modules [{:module-path "a.gc" :forms (def a 1)}]}`, 'refactor/request-invalid 10'],
    ['modules not a vector', `{${HEAD} ${FIELDS} :modules {}}`, 'core/closed/wrong-type 10'],
    ['wrong kind', `{:kind "genesis/refactor-plan-v0.1" :profile "genesis/patch-authority-v0.1" :v 1 ${FIELDS} :modules []}`, 'core/closed/wrong-value 10'],
    [
      'wrong version',
      `{:kind "genesis/refactor-plan-request-v0.1" :profile "genesis/patch-authority-v0.1" :v 2 ${FIELDS} :modules []}`,
      'core/closed/wrong-value 10',
    ],
    ['unknown key', `{${HEAD} ${FIELDS} :modules [] :pkg "x"}`, 'core/closed/unknown-key 10'],
    ['missing key', `{${HEAD} :refactor-kind "rename" :from-symbol "a" :to-symbol "b" :modules []}`, 'core/closed/missing-key 10'],
    // As in the reference, non-string symbols, kind and target are admitted and planned to conflicts.
    ['a symbol where the planner wants a string', `{${HEAD} :refactor-kind "rename" :from-symbol a :to-symbol "b" :target-module-path "" :modules []}`, 'ok'],
    ['non-string kind and target', `{${HEAD} :refactor-kind :move :from-symbol "a" :to-symbol "b" :target-module-path nil :modules []}`, 'ok'],
  ])('%s', (_, text, expected) => {
    expect(admit(text)).toBe(expected);
  });

  test('building from sources rejects duplicate paths and reports parse errors with the file', () => {
    expect(() =>
      requestOf({ refactorKind: 'rename', fromSymbol: 'a', toSymbol: 'b' }, [
        ['a.gc', '1'],
        ['a.gc', '2'],
      ]),
    ).toThrow(/twice/);
    const error = errorOf(() => requestOf({ refactorKind: 'rename', fromSymbol: 'a', toSymbol: 'b' }, [['bad.gc', '(def a']]));
    expect(error.code).toBe('core/parse/unexpected');
    expect(error.location.file).toBe('bad.gc');
  });
});
