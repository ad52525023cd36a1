import { describe, expect, it } from 'vitest';
import { MANIFEST_CONFLICT, blankPins, mergeManifestTables, mergeManifestText, parseManifestTable } from '../../src/textmerge/manifest.js';
import { gitMergeBytes } from '../../src/textmerge/line-based.js';
import { renderManifest as writeManifest } from '../../src/workspace/manifest-write.js';
import { mergeFileBytes } from '../../src/textmerge/driver.js';
import { GcError } from '../../src/util/errors.js';
import { dec, enc } from './bytes.js';

const H = (c: string): string => c.repeat(64);
const markers = { markerSize: 7, style: 'merge' as const, oursLabel: 'ours', baseLabel: 'base', theirsLabel: 'theirs' };

/** A manifest in the reference style of `genesis pack`. */
function manifest(pins: [string, string][], extra = ''): string {
  return (
    'dependencies = []\nname = "demo"\nobligations = ["core/obligation::unit-tests"]\nschema = 1\n' +
    extra +
    'version = "0.1.0"\n' +
    pins.map(([p, h]) => `\n[[modules]]\nhash = "${h}"\npath = "${p}"\n`).join('')
  );
}

describe('textmerge/manifest.ts: package.toml merge', () => {
  it('writes the reference style exactly', () => {
    const t = parseManifestTable(
      enc(
        manifest([
          ['a.gc', H('a')],
          ['b.gc', H('b')],
        ]),
      ),
    );
    expect(writeManifest(t)).toBe(
      manifest([
        ['a.gc', H('a')],
        ['b.gc', H('b')],
      ]),
    );
    expect(writeManifest({ name: 'x', limits: { step_limit: 10n }, tags: ['a', 'b'], f: 1.5 })).toBe(
      'f = 1.5\nname = "x"\ntags = [\n    "a",\n    "b",\n]\n\n[limits]\nstep_limit = 10\n',
    );
  });

  it('merges re-pins of different modules keeping the layout', () => {
    const base = manifest([
      ['a.gc', H('1')],
      ['b.gc', H('2')],
    ]);
    const r = mergeManifestText(
      enc(base),
      enc(
        manifest([
          ['a.gc', H('3')],
          ['b.gc', H('2')],
        ]),
      ),
      enc(
        manifest([
          ['a.gc', H('1')],
          ['b.gc', H('4')],
        ]),
      ),
    );
    expect(r.layout).toBe('line');
    expect(dec(r.text)).toBe(
      manifest([
        ['a.gc', H('3')],
        ['b.gc', H('4')],
      ]),
    );
    expect(r.emptiedPins).toEqual([]);
  });

  it('empties a pin both sides changed differently and says to run gcpatch pack', () => {
    const base = manifest([
      ['a.gc', H('1')],
      ['b.gc', H('2')],
    ]);
    const r = mergeManifestText(
      enc(base),
      enc(
        manifest([
          ['a.gc', H('3')],
          ['b.gc', H('2')],
        ]),
      ),
      enc(
        manifest([
          ['a.gc', H('5')],
          ['b.gc', H('4')],
        ]),
      ),
    );
    expect(dec(r.text)).toBe(
      manifest([
        ['a.gc', ''],
        ['b.gc', H('4')],
      ]),
    );
    expect(r.emptiedPins).toEqual(['a.gc']);
    expect(r.messages[0]).toMatch(/gcpatch pack/);
  });

  it('keeps comments and custom layout through the pin blanking', () => {
    const base = '# demo package\nname = "demo"\nversion = "0.1.0"\nobligations = []\n\n[[modules]]\npath = "a.gc"   # the app\nhash = "' + H('1') + '"\n';
    const ours = base.replace(H('1'), H('2'));
    const theirs = base.replace(H('1'), H('3')).replace('version = "0.1.0"', 'version = "0.2.0"');
    const r = mergeManifestText(enc(base), enc(ours), enc(theirs));
    expect(r.layout).toBe('line');
    expect(dec(r.text)).toBe(base.replace(H('1'), '').replace('version = "0.1.0"', 'version = "0.2.0"'));
  });

  it('merges the modules list by path: additions next to their neighbours, deletions', () => {
    const base = manifest([
      ['a.gc', H('1')],
      ['c.gc', H('3')],
    ]);
    const ours = manifest([
      ['a.gc', H('1')],
      ['b.gc', H('2')],
      ['c.gc', H('3')],
    ]);
    const theirs = manifest([
      ['c.gc', H('3')],
      ['d.gc', H('4')],
    ]);
    const r = mergeManifestTables(parseManifestTable(enc(base)), parseManifestTable(enc(ours)), parseManifestTable(enc(theirs)));
    expect((r.table.modules as { path: string }[]).map((m) => m.path)).toEqual(['b.gc', 'c.gc', 'd.gc']);
  });

  it('writes the reference style when the line merge cannot express the result', () => {
    const base = 'name = "demo"\nversion = "1"\nobligations = []\nmodules = [{ path = "a.gc", hash = "' + H('1') + '" }]\n';
    const r = mergeManifestText(enc(base), enc(base.replace(H('1'), H('2'))), enc(base.replace(H('1'), H('3'))));
    expect(r.layout).toBe('reference');
    expect(dec(r.text)).toBe('name = "demo"\nobligations = []\nversion = "1"\n\n[[modules]]\nhash = ""\npath = "a.gc"\n');
  });

  it('throws merge/manifest/conflict for other conflicts', () => {
    const base = manifest([['a.gc', H('1')]]);
    const bump = (v: string): string => base.replace('version = "0.1.0"', `version = "${v}"`);
    expect(() => mergeManifestText(enc(base), enc(bump('1.0.0')), enc(bump('2.0.0')))).toThrow(GcError);
    expect(() => mergeManifestText(enc(base), enc(manifest([])), enc(manifest([['a.gc', H('2')]])))).toThrow(
      expect.objectContaining({ code: MANIFEST_CONFLICT }),
    );
  });

  it('blanks pins only in [[modules]] tables with that path', () => {
    const text = '[[modules]]\npath = "a.gc"\nhash = "abc"\n\n[[modules]]\nhash = "def"\npath = "b.gc"\n';
    expect(blankPins(text, ['b.gc'])).toBe('[[modules]]\npath = "a.gc"\nhash = "abc"\n\n[[modules]]\nhash = ""\npath = "b.gc"\n');
    expect(blankPins(text, ['c.gc'])).toBeUndefined();
  });

  it('through the driver: pin conflicts are clean (exit 0), other conflicts fall back to git merge-file', () => {
    const base = enc(manifest([['a.gc', H('1')]]));
    const ours = enc(manifest([['a.gc', H('2')]]));
    const theirs = enc(manifest([['a.gc', H('3')]]));
    const pin = mergeFileBytes(base, ours, theirs, { mode: 'manifest', markers }, () => gitMergeBytes(base, ours, theirs, markers));
    expect(pin).toMatchObject({ exitCode: 0, method: 'structural' });
    expect(pin.messages.join('\n')).toMatch(/gcpatch pack/);
    const o2 = enc(dec(base).replace('0.1.0', '1.0.0'));
    const t2 = enc(dec(base).replace('0.1.0', '2.0.0'));
    const other = mergeFileBytes(base, o2, t2, { mode: 'manifest', markers }, () => gitMergeBytes(base, o2, t2, markers));
    expect(other).toMatchObject({ exitCode: 1, method: 'line' });
    expect(dec(other.result!)).toContain('<<<<<<< ours\nversion = "1.0.0"\n=======\nversion = "2.0.0"\n>>>>>>> theirs\n');
    const bad = enc('name = ');
    expect(mergeFileBytes(base, bad, theirs, { mode: 'manifest', markers }, () => gitMergeBytes(base, bad, theirs, markers)).method).toBe('line');
  });
});
