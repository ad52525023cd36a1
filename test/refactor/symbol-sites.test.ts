// The symbol-token lexer of the edit-plan export (docs/reference/coreform.md §1.2 token rules).
import { describe, expect, test } from 'vitest';
import { findSymbolSites } from '../../src/refactor/symbol-sites.js';
import { utf8 } from '../../src/util/bytes.js';

function sites(source: string, name: string): string[] {
  const bytes = utf8(source);
  return findSymbolSites(bytes, name).map((s) => `${s.start}-${s.end}${s.survives ? '' : ' dropped'}`);
}

describe('findSymbolSites', () => {
  test.each([
    ['plain references and the definition name', '(def x 1)\n(f x x)', 'x', ['5-6', '13-14', '15-16']],
    ['strings and bytes literals are skipped', '(f "x" b"x" "a \\" x" x)', 'x', ['21-22']],
    ['comments are skipped', '; x x\n(f x) ; x\n', 'x', ['9-10']],
    ['quoted data counts', "'x (quote x) '(x [x])", 'x', ['1-2', '10-11', '15-16', '18-19']],
    ['prefixes and suffixes do not', '(xx x? ?x :x x)', 'x', ['13-14']],
    ['keywords are their own names', '(f :x x :x)', ':x', ['3-5', '8-10']],
    ['Int 12 then Symbol abc', '12abc -3abc', 'abc', ['2-5', '8-11']],
    ['b not followed by a quote is a symbol', '(b "s" b)', 'b', ['1-2', '7-8']],
    ['map entries overwritten by a later equal key are dropped', '{x 1 y x x 2}', 'x', ['1-2 dropped', '7-8', '9-10']],
    ['equal keys by value, not spelling', '{"a" x "\\x61" 2 x 3}', 'x', ['5-6 dropped', '16-17']],
    ['an overwritten entry drops its nested sites', '{:k (f x) :k 2 :j [x]}', 'x', ['7-8 dropped', '19-20']],
    ['non-ASCII names and neighbours', '(café "café" café)', 'café', ['1-6', '15-20']],
    ['CRLF and tabs', '(f\r\n\tx)', 'x', ['5-6']],
  ])('%s', (_, source, name, expected) => {
    expect(sites(source, name)).toEqual(expected);
  });
});
