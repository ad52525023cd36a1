// Store address prefixes (unique, ambiguous, too short, not found, not hex) and entry summaries.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readTerm } from '../../src/coreform/read.js';
import { kwMap, str } from '../../src/coreform/term.js';
import { isGcError } from '../../src/util/errors.js';
import { describeEntry, resolveStoreAddress, summarizeTerm } from '../../src/store/prefix.js';
import { EvidenceStore } from '../../src/store/store.js';

function fresh(): EvidenceStore {
  return new EvidenceStore(join(mkdtempSync(join(tmpdir(), 'gcpatch-prefix-')), '.genesis', 'store'));
}
function failure(fn: () => unknown): { code: string; exit: number; message: string; details: unknown } {
  try {
    fn();
  } catch (e) {
    if (isGcError(e)) return { code: e.code, exit: e.exitCode, message: e.message, details: e.details };
    throw e;
  }
  throw new Error('expected an error');
}

describe('resolveStoreAddress', () => {
  const store = fresh();
  const a = store.putTerm(kwMap({ kind: str('genesis/package-v0.2'), name: str('shop'), version: str('1.0.0') }));
  const b = store.putTerm(kwMap({ kind: str('genesis/acceptance-v0.2'), ok: { kind: 'bool', value: true } }));

  it('resolves every unique prefix of 8 to 64 digits, in either case, to the full address', () => {
    for (const hex of [a, b]) {
      for (let n = 8; n <= 64; n++) {
        expect(resolveStoreAddress(store, hex.slice(0, n))).toBe(hex);
        expect(resolveStoreAddress(store, hex.slice(0, n).toUpperCase())).toBe(hex);
      }
    }
  });

  it('rejects fewer than 8 digits with store/prefix-too-short (exit 10), whatever matches', () => {
    for (let n = 1; n < 8; n++) {
      const f = failure(() => resolveStoreAddress(store, a.slice(0, n)));
      expect(f).toMatchObject({ code: 'store/prefix-too-short', exit: 10 });
      expect(f.message).toContain('at least 8 hex digits');
    }
  });

  it('rejects what is not hex, or longer than an address, with store/not-an-address', () => {
    for (const arg of ['report.gc', 'zz1234567', `${a}0`, '']) {
      expect(failure(() => resolveStoreAddress(store, arg))).toMatchObject({ code: 'store/not-an-address', exit: 10 });
    }
  });

  it('reports a prefix nothing starts with as core/store/not-found (exit 50)', () => {
    const missing = (a[0] === '0' ? '1' : '0') + a.slice(1, 12);
    expect(failure(() => resolveStoreAddress(store, missing))).toMatchObject({ code: 'core/store/not-found', exit: 50 });
  });

  it('an ambiguous prefix lists every candidate with its kind (exit 10)', () => {
    const s = fresh();
    const real = s.putTerm(kwMap({ kind: str('genesis/package-v0.2'), name: str('p'), version: str('1') }));
    // A second entry sharing the first 10 digits (a BLAKE3 collision on 40 bits cannot be found in a
    // test, so it is a file under a forged name: `store ls` shows it, `get` reports it corrupt).
    const forged = real.slice(0, 10) + (real[10] === 'a' ? 'b' : 'a') + real.slice(11);
    mkdirSync(s.dir, { recursive: true });
    writeFileSync(join(s.dir, forged), 'x');
    const f = failure(() => resolveStoreAddress(s, real.slice(0, 10)));
    expect(f).toMatchObject({ code: 'store/ambiguous-prefix', exit: 10, details: { candidates: [real, forged].sort() } });
    expect(f.message).toContain(`${real}  genesis/package-v0.2`);
    expect(f.message).toContain(`${forged}  ?`);
    // One more digit is unique again.
    expect(resolveStoreAddress(s, real.slice(0, 11))).toBe(real);
  });
});

describe('store entry summaries', () => {
  const cases: [string, string, string][] = [
    ['{:kind "genesis/package-v0.2" :name "shop" :version "1.2.0" :modules []}', 'genesis/package-v0.2', 'package shop 1.2.0'],
    ['{:kind "genesis/acceptance-v0.2" :ok false :package {:name "shop" :version "1.2.0"}}', 'genesis/acceptance-v0.2', 'package shop 1.2.0 ok false'],
    ['{:kind "genesis/patch-apply-v0.3" :intent "raise tax" :ok true}', 'genesis/patch-apply-v0.3', 'intent "raise tax" ok true'],
    ['{:intent "raise tax" :ops [] :provenance {} :version 1}', 'patch', 'intent "raise tax"'],
    [
      '{:kind "genesis/refactor-plan-request-v0.1" :refactor-kind "move" :from-symbol "a/b::c" :to-symbol "a/d::c" :target-module-path "d.gc"}',
      'genesis/refactor-plan-request-v0.1',
      'refactor move a/b::c -> a/d::c into d.gc',
    ],
    [
      '{:kind "genesis/refactor-plan-v0.1" :patch {:intent "refactor rename a/b::c -> a/b::d"} :safe-to-apply true}',
      'genesis/refactor-plan-v0.1',
      'refactor rename a/b::c -> a/b::d, safe to apply',
    ],
    [
      '{:kind "genesis/refactor-plan-v0.1" :patch {:intent "semantic-refactor/move" :ops [{:op :add-module} {:op :rename-symbol :from "a/b::c" :to "a/d::c"}]} :safe-to-apply true}',
      'genesis/refactor-plan-v0.1',
      'refactor move a/b::c -> a/d::c, safe to apply',
    ],
    [
      '{:kind "genesis/patch-apply-v0.3" :intent "semantic-refactor/rename" :ok true :semantic-edits [{:detail {:from a/b::c :to a/b::d}}]}',
      'genesis/patch-apply-v0.3',
      'intent "semantic-refactor/rename" (a/b::c -> a/b::d) ok true',
    ],
    ['{:kind "genesis/refactor-plan-v0.1" :patch nil :safe-to-apply false}', 'genesis/refactor-plan-v0.1', 'refactor (no patch), conflicted'],
    ['{:kind "other/kind-v1" :ok true}', 'other/kind-v1', 'ok true'],
    ['{:a 1}', '?', 'a map without :kind'],
    ['[1 2]', '?', 'a vec, not a map'],
  ];
  it.each(cases)('%s', (text, kind, summary) => {
    expect(summarizeTerm(readTerm(new TextEncoder().encode(text)))).toEqual({ kind, summary });
  });

  it('an unreadable entry is kind ? with the reason, never an exception', () => {
    const s = fresh();
    const hex = s.put(new TextEncoder().encode('(unclosed'));
    const d = describeEntry(s, hex);
    expect(d.kind).toBe('?');
    expect(d.summary).toMatch(/^core\/parse\//);
  });
});
