// User docs cite what a reader can open (a file, a section, a command), never the tracker's issue
// numbers: a reader of the installed package has no access to them.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const docs = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const ISSUE = /\b(?:issue|issues|PR|pull request)\s*#?\d+\b|(?:before|after|since|for|in|see)\s+#\d+\b/gi;

describe('docs cite no issue numbers', () => {
  it('the pattern catches the forms it must (control)', () => {
    expect('written before #16, see issue #13 and issue 7'.match(ISSUE)).toEqual(['before #16', 'issue #13', 'issue 7']);
    expect('a repeated key gets `#2`, `#3`'.match(ISSUE)).toBeNull();
  });

  it.each(docs)('%s', (file) => {
    const hits = readFileSync(join(root, file), 'utf8')
      .split('\n')
      .flatMap((line, i) => (line.match(ISSUE) ?? []).map((m) => `${file}:${i + 1}: ${m}`));
    expect(hits).toEqual([]);
  });
});
