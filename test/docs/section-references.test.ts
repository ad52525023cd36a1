// Messages that send the user to a section (`docs/patches.md "Acceptance and the obligation
// runner"`) name a heading that exists in that page, so the reader can find it.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const REFERENCE = /docs\/([a-z-]+\.md) \\?"([^"\\]+)\\?"/g;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

function headings(page: string): string[] {
  return readFileSync(join(root, 'docs', page), 'utf8')
    .split('\n')
    .filter((line) => /^#+ /.test(line))
    .map((line) => line.replace(/^#+ /, '').replace(/`/g, ''));
}

/** `file:line: page "section"` for each reference in a message (comment lines left out) that names no heading. */
function missing(file: string): string[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .flatMap((line, i) => {
      if (/^\s*(\*|\/\/|\/\*)/.test(line)) return [];
      return [...line.matchAll(REFERENCE)]
        .filter(([, page, section]) => !headings(page).some((h) => h.startsWith(section.replace(/`/g, ''))))
        .map(([, page, section]) => `${relative(root, file)}:${i + 1}: ${page} "${section}"`);
    });
}

describe('section references in messages', () => {
  it('the pattern reads a reference as the message holds it (control)', () => {
    const text = '\'(the contract: docs/patches.md "Acceptance and the obligation runner")\'';
    expect([...text.matchAll(REFERENCE)].map((m) => [m[1], m[2]])).toEqual([['patches.md', 'Acceptance and the obligation runner']]);
  });

  it('every reference in src/ names a heading of its page', () => {
    expect(sources(join(root, 'src')).flatMap(missing)).toEqual([]);
  });
});
