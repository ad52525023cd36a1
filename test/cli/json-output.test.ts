// The CLI's one JSON emitter: `printJson` writes what `JSON.stringify(value, null, 2)` writes, plus
// one newline, and `reportError` prints errors through it in one shape.
import { describe, expect, it } from 'vitest';
import { printJson, reportError, type CliContext } from '../../src/cli/context.js';
import { GcError } from '../../src/util/errors.js';

function capture(): { ctx: CliContext; out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return { ctx: { stdout: (s) => out.push(s), stderr: (s) => err.push(s), exitCode: 0 }, out, err };
}

describe('printJson', () => {
  it('prints JSON.stringify(value, null, 2) and a newline, undefined members left out', () => {
    const value = { ok: true, n: 1.5, s: 'ü "q"', list: [1, null, { a: [] }], none: undefined, empty: {} };
    const { ctx, out } = capture();
    printJson(ctx, value);
    expect(out).toEqual([JSON.stringify(value, null, 2) + '\n']);
  });

  it('indent 0 prints one line', () => {
    const { ctx, out } = capture();
    printJson(ctx, { a: [1, 2], b: 'x' }, 0);
    expect(out).toEqual(['{"a":[1,2],"b":"x"}\n']);
  });
});

describe('reportError', () => {
  const error = new GcError('usage/invalid-option', 'bad', { location: { at: '--x' } });

  it('with json: {ok:false,error} on stdout, the one-line form on stderr', () => {
    const { ctx, out, err } = capture();
    reportError(ctx, error, true);
    expect(out).toEqual([JSON.stringify({ ok: false, error: error.toJSON() }, null, 2) + '\n']);
    expect(err).toEqual(['usage/invalid-option: bad (--x)\n']);
  });

  it('a command with its own error shape passes it; without json only stderr', () => {
    const { ctx, out, err } = capture();
    reportError(ctx, error, true, { code: error.code });
    reportError(ctx, error, false);
    expect(out).toEqual([JSON.stringify({ ok: false, error: { code: 'usage/invalid-option' } }, null, 2) + '\n']);
    expect(err).toHaveLength(2);
  });
});
