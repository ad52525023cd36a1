/**
 * Checkout attributes by effect (docs/security.md, change class "checkout attributes"): the
 * attributes git applies when it checks a path out, computed by git itself for every path of every
 * package at the merge base and at the head — `git read-tree` of the commit into a temporary index
 * (`GIT_INDEX_FILE`), then `git check-attr --cached` over the paths — so every spelling counts the
 * same: `-text`, `!text` (unspecified: `core.autocrlf` applies again), a macro such as `binary`, a
 * nested `.gitattributes` overriding a root one. A path whose checkout attributes differ between the
 * two commits is checked out as other bytes than the blob verify-pr verified (or than it was before):
 * an error. Only run when some `.gitattributes` changed (otherwise every path's attributes are the
 * same at both commits).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AuditCode, type PackageFindings } from '../report/findings.js';

/**
 * The attributes that change what a checkout writes (`gitattributes(5)` "Checking-out and
 * checking-in": `text`, `eol`, `crlf` (its older spelling), `ident`, `filter`,
 * `working-tree-encoding`). `diff`, `merge` and the export attributes change no checkout.
 */
export const CHECKOUT_ATTRIBUTE_NAMES = ['text', 'eol', 'crlf', 'ident', 'filter', 'working-tree-encoding'] as const;

/** One path's checkout attributes: attribute → `set`, `unset`, `unspecified` or a value. */
export type PathAttributes = Record<string, string>;

/** git's answer, or why it gave none. */
type Ran = { ok: true; stdout: Buffer } | { ok: false; why: string };

function run(dir: string, args: readonly string[], env: NodeJS.ProcessEnv, input?: Buffer): Ran {
  const r = spawnSync('git', args, { cwd: dir, env, input, maxBuffer: 1 << 30, timeout: 120_000 });
  if (r.error !== undefined || r.status !== 0)
    return { ok: false, why: `git ${args[0]}: ${r.error !== undefined ? r.error.message : `exit ${r.status}: ${r.stderr.toString('utf8').trim()}`}` };
  return { ok: true, stdout: r.stdout };
}

/** A commit read into a temporary index: its paths, and the attributes git computes for any paths. */
class CommitIndex {
  private readonly tmp = mkdtempSync(join(tmpdir(), 'gcpatch-attr-'));
  private readonly env: NodeJS.ProcessEnv;

  constructor(private readonly dir: string) {
    // the commit's own .gitattributes only: no global, system or core.attributesFile
    this.env = { ...process.env, GIT_INDEX_FILE: join(this.tmp, 'index'), GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', GIT_ATTR_NOSYSTEM: '1' };
  }

  /** Reads `commit` into the index; returns its paths, or why git could not. */
  read(commit: string): string[] | { why: string } {
    const r = run(this.dir, ['read-tree', commit], this.env);
    if (!r.ok) return { why: r.why };
    const l = run(this.dir, ['ls-files', '-z'], this.env);
    if (!l.ok) return { why: l.why };
    return l.stdout
      .toString('utf8')
      .split('\0')
      .filter((p) => p !== '');
  }

  /** The checkout attributes of `paths` as the index's `.gitattributes` files give them. */
  attributes(paths: readonly string[]): Map<string, PathAttributes> | { why: string } {
    const out = new Map<string, PathAttributes>();
    if (paths.length === 0) return out;
    const input = Buffer.from(paths.map((p) => `${p}\0`).join(''), 'utf8');
    const r = run(this.dir, ['check-attr', '--cached', '-z', '--stdin', ...CHECKOUT_ATTRIBUTE_NAMES], this.env, input);
    if (!r.ok) return { why: r.why };
    const fields = r.stdout.toString('utf8').split('\0');
    for (let i = 0; i + 2 < fields.length; i += 3) {
      const [path, attr, value] = [fields[i]!, fields[i + 1]!, fields[i + 2]!];
      let a = out.get(path);
      if (a === undefined) out.set(path, (a = {}));
      a[attr] = value;
    }
    return out;
  }

  dispose(): void {
    rmSync(this.tmp, { recursive: true, force: true });
  }
}

/** One path whose checkout attributes differ between the two commits. */
export interface AttributeChange {
  /** The package directory (`''`: the repository root). */
  pkg: string;
  path: string;
  /** e.g. `text: unset → unspecified`. */
  changes: string[];
}

/** The package directories of a tree's paths: each `package.toml`'s folder, not under `.genesis/`. */
function packageDirs(paths: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (const p of paths) {
    if (p !== 'package.toml' && !p.endsWith('/package.toml')) continue;
    if (p.startsWith('.genesis/') || p.includes('/.genesis/')) continue;
    out.add(p === 'package.toml' ? '' : p.slice(0, -'/package.toml'.length));
  }
  return out;
}

/**
 * The paths of every package (at either commit) whose checkout attributes differ between `base` and
 * `head`, as git computes them (see the module comment).
 * @param dir a directory of the repository's work tree.
 * @returns the changes (in path order, each with the innermost package holding it), or why git
 *   could not compute them (verify-pr then fails closed).
 */
export function packageAttributeChanges(dir: string, base: string, head: string): AttributeChange[] | { why: string } {
  const before = new CommitIndex(dir);
  const after = new CommitIndex(dir);
  try {
    const pathsBefore = before.read(base);
    if (!Array.isArray(pathsBefore)) return pathsBefore;
    const pathsAfter = after.read(head);
    if (!Array.isArray(pathsAfter)) return pathsAfter;
    const dirs = [...new Set([...packageDirs(pathsBefore), ...packageDirs(pathsAfter)])].sort((a, b) => b.length - a.length);
    const owner = (p: string): string | undefined => dirs.find((d) => d === '' || p.startsWith(`${d}/`));
    const paths = [...new Set([...pathsBefore, ...pathsAfter])].filter((p) => owner(p) !== undefined).sort();
    const a = before.attributes(paths);
    if (!(a instanceof Map)) return a;
    const b = after.attributes(paths);
    if (!(b instanceof Map)) return b;
    const out: AttributeChange[] = [];
    for (const path of paths) {
      const x = a.get(path) ?? {};
      const y = b.get(path) ?? {};
      const changes = CHECKOUT_ATTRIBUTE_NAMES.filter((n) => (x[n] ?? 'unspecified') !== (y[n] ?? 'unspecified')).map(
        (n) => `${n}: ${x[n] ?? 'unspecified'} → ${y[n] ?? 'unspecified'}`,
      );
      if (changes.length > 0) out.push({ pkg: owner(path)!, path, changes });
    }
    return out;
  } finally {
    before.dispose();
    after.dispose();
  }
}

/**
 * Records, in `out`, one `audit/checkout-attributes` error for each package some of whose paths'
 * checkout attributes differ between `base` and `head` (naming up to five paths), or one error when
 * git cannot compute them (fail closed). Does nothing unless a changed path is a `.gitattributes`.
 * @returns the number of findings recorded.
 */
export function recordAttributeChanges(dir: string, base: string, head: string, changedPaths: readonly string[], out: PackageFindings): number {
  const name = (p: string): string => p.slice(p.lastIndexOf('/') + 1);
  let recorded = 0;
  // a checkout on a case-insensitive file system (macOS, Windows) may read `.GitAttributes` as the attributes file
  for (const p of changedPaths) {
    if (name(p) === '.gitattributes' || name(p).toLowerCase() !== '.gitattributes') continue;
    out.fail('path', p, 'checkout attributes', {
      code: AuditCode.checkoutAttributes,
      message: `${p} is named like .gitattributes in another letter case: a checkout on a case-insensitive file system may read it as the attributes file, which verify-pr cannot judge; rename or remove it`,
      file: p,
      title: 'checkout attributes',
    });
    recorded++;
  }
  if (!changedPaths.some((p) => name(p) === '.gitattributes')) return recorded;
  const changes = packageAttributeChanges(dir, base, head);
  if (!Array.isArray(changes)) {
    out.fail('path', '.gitattributes', 'checkout attributes', {
      code: AuditCode.checkoutAttributes,
      message: `a .gitattributes changed and the checkout attributes in effect could not be computed (${changes.why}); run verify-pr where the git executable is on PATH`,
      title: 'checkout attributes',
    });
    return recorded + 1;
  }
  const byPackage = new Map<string, AttributeChange[]>();
  for (const c of changes) {
    let list = byPackage.get(c.pkg);
    if (list === undefined) byPackage.set(c.pkg, (list = []));
    list.push(c);
  }
  for (const [pkg, list] of byPackage) {
    const shown = list
      .slice(0, 5)
      .map((c) => `${c.path} (${c.changes.join(', ')})`)
      .join('; ');
    out.fail('path', list[0]!.path, 'checkout attributes', {
      code: AuditCode.checkoutAttributes,
      message: `${list.length} path${list.length === 1 ? '' : 's'} of the package at ${pkg || '.'} ${list.length === 1 ? 'is' : 'are'} checked out under other attributes at the head than at the merge base: ${shown}${list.length > 5 ? ', …' : ''}; a checkout then holds other bytes than the blobs verify-pr verified: revert the .gitattributes change`,
      file: list[0]!.path,
      title: 'checkout attributes',
    });
  }
  return recorded + byPackage.size;
}
