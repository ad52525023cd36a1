import { describe, expect, it } from 'vitest';
import {
  chooseOutputStyle,
  countLineEndings,
  detectLineEndings,
  hasBom,
  mergeProperty,
  normalizeSide,
  restoreNewlines,
  restorePiece,
} from '../../src/textmerge/newline.js';
import { dec, enc } from './bytes.js';

describe('newline.ts: detect, normalize, restore', () => {
  it('counts LF, CRLF and lone CR separately', () => {
    expect(countLineEndings(enc('a\nb\r\nc\rd\r\n'))).toEqual({ lf: 1, crlf: 2, cr: 1 });
  });

  it('classifies pure, mixed and line-less files', () => {
    expect(detectLineEndings(enc('a\nb\n'))).toEqual({ kind: 'lf', dominant: 'lf' });
    expect(detectLineEndings(enc('a\r\nb\r\n'))).toEqual({ kind: 'crlf', dominant: 'crlf' });
    expect(detectLineEndings(enc('a\rb\r'))).toEqual({ kind: 'cr', dominant: 'cr' });
    expect(detectLineEndings(enc('a\r\nb\r\nc\n'))).toEqual({ kind: 'mixed', dominant: 'crlf' });
    expect(detectLineEndings(enc('(def a 1)'))).toEqual({ kind: 'none', dominant: 'lf' });
  });

  it('strips a BOM and normalizes every line break to LF', () => {
    const s = normalizeSide(enc('\ufeff(a)\r\n(b)\r(c)\n'));
    expect(s.bom).toBe(true);
    expect(hasBom(enc('\ufeffx'))).toBe(true);
    expect(dec(s.text)).toBe('(a)\n(b)\n(c)\n');
    expect(s.kind).toBe('mixed');
    // Mixed files keep a map back to their raw bytes.
    expect(Array.from(s.rawOffset!)).toEqual([0, 1, 2, 3, 5, 6, 7, 8, 9, 10, 11, 12, 13]);
  });

  it('restores CRLF and CR exactly (pure files round-trip byte for byte)', () => {
    for (const raw of ['(a)\r\n\r\n(b)\r\n', '(a)\r(b)\r', '(a)\n(b)', '']) {
      const s = normalizeSide(enc(raw));
      const eol = s.kind === 'none' || s.kind === 'mixed' ? 'lf' : s.kind;
      expect(dec(restoreNewlines(s.text, eol))).toBe(raw);
    }
  });

  it('copies raw bytes of unchanged runs of a mixed side', () => {
    const s = normalizeSide(enc('(a)\r\n(b)\n'));
    const style = { side: 'ours' as const, eol: 'crlf' as const, bom: false, mixed: true };
    const piece = s.text.subarray(0, 8);
    expect(dec(restorePiece(piece, style, { side: s, isStyleSide: true, start: 0, end: 8 }))).toBe('(a)\r\n(b)\n');
    expect(dec(restorePiece(enc('(c)\n'), style, undefined))).toBe('(c)\r\n');
  });

  it('merges file-level properties three-way: ours unless only theirs changed', () => {
    expect(mergeProperty(false, false, true)).toBe(true);
    expect(mergeProperty(false, true, false)).toBe(true);
    expect(mergeProperty(true, false, true)).toBe(false);
  });

  it('follows ours, or theirs when only theirs changed the convention', () => {
    const lf = normalizeSide(enc('a\n'));
    const crlf = normalizeSide(enc('a\r\n'));
    const none = normalizeSide(enc('a'));
    expect(chooseOutputStyle(lf, lf, crlf)).toMatchObject({ side: 'theirs', eol: 'crlf' });
    expect(chooseOutputStyle(lf, crlf, lf)).toMatchObject({ side: 'ours', eol: 'crlf' });
    expect(chooseOutputStyle(lf, crlf, crlf)).toMatchObject({ side: 'ours', eol: 'crlf' });
    expect(chooseOutputStyle(none, crlf, lf)).toMatchObject({ side: 'ours', eol: 'crlf' });
    expect(chooseOutputStyle(crlf, none, crlf)).toMatchObject({ side: 'theirs', eol: 'crlf' });
    expect(chooseOutputStyle(crlf, none, none)).toMatchObject({ side: 'ours', eol: 'crlf' });
    const bom = normalizeSide(enc('\ufeffa\n'));
    expect(chooseOutputStyle(lf, lf, bom).bom).toBe(true);
    expect(chooseOutputStyle(bom, bom, lf).bom).toBe(false);
  });
});
