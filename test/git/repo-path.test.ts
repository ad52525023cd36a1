// The one working-directory → repository path conversion (src/git/repo-path.ts): links resolved on
// both sides, a path outside the work tree refused, and `..foo` a name, not a parent.
import { mkdirSync, mkdtempSync, realpathSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repositoryPath, repositoryPathOrUndefined } from '../../src/git/repo-path.js';
import { codeAndExitOf } from '../patch/helpers.js';

function layout(): { outer: string; root: string } {
  const outer = realpathSync(mkdtempSync(join(tmpdir(), 'gcpatch-repo-path-')));
  const root = join(outer, 'repo');
  mkdirSync(join(root, 'pkgs', 'shop'), { recursive: true });
  mkdirSync(join(root, '..foo', 'bar'), { recursive: true });
  mkdirSync(join(outer, 'elsewhere'), { recursive: true });
  return { outer, root };
}

describe('repositoryPath', () => {
  it('maps paths typed in the root or a subdirectory, "" for the root', () => {
    const { root } = layout();
    expect(repositoryPath(root, root)).toBe('');
    expect(repositoryPath(root, root, 'pkgs/shop')).toBe('pkgs/shop');
    expect(repositoryPath(root, join(root, 'pkgs', 'shop'), '../shop/./cart.gc')).toBe('pkgs/shop/cart.gc');
    expect(repositoryPath(root, join(root, 'pkgs'), '..')).toBe('');
  });

  it('takes a folder named ..foo for a name inside the tree', () => {
    const { root } = layout();
    expect(repositoryPath(root, root, '..foo/bar')).toBe('..foo/bar');
    expect(repositoryPath(root, join(root, '..foo'), '.')).toBe('..foo');
  });

  it('refuses a path outside the work tree (git/package-not-found, exit 10)', () => {
    const { outer, root } = layout();
    expect(codeAndExitOf(() => repositoryPath(root, root, '../elsewhere'))).toBe('git/package-not-found/10');
    expect(codeAndExitOf(() => repositoryPath(root, root, '..'))).toBe('git/package-not-found/10');
    expect(repositoryPathOrUndefined(root, outer)).toBeUndefined();
    expect(repositoryPathOrUndefined(root, join(outer, 'elsewhere'), '.')).toBeUndefined();
  });

  it('resolves links: a link into the tree is the tree, a link out of it is outside', () => {
    const { outer, root } = layout();
    symlinkSync(root, join(outer, 'linked-checkout'));
    symlinkSync(join(outer, 'elsewhere'), join(root, 'escape'));
    expect(repositoryPath(join(outer, 'linked-checkout'), join(outer, 'linked-checkout', 'pkgs'), 'shop')).toBe('pkgs/shop');
    expect(repositoryPath(root, join(outer, 'linked-checkout', 'pkgs', 'shop'))).toBe('pkgs/shop');
    expect(codeAndExitOf(() => repositoryPath(root, root, 'escape'))).toBe('git/package-not-found/10');
  });

  it('a path not on disk yet is taken as typed', () => {
    const { root } = layout();
    expect(repositoryPath(root, join(root, 'pkgs'), 'new/module.gc')).toBe('pkgs/new/module.gc');
  });
});
