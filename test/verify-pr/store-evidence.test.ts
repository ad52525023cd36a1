import { describe, expect, it } from 'vitest';
import { storeAddress } from '../../src/coreform/hash.js';
import { printTerm } from '../../src/coreform/print.js';
import { readTerm } from '../../src/coreform/read.js';
import { checkStoreEntry, evidenceKindOf } from '../../src/verify-pr/evidence/store-evidence.js';
import { utf8 } from '../../src/util/bytes.js';

function entryOf(text: string) {
  const bytes = utf8(text);
  return checkStoreEntry(storeAddress(bytes), `.genesis/store/${storeAddress(bytes)}`, bytes);
}

describe('evidence-store entries', () => {
  it('accepts a canonical term whose bytes hash to its name and dispatches on :kind', () => {
    const text = printTerm(readTerm('{:kind "genesis/acceptance-v0.2" :ok true :package {:name "p" :version "1"} :obligations []}'));
    const e = entryOf(text);
    expect(e).toMatchObject({ hashOk: true, canonical: true, kind: 'acceptance', kindString: 'genesis/acceptance-v0.2', problem: undefined });
  });

  it.each([
    ['{:kind "genesis/refactor-plan-request-v0.1"}', 'refactor-plan-request'],
    ['{:kind "genesis/refactor-plan-v0.1"}', 'refactor-plan'],
    ['{:kind "genesis/patch-apply-v0.3"}', 'apply-report'],
    ['{:kind "genesis/package-v0.2"}', 'package'],
    ['{:kind "genesis/patch-apply-v0.2"}', 'other'],
    ['{:intent "x" :ops [] :provenance {} :version 1}', 'patch'],
    ['{:intent "x" :ops [] :version 1}', 'other'],
    ['[1 2]', 'other'],
  ])('%s is %s', (text, kind) => {
    expect(evidenceKindOf(readTerm(text)).kind).toBe(kind);
  });

  it('flags bytes that do not hash to the name', () => {
    const bytes = utf8(printTerm(readTerm('{:a 1}')));
    const e = checkStoreEntry('0'.repeat(64), 'f', bytes);
    expect(e.hashOk).toBe(false);
    expect(e.term).toBeDefined();
  });

  it('flags a term that is not in canonical print, and bytes that are not a term', () => {
    expect(entryOf('{:b 1   :a 2}')).toMatchObject({ hashOk: true, canonical: false });
    expect(entryOf('{:b 1   :a 2}').problem).toContain('not the canonical print');
    expect(entryOf('(unclosed').problem).toMatch(/^core\/parse\//);
    const bad = new Uint8Array([0xff, 0xfe]);
    expect(checkStoreEntry(storeAddress(bad), 'f', bad)).toMatchObject({ hashOk: true, term: undefined, problem: 'not valid UTF-8' });
  });
});
