import { describe, expect, it } from 'vitest';
import { gitMergeBytes, gitMergeFile, hasConflictMarkers, isBinary } from '../../src/textmerge/line-based.js';
import { DEFAULT_TIMEOUT_MS, lineFallback, mergeFileBytes } from '../../src/textmerge/driver.js';
import { dec, enc } from './bytes.js';

const markers = { markerSize: 7, style: 'merge' as const, oursLabel: 'ours', baseLabel: 'base', theirsLabel: 'theirs' };
const noLine = (): { ok: boolean; text: Uint8Array; conflicts: number; message: string } => {
  throw new Error('the line merge must not run');
};

describe('textmerge/line-based.ts: the git merge-file fallback and input checks', () => {
  it('detects conflict markers only as a <<<<<<< … >>>>>>> pair at line starts', () => {
    expect(hasConflictMarkers(enc('<<<<<<< HEAD\na\n=======\nb\n>>>>>>> x\n'))).toBe(true);
    expect(hasConflictMarkers(enc('<<<<<<<<<\r\na\n>>>>>>>>>\r\n'))).toBe(true);
    expect(hasConflictMarkers(enc('(def <<<<<<< 1)\n; >>>>>>> x\n'))).toBe(false);
    expect(hasConflictMarkers(enc('<<<<<<<x\n>>>>>>> y\n'))).toBe(false);
    expect(hasConflictMarkers(enc('>>>>>>> y\n<<<<<<< x\n'))).toBe(false);
  });

  it('detects NUL bytes', () => {
    expect(isBinary(enc('a\0b'))).toBe(true);
    expect(isBinary(enc('ab'))).toBe(false);
  });

  it('runs git merge-file with labels, marker size and style', () => {
    const r = gitMergeBytes(enc('a\nb\n'), enc('a\nB\n'), enc('a\nc\n'), { ...markers, markerSize: 8, style: 'diff3' });
    expect(r).toMatchObject({ ok: true, conflicts: 1 });
    expect(dec(r.text)).toBe('a\n<<<<<<<< ours\nB\n|||||||| base\nb\n========\nc\n>>>>>>>> theirs\n');
  });

  it('reports git failures instead of throwing', () => {
    expect(gitMergeFile({ ours: '/nonexistent/a', base: '/nonexistent/o', theirs: '/nonexistent/b' }, markers).ok).toBe(false);
    expect(gitMergeFile({ ours: 'a', base: 'o', theirs: 'b' }, markers, { git: '/nonexistent/git' }).ok).toBe(false);
  });
});

describe('textmerge/driver.ts: the cascade', () => {
  it('takes trivial merges byte for byte without parsing', () => {
    const x = enc('not ( CoreForm');
    const y = enc('\0binary');
    expect(mergeFileBytes(x, x, y, { mode: 'gc', markers }, noLine)).toMatchObject({ exitCode: 0, method: 'trivial', result: y });
    expect(mergeFileBytes(x, y, x, { mode: 'gc', markers }, noLine)).toMatchObject({ exitCode: 0, method: 'trivial', result: undefined });
    expect(mergeFileBytes(x, y, y, { mode: 'gc', markers }, noLine)).toMatchObject({ exitCode: 0, method: 'trivial' });
  });

  it('forces a conflict when the structural merge saw one it cannot mark, even if the line merge is clean', () => {
    const base = enc('(def a 1)\n\n(def b 1)\n\n(def c 1)\n\n(def d 1)\n');
    const ours = enc('(def c 1)\n\n(def a 1)\n\n(def b 1)\n\n(def d 1)\n');
    const theirs = enc('(def a 1)\n\n(def b 1)\n\n(def d 1)\n\n(def c 1)\n');
    const clean = (): { ok: boolean; text: Uint8Array; conflicts: number; message: string } => ({ ok: true, text: ours, conflicts: 0, message: '' });
    const r = mergeFileBytes(base, ours, theirs, { mode: 'gc', markers }, clean);
    expect(r).toMatchObject({ exitCode: 1, method: 'line' });
    expect(r.messages.join('\n')).toMatch(/may hide that conflict/);
  });

  it('keeps ours with a clear message when the line merge fails', () => {
    const r = lineFallback('m.gc', 'test', () => ({ ok: false, text: new Uint8Array(0), conflicts: 0, message: 'boom' }));
    expect(r).toMatchObject({ exitCode: 1, method: 'kept-ours', result: undefined });
    expect(r.messages.join('\n')).toMatch(/theirs is NOT included/);
    expect(
      lineFallback('m.gc', 'test', () => {
        throw new Error('spawn failed');
      }).method,
    ).toBe('kept-ours');
  });

  it('has a 5 s default budget', () => {
    expect(DEFAULT_TIMEOUT_MS).toBe(5000);
  });
});
