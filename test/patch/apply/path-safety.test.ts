/**
 * docs/patches.md "Which paths a patch may name": a patch may not name `.git`, `.gcpatch`, `.genesis` (any case, alias, 8.3
 * short name) nor a non-portable path, in any path field of any op. Each case first reproduces the
 * attack (the path normalizes: the reference accepts it, and the normalize report stays
 * byte-identical), then shows the apply refused at the host boundary with nothing read or written.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { printTerm } from '../../../src/coreform/print.js';
import { readTerm } from '../../../src/coreform/read.js';
import { applyPatch, normalizeVerified } from '../../../src/patch/apply/apply.js';
import { patchPathProblem } from '../../../src/patch/apply/host.js';
import { normalizedReportTerm } from '../../../src/patch/protocol/normalize.js';
import { copyPackage, errorOf, snapshotTree } from '../helpers.js';

const ESC = (s: string) => JSON.stringify(s);

/** One op per path field, with `p` in that field (the other path valid). */
const FIELDS: Array<{ field: string; op: (p: string) => string }> = [
  { field: 'add-module :module-path', op: (p) => `{:op :add-module :module-path ${ESC(p)} :content "(def x 1)\\n"}` },
  { field: 'remove-module :module-path', op: (p) => `{:op :remove-module :module-path ${ESC(p)}}` },
  { field: 'move-module :from-module-path', op: (p) => `{:op :move-module :from-module-path ${ESC(p)} :to-module-path "moved.gc"}` },
  { field: 'move-module :to-module-path', op: (p) => `{:op :move-module :from-module-path "legacy.gc" :to-module-path ${ESC(p)}}` },
  { field: 'split-module :from-module-path', op: (p) => `{:op :split-module :from-module-path ${ESC(p)} :to-module-path "s.gc" :symbols [a]}` },
  {
    field: 'split-module :to-module-path',
    op: (p) => `{:op :split-module :from-module-path "lib/math.gc" :to-module-path ${ESC(p)} :symbols [demo/math::double]}`,
  },
  { field: 'replace-node :module-path', op: (p) => `{:op :replace-node :module-path ${ESC(p)} :path [[:form 0]] :new 1}` },
  { field: 'replace-node-id :module-path', op: (p) => `{:op :replace-node-id :module-path ${ESC(p)} :node-id "${'0'.repeat(64)}" :new 1}` },
  { field: 'rename-symbol :module-path', op: (p) => `{:op :rename-symbol :module-path ${ESC(p)} :from a :to b}` },
  { field: 'rewrite-imports :module-path', op: (p) => `{:op :rewrite-imports :module-path ${ESC(p)} :add [a] :remove []}` },
  { field: 'rewrite-exports :module-path', op: (p) => `{:op :rewrite-exports :module-path ${ESC(p)} :add [a] :remove []}` },
  {
    field: 'migrate-contract-signature :module-path',
    op: (p) => `{:op :migrate-contract-signature :module-path ${ESC(p)} :contract-symbol c :from-param a :to-param b}`,
  },
];

const RESERVED = [
  '.git/HEAD',
  '.git/config',
  '.git/hooks/pre-commit',
  '.GIT/config',
  '.Git/hooks/x',
  'sub/.git/config',
  '.git./config',
  '.git /x',
  'GIT~1/config',
  '.g\u200cit/config',
  '.gcpatch/package.lock',
  '.GCPatch/apply-journal.json',
  '.genesis/last_acceptance',
  '.genesis/store/ab',
  'dep/.genesis/last_acceptance',
  'GENESI~1/x',
  'package.toml',
  'Package.TOML',
];
const NON_PORTABLE = ['con.gc', 'lib/NUL', 'COM1.gc', 'aux.txt', 'a:b.gc', 'lib/x.gc.', 'lib/x ', 'a\u0001b.gc'];

const patchTerm = (op: string) => readTerm(Buffer.from(`{:version 1 :intent "attack" :provenance {:tool "t"} :ops [${op}]}`));

describe('patchPathProblem', () => {
  it.each(RESERVED)('%j is reserved', (p) => expect(patchPathProblem(p)?.code).toBe('patch/reserved-path'));
  it.each(NON_PORTABLE)('%j is not portable', (p) => expect(patchPathProblem(p)?.code).toBe('patch/non-portable-path'));
  it.each(['app.gc', 'lib/math.gc', '.gitignore.gc', 'git/x.gc', 'genesis.gc', 'console.gc', 'COM0.gc', 'lib/.hidden.gc', 'ünïcode.gc', 'sub/package.toml.gc'])(
    '%j is accepted',
    (p) => expect(patchPathProblem(p)).toBeUndefined(),
  );
});

describe('every path field of every op refuses reserved and non-portable paths before any access', () => {
  for (const { field, op } of FIELDS) {
    for (const path of [...RESERVED.slice(0, 6), '.gcpatch/x', '.genesis/last_acceptance', 'package.toml', 'con.gc', 'a:b.gc']) {
      it(`${field} = ${JSON.stringify(path)}`, () => {
        // the attack: the patch normalizes (the reference accepts the path) …
        const term = patchTerm(op(path));
        const normalized = normalizeVerified(term);
        expect(printTerm(normalizedReportTerm(normalized))).toContain(JSON.stringify(path).slice(1, -1).replace('\u0001', ''));
        // … and the host refuses it, touching nothing
        const pkg = copyPackage();
        mkdirSync(join(pkg, '.git', 'hooks'), { recursive: true });
        writeFileSync(join(pkg, '.git', 'HEAD'), 'ref: refs/heads/main\n');
        writeFileSync(join(pkg, '.git', 'config'), '[core]\n');
        const before = snapshotTree(pkg);
        const error = errorOf(() => applyPatch({ pkg, patch: term }));
        expect(['patch/reserved-path', 'patch/non-portable-path']).toContain(error.code);
        expect(error.code).toBe(patchPathProblem(path)!.code);
        expect(error.exitCode).toBe(10);
        expect(error.message).toContain(JSON.stringify(path));
        expect(snapshotTree(pkg)).toEqual(before);
      });
    }
  }
});

describe('the issue attacks', () => {
  for (const target of ['.git/HEAD', '.git/config']) {
    it(`:remove-module ${target} leaves the repository intact (exit 10, patch/reserved-path)`, () => {
      const pkg = copyPackage();
      mkdirSync(join(pkg, '.git'), { recursive: true });
      writeFileSync(join(pkg, target), 'x\n');
      const error = errorOf(() => applyPatch({ pkg, patch: patchTerm(`{:op :remove-module :module-path ${ESC(target)}}`) }));
      expect(error.code).toBe('patch/reserved-path');
      expect(snapshotTree(pkg)[target]).toBe(Buffer.from('x\n').toString('base64'));
    });
  }
  for (const dest of ['.git/hooks/pre-commit', '.gcpatch/apply-journal.json', '.genesis/last_acceptance']) {
    it(`:move-module into ${dest} is refused`, () => {
      const pkg = copyPackage();
      const before = snapshotTree(pkg);
      expect(errorOf(() => applyPatch({ pkg, patch: patchTerm(`{:op :move-module :from-module-path "legacy.gc" :to-module-path ${ESC(dest)}}`) })).code).toBe(
        'patch/reserved-path',
      );
      expect(snapshotTree(pkg)).toEqual(before);
    });
  }
});
