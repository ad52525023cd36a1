// Package discovery for the package commands: from the repository root, a subdirectory, inside a
// nested package, with several packages (ambiguous), none, and with --pkg.
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { discoverManifest, packagesUnder, repinCommand } from '../../src/workspace/discover.js';
import { codeAndExitOf, errorOf } from '../patch/helpers.js';

function tree(files: string[]): string {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'gcpatch-discover-')));
  for (const f of files) {
    mkdirSync(join(root, f, '..'), { recursive: true });
    if (f.endsWith('/')) mkdirSync(join(root, f), { recursive: true });
    else writeFileSync(join(root, f), '');
  }
  return root;
}

describe('discoverManifest', () => {
  it("the repository's only package, from the root and from a directory outside it", () => {
    const root = tree(['.git/', 'pkgs/shop/package.toml', 'pkgs/shop/app/cart.gc', 'docs/x.md']);
    const want = join(root, 'pkgs/shop/package.toml');
    expect(discoverManifest(undefined, root)).toBe(want);
    expect(discoverManifest(undefined, join(root, 'docs'))).toBe(want);
  });

  it('the package containing the current directory, from any subdirectory of it', () => {
    const root = tree(['.git/', 'a/package.toml', 'a/src/deep/m.gc', 'b/package.toml']);
    expect(discoverManifest(undefined, join(root, 'a'))).toBe(join(root, 'a/package.toml'));
    expect(discoverManifest(undefined, join(root, 'a/src/deep'))).toBe(join(root, 'a/package.toml'));
    expect(discoverManifest(undefined, join(root, 'b'))).toBe(join(root, 'b/package.toml'));
  });

  it('the innermost package when packages nest', () => {
    const root = tree(['.git/', 'package.toml', 'inner/package.toml', 'inner/x/']);
    expect(discoverManifest(undefined, join(root, 'inner/x'))).toBe(join(root, 'inner/package.toml'));
    expect(discoverManifest(undefined, root)).toBe(join(root, 'package.toml'));
  });

  it('several packages and the current directory in none: pkg/ambiguous listing them', () => {
    const root = tree(['.git/', 'a/package.toml', 'b/package.toml', 'tools/']);
    expect(codeAndExitOf(() => discoverManifest(undefined, root))).toBe('pkg/ambiguous/10');
    const error = errorOf(() => discoverManifest(undefined, join(root, 'tools')));
    expect(error.code).toBe('pkg/ambiguous');
    expect(error.message).toContain('../a, ../b; pass --pkg');
  });

  it('pkg/ambiguous names ten packages at most; its details hold them all', () => {
    const dirs = Array.from({ length: 45 }, (_, i) => `p${String(i).padStart(2, '0')}/package.toml`);
    const root = tree(['.git/', ...dirs]);
    const error = errorOf(() => discoverManifest(undefined, root));
    expect(error.message).toBe(
      'the current directory is in no package and the repository has 45: p00, p01, p02, p03, p04, p05, p06, p07, p08 and 36 more; pass --pkg with one of them',
    );
    expect((error.details as { candidates: string[] }).candidates).toHaveLength(45);
  });

  it('no package: pkg/not-found naming the fix; .git, node_modules and .genesis are not searched', () => {
    const root = tree(['.git/package.toml', 'node_modules/x/package.toml', '.genesis/package.toml', 'src/']);
    expect(codeAndExitOf(() => discoverManifest(undefined, join(root, 'src')))).toBe('pkg/not-found/10');
    expect(packagesUnder(root)).toEqual([]);
  });

  it('--pkg wins: a directory or a package.toml, relative to the current directory', () => {
    const root = tree(['.git/', 'a/package.toml', 'b/package.toml']);
    expect(discoverManifest('../b', join(root, 'a'))).toBe(join(root, 'b/package.toml'));
    expect(discoverManifest('b', root)).toBe(join(root, 'b/package.toml'));
    expect(discoverManifest('../b/package.toml', join(root, 'a'))).toBe(join(root, 'b/package.toml'));
    expect(codeAndExitOf(() => discoverManifest('nope', root))).toBe('io/enoent/70');
  });

  it('repinCommand names the package relative to the current directory', () => {
    expect(repinCommand('/r/pkgs/shop', '/r/pkgs/shop')).toBe('gcpatch pack');
    expect(repinCommand('/r/pkgs/shop', '/r')).toBe('gcpatch pack --pkg pkgs/shop');
    expect(repinCommand('/r/my pkg', '/r')).toBe("gcpatch pack --pkg 'my pkg'");
  });
});
