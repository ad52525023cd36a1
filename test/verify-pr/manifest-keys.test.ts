// The manifest key table (docs/security.md): which unexplained key changes are errors, warnings or notices.
import { describe, expect, it } from 'vitest';
import { judgeKeyChange, mergedListEntries } from '../../src/verify-pr/checks/manifest-keys.js';
import type { TomlValue } from '../../src/workspace/manifest-write.js';

const v = (key: string, a: TomlValue | undefined, b: TomlValue | undefined) => {
  const j = judgeKeyChange(key, a, b);
  return j === undefined ? undefined : [j.severity, j.code];
};

describe('judgeKeyChange', () => {
  it('leaves equal values, the module list and the list keys to other checks', () => {
    expect(v('name', 'a', 'a')).toBeUndefined();
    expect(v('limits', { step_limit: 5n }, { step_limit: 5n })).toBeUndefined();
    expect(v('modules', [], [{ path: 'a.gc' }])).toBeUndefined();
    expect(v('obligations', ['x'], [])).toBeUndefined();
    expect(v('property_tests', ['x'], [])).toBeUndefined();
    // caps_policy is judged by the policy it points to (check-policies.ts)
    expect(v('caps_policy', 'caps.toml', 'open.toml')).toBeUndefined();
    // the reference's defaults: a missing schema is 1, missing dependencies are none
    expect(v('schema', undefined, 1n)).toBeUndefined();
    expect(v('dependencies', [], undefined)).toBeUndefined();
  });

  it.each([
    ['step_limit raised', 'limits', { step_limit: 100n }, { step_limit: 1000n }, 'error'],
    ['step_limit lowered', 'limits', { step_limit: 1000n }, { step_limit: 100n }, 'notice'],
    ['step_limit removed', 'limits', { step_limit: 100n }, {}, 'error'],
    ['limits table removed', 'limits', { max_vec_len: 10n }, undefined, 'error'],
    ['limits table added', 'limits', undefined, { max_vec_len: 10n }, 'notice'],
    ['allow_unlimited on', 'limits', { allow_unlimited: false }, { allow_unlimited: true }, 'error'],
    ['allow_unlimited off', 'limits', { allow_unlimited: true }, { allow_unlimited: false }, 'notice'],
    ['a field [limits] does not have', 'limits', {}, { max_heap: 10n }, 'error'],
    ['a budget raised', 'budgets', { max_steps_per_test: 10n }, { max_steps_per_test: 11n }, 'error'],
    ['a limit turned into a string', 'limits', { step_limit: 10n }, { step_limit: 'none' }, 'error'],
    ['fewer property cases', 'property', { cases_per_test: 100n }, { cases_per_test: 10n }, 'error'],
    ['more property cases', 'property', { cases_per_test: 10n }, { cases_per_test: 100n }, 'notice'],
    ['property cases removed', 'property', { cases_per_test: 10n }, {}, 'error'],
    // red-team round 5: a missing cases_per_test means the reference's 64 cases, not none
    ['property cases added below the default of 64 (fewer cases run)', 'property', undefined, { cases_per_test: 1n }, 'error'],
    ['property cases added to a [property] table below the default', 'property', {}, { cases_per_test: 63n }, 'error'],
    ['property cases added at the default or above', 'property', undefined, { cases_per_test: 64n }, 'notice'],
    ['[gfx] golden tests emptied', 'gfx', { golden_tests: ['a/gfx::golden'] }, { golden_tests: [] }, 'error'],
    ['[gfx] frame-budget tests removed', 'gfx', { frame_budget_tests: ['a/gfx::budget'] }, {}, 'error'],
    ['[gfx] a golden test added', 'gfx', { golden_tests: [] }, { golden_tests: ['a/gfx::golden'] }, 'notice'],
    ['[gfx] a frame budget raised', 'gfx', { max_draw_commands_per_frame: 10n }, { max_draw_commands_per_frame: 99n }, 'error'],
    ['[gfx] a frame budget lowered', 'gfx', { max_frame_time_ms: 16n }, { max_frame_time_ms: 8n }, 'notice'],
    ['[gfx] the API surface hash changed', 'gfx', { api_surface_hash: 'aa' }, { api_surface_hash: 'bb' }, 'error'],
    ['[gfx] the API export list changed', 'gfx', { api_exports: ['a'] }, { api_exports: ['a', 'b'] }, 'error'],
    ['name', 'name', 'ledger', 'ledger2', 'error'],
    ['dependencies', 'dependencies', [], [{ name: 'x', path: '../x', hash: 'a'.repeat(64) }], 'error'],
    ['an unknown key', 'flavour', undefined, 'sweet', 'error'],
    ['schema', 'schema', 1n, 2n, 'error'],
    ['version (a bump weakens nothing)', 'version', '0.1.0', '0.2.0', 'notice'],
    ['description (the reference does not read it)', 'description', 'a', 'b', 'notice'],
  ] as const)('%s', (_name, key, a, b, severity) => {
    expect(v(key, a as TomlValue | undefined, b as TomlValue | undefined)?.[0]).toBe(severity);
  });

  it('names the key and both values', () => {
    expect(judgeKeyChange('name', 'a', 'b')!.detail).toBe('name: "a" → "b"');
    expect(judgeKeyChange('limits', { step_limit: 1n }, { step_limit: 2n })!.detail).toBe('[limits] step_limit: 1 → 2');
  });
});

describe('mergedListEntries (three-way per entry)', () => {
  it('keeps what every parent has and what a parent added; drops what a parent removed', () => {
    expect([...mergedListEntries(['a', 'b'], [['a', 'b'], ['a']])].sort()).toEqual(['a']);
    expect([...mergedListEntries(['a'], [['a', 'c'], ['a']])].sort()).toEqual(['a', 'c']);
    // an old main commit as second parent cannot take away an obligation main added since
    expect([...mergedListEntries([], [['x'], []])]).toEqual(['x']);
    // no merge base: everything any parent has
    expect([...mergedListEntries(undefined, [['x'], ['y']])].sort()).toEqual(['x', 'y']);
  });
});
