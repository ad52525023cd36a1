// checkout-attributes.ts: the checkout attributes git computes for every package path, compared at two commits.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { packageAttributeChanges } from '../../src/verify-pr/checks/checkout-attributes.js';
import { commitAll, git, Scratch } from '../e2e/attack-helpers.js';

const scratch = new Scratch();
afterAll(() => scratch.cleanup());

/** A repository with a package at `pkg/` (a manifest and a module) and a root `.gitattributes`; returns it and its first commit. */
function repo(rootAttributes: string): { dir: string; base: string } {
  const dir = join(scratch.dir('gcpatch-attr-test-'), 'repo');
  mkdirSync(join(dir, 'pkg/sub'), { recursive: true });
  git(join(dir, '..'), 'init', '-q', '-b', 'main', 'repo');
  writeFileSync(join(dir, '.gitattributes'), rootAttributes);
  writeFileSync(join(dir, 'pkg/package.toml'), 'name = "p"\n');
  writeFileSync(join(dir, 'pkg/sub/m.gc'), '(def p/m::x 1)\n');
  writeFileSync(join(dir, 'outside.gc'), '(def o::x 1)\n');
  return { dir, base: commitAll(dir, 'base') };
}

describe('packageAttributeChanges', () => {
  it('sees a nested `!text` under a root `-text` (unspecified: core.autocrlf applies again), only for package paths', () => {
    const { dir, base } = repo('*.gc -text\n');
    writeFileSync(join(dir, '.gitattributes'), '*.gc -text\n');
    writeFileSync(join(dir, 'pkg/sub/.gitattributes'), '*.gc !text\n');
    const head = commitAll(dir, 'unspecify text');
    expect(packageAttributeChanges(dir, base, head)).toEqual([{ pkg: 'pkg', path: 'pkg/sub/m.gc', changes: ['text: unset → unspecified'] }]);
  });

  it('sees a macro by its effect, and nothing for a restatement or a diff driver', () => {
    const { dir, base } = repo('*.gc -text\n');
    writeFileSync(join(dir, '.gitattributes'), '[attr]crlfish text eol=crlf\n*.gc -text\npkg/**/*.gc crlfish\n');
    const head = commitAll(dir, 'a macro');
    expect(packageAttributeChanges(dir, base, head)).toEqual([{ pkg: 'pkg', path: 'pkg/sub/m.gc', changes: ['text: unset → set', 'eol: unspecified → crlf'] }]);
    writeFileSync(join(dir, '.gitattributes'), '*.gc -text\n');
    writeFileSync(join(dir, 'pkg/.gitattributes'), '*.gc -text diff=gc merge=gcpatch\n');
    const same = commitAll(dir, 'same effect');
    expect(packageAttributeChanges(dir, base, same)).toEqual([]);
  });
});
