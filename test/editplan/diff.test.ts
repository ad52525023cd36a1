import { describe, expect, it } from 'vitest';
import { applyEdits, unifiedDiff, type TextEdit } from '../../src/editplan/index.js';
import { edit } from './helpers.js';

function diffOf(source: string, edits: TextEdit[], context = 3): string {
  const result = applyEdits(source, edits);
  return unifiedDiff('f.ts', source, result.text, result.changes, context);
}

const numbered = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}\n`).join('');

describe('unifiedDiff', () => {
  it('one changed line with three lines of context', () => {
    expect(diffOf(numbered(10), [edit(5, 5, 5, 6, '5', 'five')])).toBe(
      '--- a/f.ts\n+++ b/f.ts\n@@ -2,7 +2,7 @@\n line 2\n line 3\n line 4\n-line 5\n+line five\n line 6\n line 7\n line 8\n',
    );
  });
  it('far-apart changes make two hunks; near ones share one', () => {
    const far = diffOf(numbered(20), [edit(2, 5, 2, 6, '2', 'two'), edit(18, 5, 18, 7, '18', 'eighteen')], 1);
    expect(far.match(/^@@/gm)).toHaveLength(2);
    expect(far).toContain('@@ -1,3 +1,3 @@\n line 1\n-line 2\n+line two\n line 3\n');
    expect(far).toContain('@@ -17,3 +17,3 @@\n line 17\n-line 18\n+line eighteen\n line 19\n');
    const near = diffOf(numbered(20), [edit(2, 5, 2, 6, '2', 'two'), edit(4, 5, 4, 6, '4', 'four')], 1);
    expect(near).toBe('--- a/f.ts\n+++ b/f.ts\n@@ -1,5 +1,5 @@\n line 1\n-line 2\n+line two\n line 3\n-line 4\n+line four\n line 5\n');
  });
  it('changes on adjacent lines form one block: all removals, then all additions', () => {
    expect(diffOf('a1\na2\na3\n', [edit(1, 1, 1, 2, '1', 'x'), edit(2, 1, 2, 2, '2', 'y')], 0)).toBe(
      '--- a/f.ts\n+++ b/f.ts\n@@ -1,2 +1,2 @@\n-a1\n-a2\n+ax\n+ay\n',
    );
  });
  it('whole-line deletion shows only the deleted line', () => {
    expect(diffOf('keep\ndelete me\nkeep too\n', [edit(2, 0, 3, 0, 'delete me\n', '')], 0)).toBe('--- a/f.ts\n+++ b/f.ts\n@@ -2,1 +1,0 @@\n-delete me\n');
  });
  it('an inserted line shows only the new line', () => {
    expect(diffOf('a\nb\n', [edit(2, 0, 2, 0, '', 'new\n')], 0)).toBe('--- a/f.ts\n+++ b/f.ts\n@@ -1,0 +2,1 @@\n+new\n');
  });
  it('marks a missing final newline', () => {
    expect(diffOf('x = 1', [edit(1, 4, 1, 5, '1', '2')])).toBe(
      '--- a/f.ts\n+++ b/f.ts\n@@ -1,1 +1,1 @@\n-x = 1\n\\ No newline at end of file\n+x = 2\n\\ No newline at end of file\n',
    );
  });
  it('appending at the end of a file without final newline', () => {
    expect(diffOf('a', [edit(1, 1, 1, 1, '', '\nb\n')])).toBe('--- a/f.ts\n+++ b/f.ts\n@@ -1,1 +1,2 @@\n-a\n\\ No newline at end of file\n+a\n+b\n');
  });
  it('CRLF lines keep their \\r; two edits on one line form one block', () => {
    expect(diffOf('getUser(getUser)\r\nrest\r\n', [edit(1, 0, 1, 7, 'getUser', 'g'), edit(1, 8, 1, 15, 'getUser', 'g')], 0)).toBe(
      '--- a/f.ts\n+++ b/f.ts\n@@ -1,1 +1,1 @@\n-getUser(getUser)\r\n+g(g)\r\n',
    );
  });
  it('equal texts give an empty diff', () => {
    expect(diffOf('ab', [edit(1, 0, 1, 1, 'a', ''), edit(1, 1, 1, 1, '', 'a')])).toBe('');
  });
});
