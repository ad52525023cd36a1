import { describe, expect, it } from 'vitest';
import { D, decodeClosed, fixedIdentity, literal, nullable, oneOfStr, vecOf } from '../../src/coreform/closed.js';
import { readTerm } from '../../src/coreform/read.js';
import { int, kwMap, str } from '../../src/coreform/term.js';
import { GcError } from '../../src/util/errors.js';

const spec = {
  kind: literal(str('demo/request-v0.1')),
  name: D.str,
  count: D.int,
  tags: vecOf(D.str),
  parent: nullable(D.hex64),
  mode: oneOfStr(['a', 'b'] as const),
};

function failure(source: string): GcError {
  try {
    decodeClosed(readTerm(source), spec, 'request');
  } catch (error) {
    return error as GcError;
  }
  throw new Error('expected a failure');
}

describe('closed-map codec', () => {
  it('decodes an exact map with typed fields', () => {
    const out = decodeClosed(readTerm('{:kind "demo/request-v0.1" :name "n" :count 3 :tags ["x" "y"] :parent nil :mode "b"}'), spec, 'request');
    expect(out).toEqual({ kind: str('demo/request-v0.1'), name: 'n', count: 3n, tags: ['x', 'y'], parent: null, mode: 'b' });
  });

  it('names a missing key', () => {
    const e = failure('{:kind "demo/request-v0.1" :name "n" :tags [] :parent nil :mode "a"}');
    expect(e.code).toBe('core/closed/missing-key');
    expect(e.message).toContain(':count');
  });

  it('names an unknown key', () => {
    const e = failure('{:kind "demo/request-v0.1" :name "n" :count 1 :tags [] :parent nil :mode "a" :extra 1}');
    expect(e.code).toBe('core/closed/unknown-key');
    expect(e.message).toContain(':extra');
  });

  it('rejects a string key that spells a field name', () => {
    expect(failure('{"name" "n"}').code).toBe('core/closed/unknown-key');
  });

  it('names a mistyped key, including inside vectors', () => {
    const e = failure('{:kind "demo/request-v0.1" :name n :count 1 :tags [] :parent nil :mode "a"}');
    expect(e.code).toBe('core/closed/wrong-type');
    expect(e.message).toContain('request :name');
    const f = failure('{:kind "demo/request-v0.1" :name "n" :count 1 :tags ["x" 2] :parent nil :mode "a"}');
    expect(f.message).toContain('request :tags[1]');
  });

  it('rejects a wrong fixed value and a value outside the allowed set', () => {
    expect(failure('{:kind "demo/request-v0.2" :name "n" :count 1 :tags [] :parent nil :mode "a"}').code).toBe('core/closed/wrong-value');
    expect(failure('{:kind "demo/request-v0.1" :name "n" :count 1 :tags [] :parent nil :mode "c"}').code).toBe('core/closed/wrong-value');
  });

  it('rejects a non-lowercase hex64', () => {
    const e = failure(`{:kind "demo/request-v0.1" :name "n" :count 1 :tags [] :parent "${'A'.repeat(64)}" :mode "a"}`);
    expect(e.code).toBe('core/closed/wrong-type');
  });

  it('rejects a non-map', () => {
    expect(failure('[1 2]').code).toBe('core/closed/not-a-map');
  });
});

describe('fixedIdentity', () => {
  const spec = { ...fixedIdentity('k/kind', 'k/profile'), x: D.int };
  it('admits exactly :kind, :profile and :v 1 as given', () => {
    const t = kwMap({ kind: str('k/kind'), profile: str('k/profile'), v: int(1), x: int(5) });
    expect(decodeClosed(t, spec, 'r').x).toBe(5n);
  });
  it.each([
    ['kind', kwMap({ kind: str('other'), profile: str('k/profile'), v: int(1), x: int(5) })],
    ['profile', kwMap({ kind: str('k/kind'), profile: str('other'), v: int(1), x: int(5) })],
    ['v', kwMap({ kind: str('k/kind'), profile: str('k/profile'), v: int(2), x: int(5) })],
  ])('refuses another :%s with core/closed/wrong-value', (_, t) => {
    expect(() => decodeClosed(t, spec, 'r')).toThrow(expect.objectContaining({ code: 'core/closed/wrong-value' }));
  });
});
