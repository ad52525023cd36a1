import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { canonicalizeSource } from '../../src/coreform/canon.js';
import { printTerm } from '../../src/coreform/print.js';
import { readTerm } from '../../src/coreform/read.js';
import { list, sym } from '../../src/coreform/term.js';
import {
  admitWorkspace,
  EMPTY_WORKSPACE,
  loadWorkspace,
  makeWorkspace,
  workspaceFromSources,
  workspaceHash,
  workspaceTerm,
} from '../../src/workspace/workspace.js';
import { utf8 } from '../../src/util/bytes.js';
import { manifest } from '../git/repo-helpers.js';

describe('workspaces', () => {
  const m = (p: string, src = '(def x 1)') => ({ modulePath: p, forms: canonicalizeSource(src) });

  it('orders modules by UTF-8 bytes, whatever the input order', () => {
    const a = makeWorkspace([m('\u{1F600}.gc'), m('\uE000.gc'), m('b.gc'), m('a/b.gc')]);
    const b = makeWorkspace([m('b.gc'), m('\uE000.gc'), m('a/b.gc'), m('\u{1F600}.gc')]);
    expect(a.modules.map((x) => x.modulePath)).toEqual(['a/b.gc', 'b.gc', '\uE000.gc', '\u{1F600}.gc']);
    expect(printTerm(workspaceTerm(a))).toBe(printTerm(workspaceTerm(b)));
    expect(workspaceHash(a)).toBe(workspaceHash(b));
  });

  it('prints as the closed {:forms :module-path} record vector', () => {
    expect(printTerm(workspaceTerm(makeWorkspace([m('a.gc')])))).toBe('[\n  {\n    :forms\n      [\n        (def x 1)]\n    :module-path "a.gc"}]');
    expect(printTerm(workspaceTerm(EMPTY_WORKSPACE))).toBe('[]');
  });

  it('rejects duplicate and non-portable paths and non-canonical forms', () => {
    expect(() => makeWorkspace([m('a.gc'), m('a.gc')])).toThrow(expect.objectContaining({ code: 'workspace/duplicate-path' }));
    for (const bad of ['', '/a.gc', 'a\\b.gc', 'a//b.gc', './a.gc', 'a/../b.gc', 'C:/a.gc', 'e\u0301.gc']) {
      expect(() => makeWorkspace([m(bad)])).toThrow(expect.objectContaining({ code: 'workspace/non-portable-path', exitCode: 10 }));
    }
    const raw = list(sym('f'), sym('a'), sym('b')); // (f a b) canonicalizes to ((f a) b)
    expect(() => makeWorkspace([{ modulePath: 'a.gc', forms: [raw] }])).toThrow(expect.objectContaining({ code: 'workspace/non-canonical-form' }));
    expect(() => admitWorkspace(readTerm('[{:module-path "a.gc"}]'))).toThrow(expect.objectContaining({ code: 'core/closed/missing-key' }));
  });

  it('canonicalizes module sources and names the file of a parse error', () => {
    const w = workspaceFromSources([{ modulePath: 'a.gc', bytes: utf8('; c\n(fn (x y) (f x y))') }]);
    expect(printTerm(w.byPath.get('a.gc')!)).toBe('[\n  (fn (x) (fn (y) ((f x) y)))]');
    expect(() => workspaceFromSources([{ modulePath: 'b.gc', bytes: utf8('(def x'), file: 'abc:b.gc' }])).toThrow(
      expect.objectContaining({ location: expect.objectContaining({ file: 'abc:b.gc' }) }),
    );
  });

  it('loads the manifest modules of a package on disk', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gcpatch-ws-'));
    writeFileSync(join(dir, 'package.toml'), manifest('demo', ['b.gc', 'a.gc']));
    writeFileSync(join(dir, 'a.gc'), '(def a   1)\n');
    writeFileSync(join(dir, 'b.gc'), '(def b 2)\n');
    writeFileSync(join(dir, 'unlisted.gc'), '(def u 2)\n');
    const { workspace, pkg } = loadWorkspace(dir);
    expect(pkg.dir).toBe(dir);
    expect(workspace.modules.map((x) => x.modulePath)).toEqual(['a.gc', 'b.gc']);
    expect(printTerm(workspace.byPath.get('a.gc')!)).toBe('[\n  (def a 1)]');
  });
});
