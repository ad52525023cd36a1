import { describe, expect, it } from 'vitest';
import { ALL_PACKAGES, globToRegExp, parseGlobList, pathMatcher } from '../../src/verify-pr/walk/glob.js';

describe('packages globs', () => {
  it.each([
    ['**/package.toml', 'package.toml', true],
    ['**/package.toml', 'pkgs/shop/package.toml', true],
    ['**/package.toml', 'pkgs/shop/package.tomlx', false],
    ['pkgs/*/package.toml', 'pkgs/shop/package.toml', true],
    ['pkgs/*/package.toml', 'pkgs/a/b/package.toml', false],
    ['pkgs/**/package.toml', 'pkgs/package.toml', true],
    ['pkgs/**/package.toml', 'pkgs/a/b/package.toml', true],
    ['pkgs/**', 'pkgs/a/package.toml', true],
    ['pkg?/package.toml', 'pkg1/package.toml', true],
    ['pkg?/package.toml', 'pkg/package.toml', false],
    ['./app/package.toml', 'app/package.toml', true],
    ['a.b/package.toml', 'axb/package.toml', false],
  ])('%s matches %s: %s', (glob, path, expected) => {
    expect(globToRegExp(glob).test(path)).toBe(expected);
  });

  it('splits lists on newlines and commas and defaults to every package', () => {
    expect(parseGlobList('')).toEqual([ALL_PACKAGES]);
    expect(parseGlobList(undefined)).toEqual([ALL_PACKAGES]);
    expect(parseGlobList(' a/package.toml ,\n\n b/**/package.toml\n')).toEqual(['a/package.toml', 'b/**/package.toml']);
    expect(parseGlobList(['x/package.toml'])).toEqual(['x/package.toml']);
  });

  it('takes one syntax from the CLI and the Action: commas inside repeated values, exclusions alone on the default', () => {
    expect(parseGlobList(['a/package.toml,b/package.toml'])).toEqual(['a/package.toml', 'b/package.toml']);
    expect(parseGlobList(['a/package.toml', 'b/package.toml,c/package.toml'])).toEqual(['a/package.toml', 'b/package.toml', 'c/package.toml']);
    expect(parseGlobList('a/package.toml\nb/package.toml')).toEqual(['a/package.toml', 'b/package.toml']);
    expect(parseGlobList(['!vendor/**'])).toEqual([ALL_PACKAGES, '!vendor/**']);
    expect(parseGlobList('!vendor/**,!tools/**')).toEqual([ALL_PACKAGES, '!vendor/**', '!tools/**']);
    const m = pathMatcher(parseGlobList(['!vendor/**']));
    expect(m('pkgs/a/package.toml')).toBe(true);
    expect(m('vendor/x/package.toml')).toBe(false);
  });

  it('excludes with !patterns and accepts directory patterns', () => {
    const m = pathMatcher(['**/package.toml', '!vendor/**']);
    expect(m('pkgs/a/package.toml')).toBe(true);
    expect(m('vendor/x/package.toml')).toBe(false);
    const dirs = pathMatcher(['pkgs/shop', 'tools/']);
    expect(dirs('pkgs/shop/package.toml')).toBe(true);
    expect(dirs('tools/package.toml')).toBe(true);
    expect(dirs('pkgs/other/package.toml')).toBe(false);
  });
});
