/**
 * The closed accounting of a pull request (docs/security.md): every path that differs between the
 * merge base and the head, with its git object kind and mode on each side, assigned to every package
 * whose manifest lists it (an unlisted file inside a package directory to the innermost package; the
 * rest to "outside every package"), with its role there and the findings about its kind and mode.
 * What explains a module's content is decided by the package audit; this file only says where each
 * path belongs and what no content check can look past (symlinks, gitlinks, case collisions).
 */
import * as fs from 'node:fs';
import { posix } from 'node:path';
import {
  entryAtCommit,
  objectKindOfMode,
  readFileAtCommit,
  readTreeEntries,
  type ChangedEntry,
  type EntrySide,
  type GitRepository,
  type ObjectKind,
} from '../../git/repository.js';
import { decodeUtf8Strict } from '../../util/bytes.js';
import { parseManifestTable, type TomlTable } from '../../workspace/manifest-write.js';
import { AuditCode, type AuditCodeValue, type PackageFindings, type Severity } from '../report/findings.js';
import { capsPolicyPath, isPolicyName, repoPath } from '../evidence/package-at-commit.js';
import type { PathAccount, PathRole } from '../report/path-account.js';

export type { PathAccount, PathRole } from '../report/path-account.js';

/** What the manifest of one candidate package lists at one commit, as much as membership needs. */
interface ManifestListing {
  modules: Set<string>;
  capsPolicy: string | undefined;
  /** The manifest's `name` (to recognize a package moved to another directory). */
  name: string | undefined;
}

/** A package directory some changed path lies in, with its listings at the base and the head. */
export interface CandidatePackage {
  dir: string;
  manifestPath: string;
  base: ManifestListing | 'absent' | 'unreadable';
  head: ManifestListing | 'absent' | 'unreadable';
}

async function listingAt(repo: GitRepository, commit: string, dir: string): Promise<ManifestListing | 'absent' | 'unreadable'> {
  const manifestPath = repoPath(dir, 'package.toml');
  const entry = await entryAtCommit(repo, commit, manifestPath);
  if (entry === undefined) return 'absent';
  if (entry.type !== 'blob') return 'unreadable';
  let table: TomlTable;
  try {
    const text = decodeUtf8Strict((await readFileAtCommit(repo, commit, manifestPath))!);
    if (text === undefined) return 'unreadable';
    table = parseManifestTable(text, manifestPath);
  } catch {
    return 'unreadable';
  }
  const modules = new Set<string>();
  if (Array.isArray(table.modules)) {
    for (const m of table.modules) {
      const p = typeof m === 'object' && m !== null && !Array.isArray(m) && !(m instanceof Date) ? (m as TomlTable).path : undefined;
      if (typeof p === 'string') modules.add(p.replace(/^\.\//, ''));
    }
  }
  return { modules, capsPolicy: capsPolicyPath(table), name: typeof table.name === 'string' ? table.name : undefined };
}

function parentDir(path: string): string {
  const d = posix.dirname(path);
  return d === '.' ? '' : d;
}

function relative(dir: string, path: string): string {
  return dir === '' ? path : path.slice(dir.length + 1);
}

function inside(dir: string, path: string): boolean {
  return dir === '' || path === dir || path.startsWith(`${dir}/`);
}

/** Every package directory that is an ancestor of (or equal to) a changed path, with a manifest at the base or the head. */
export async function candidatePackages(
  repo: GitRepository,
  base: string,
  head: string,
  changed: readonly ChangedEntry[],
): Promise<Map<string, CandidatePackage>> {
  const seen = new Map<string, Promise<CandidatePackage | undefined>>();
  const probe = (dir: string): Promise<CandidatePackage | undefined> => {
    let p = seen.get(dir);
    if (p === undefined) {
      p = Promise.all([listingAt(repo, base, dir), listingAt(repo, head, dir)]).then(([b, h]) =>
        b === 'absent' && h === 'absent' ? undefined : { dir, manifestPath: repoPath(dir, 'package.toml'), base: b, head: h },
      );
      seen.set(dir, p);
    }
    return p;
  };
  const dirs = new Set<string>();
  for (const c of changed) {
    if (c.from?.kind === 'tree' || c.to?.kind === 'tree' || c.from?.kind === 'gitlink' || c.to?.kind === 'gitlink') dirs.add(c.path);
    for (let d = parentDir(c.path); ; d = parentDir(d)) {
      if (dirs.has(d)) break;
      dirs.add(d);
      if (d === '') break;
    }
  }
  const out = new Map<string, CandidatePackage>();
  for (const d of dirs) {
    // a package.toml under .genesis/ is tool state, never a package: it cannot take the store away
    if (d.split('/').includes('.genesis')) continue;
    const c = await probe(d);
    if (c !== undefined) out.set(d, c);
  }
  return out;
}

function lists(c: CandidatePackage, rel: string): boolean {
  for (const l of [c.base, c.head]) {
    if (typeof l === 'string') continue;
    if (l.modules.has(rel) || l.capsPolicy === rel) return true;
  }
  return false;
}

function isPolicyPath(c: CandidatePackage, rel: string): boolean {
  if (isPolicyName(rel)) return true;
  return [c.base, c.head].some((l) => typeof l !== 'string' && l.capsPolicy === rel);
}

/** The role of `path` in package `c`. */
export function roleIn(c: CandidatePackage, path: string): PathRole {
  if (path === c.dir) return 'package-dir';
  const rel = relative(c.dir, path);
  if (rel === 'package.toml') return 'manifest';
  if ([c.base, c.head].some((l) => typeof l !== 'string' && l.modules.has(rel))) return 'module';
  if (isPolicyPath(c, rel)) return 'policy';
  if (rel === '.genesis' || rel === '.genesis/store' || rel.startsWith('.genesis/store/')) return 'store-entry';
  if (rel.startsWith('.genesis/')) return 'genesis-file';
  if (rel.endsWith('.gc')) return 'unlisted-module';
  return 'package-file';
}

/**
 * The packages `path` belongs to: every candidate whose manifest (at the base or the head) lists it
 * as a module or as its `caps_policy`; when none does, the innermost candidate containing it; the
 * package directory itself belongs to its own package.
 */
export function owners(path: string, candidates: ReadonlyMap<string, CandidatePackage>): CandidatePackage[] {
  const containing = [...candidates.values()].filter((c) => inside(c.dir, path)).sort((a, b) => b.dir.length - a.dir.length);
  const self = containing.find((c) => c.dir === path);
  if (self !== undefined) return [self];
  const listing = containing.filter((c) => lists(c, relative(c.dir, path)));
  if (listing.length > 0) return listing;
  return containing.length > 0 ? [containing[0]!] : [];
}

function side(s: EntrySide | undefined): { kind: ObjectKind; mode: string } | undefined {
  return s === undefined ? undefined : { kind: s.kind, mode: s.mode };
}

const CONTENT_ROLES = new Set<PathRole>(['module', 'manifest', 'policy', 'store-entry']);

/** A finding the accounting raised for one path. */
export interface PathFinding {
  code: AuditCodeValue;
  severity: Severity;
  message: string;
  file: string;
  title: string;
}

/**
 * The kind and mode findings of one changed path in its role (docs/security.md): a content file (module,
 * manifest, policy, store entry) or a package directory that is not a regular file / directory is an
 * error; a content file whose mode changed between regular and executable is a warning; a new or
 * changed `.gc` file no manifest lists is a warning, inside or outside a package.
 */
export function pathFindings(entry: ChangedEntry, role: PathRole, manifestPath: string | undefined): PathFinding[] {
  const out: PathFinding[] = [];
  const to = entry.to;
  const kindWord = (k: ObjectKind): string =>
    k === 'gitlink' ? 'a gitlink (submodule)' : k === 'tree' ? 'a directory' : k === 'symlink' ? 'a symlink' : 'a file';
  if (role === 'package-dir' && to !== undefined && to.kind !== 'tree') {
    out.push({
      code: AuditCode.notARegularFile,
      severity: 'error',
      message: `${entry.path}: the package directory${manifestPath !== undefined ? ` of ${manifestPath}` : ''} was replaced by ${kindWord(to.kind)} (mode ${to.mode}); its content cannot be verified — keep the package as a directory of regular files`,
      file: entry.path,
      title: 'not a regular file',
    });
  } else if (role === 'store-entry') {
    const storeDir = /(^|\/)\.genesis(\/store)?$/.test(entry.path);
    if (to !== undefined && (storeDir ? to.kind !== 'tree' : to.kind !== 'blob' && to.kind !== 'executable'))
      out.push({
        code: AuditCode.notARegularFile,
        severity: 'error',
        message: `${entry.path}: ${/(^|\/)\.genesis(\/store)?$/.test(entry.path) ? 'the evidence store directory' : 'a store entry'} is ${kindWord(to.kind)} (mode ${to.mode}); link text is never read as evidence — keep the store a directory of regular files`,
        file: entry.path,
        title: 'not a regular file',
      });
  } else if (CONTENT_ROLES.has(role) && to !== undefined && to.kind !== 'blob' && to.kind !== 'executable') {
    out.push({
      code: AuditCode.notARegularFile,
      severity: 'error',
      message: `${entry.path}: a ${role} that is ${kindWord(to.kind)} (mode ${to.mode}); link text is never read as content — replace it with a regular file`,
      file: entry.path,
      title: 'not a regular file',
    });
  } else if (role !== 'outside' && to !== undefined && (to.kind === 'symlink' || to.kind === 'gitlink')) {
    // any other path of a package: a checkout resolves the package's files through a symlink or a
    // submodule (`ci/` → a policy outside every package), which no check of git objects can follow
    // (red-team round 6)
    out.push({
      code: AuditCode.notARegularFile,
      severity: 'error',
      message: `${entry.path}: ${kindWord(to.kind)} (mode ${to.mode}) in a package directory; a checkout reads the package's files through it (a policy directory, a module directory, a dependency), and gcpatch cannot verify what it points at — replace it with regular files`,
      file: entry.path,
      title: 'not a regular file',
    });
  }
  const base = posix.basename(entry.path);
  if (to !== undefined && base !== 'package.toml' && foldName(base) === 'package.toml') {
    out.push({
      code: AuditCode.pathCaseCollision,
      severity: 'error',
      message: `${entry.path}: a case-insensitive checkout (macOS, Windows) reads this file as package.toml, git and gcpatch do not; name it package.toml or remove it`,
      file: entry.path,
      title: 'case collision',
    });
  }
  const regular = (k: ObjectKind | undefined): boolean => k === 'blob' || k === 'executable';
  if ((role === 'module' || role === 'manifest' || role === 'policy') && regular(entry.from?.kind) && regular(to?.kind) && entry.from!.kind !== to!.kind) {
    out.push({
      code: AuditCode.modeChanged,
      severity: 'warning',
      message: `${entry.path}: mode ${entry.from!.mode} → ${to!.mode}; a package file's mode is not explained by evidence`,
      file: entry.path,
      title: 'mode changed',
    });
  }
  if (role === 'unlisted-module' && to !== undefined && entry.path.endsWith('.gc')) {
    out.push({
      code: AuditCode.unlistedModule,
      severity: 'warning',
      message: `${entry.path}: a .gc file no package.toml lists was ${entry.from === undefined ? 'added' : 'changed'}; list it in [[modules]] (gcpatch apply with add-module) or move it out of the package`,
      file: entry.path,
      title: 'unlisted module',
    });
  }
  if (role === 'outside' && to !== undefined && entry.path.endsWith('.gc')) {
    out.push({
      code: AuditCode.outsidePackage,
      severity: 'warning',
      message: `${entry.path}: a .gc file outside every package was ${entry.from === undefined ? 'added' : 'changed'}; gcpatch verifies packages only`,
      file: entry.path,
      title: 'outside every package',
    });
  }
  return out;
}

/** The account of one path, before the package audits add their explanations. */
export function accountOf(entry: ChangedEntry, packages: readonly CandidatePackage[], role: PathRole): PathAccount {
  const account: PathAccount = {
    path: entry.path,
    change: entry.from === undefined ? 'added' : entry.to === undefined ? 'deleted' : 'modified',
    packages: packages.map((p) => p.dir),
    role,
    explanation: '',
    findings: [],
  };
  const f = side(entry.from);
  const t = side(entry.to);
  if (f !== undefined) account.from = f;
  if (t !== undefined) account.to = t;
  return account;
}

/**
 * A path as a case-insensitive, normalization-insensitive file system (APFS, NTFS) sees it: NFKC
 * (so `ſ` is `s` and a decomposed `é` is the composed one), then full case folding by way of upper
 * case (`ß` → `SS` → `ss`).
 */
export function foldName(path: string): string {
  return path.normalize('NFKC').toUpperCase().toLowerCase().normalize('NFKC');
}

/**
 * Paths of a package at a commit that differ only in letter case or Unicode normalization (`A.gc` and `a.gc`): a checkout on
 * a case-insensitive file system sees one of them. Reads the package's trees at the commit.
 * @returns groups of two or more colliding repository-relative paths.
 */
export async function caseCollisions(repo: GitRepository, commit: string, dir: string): Promise<string[][]> {
  const root = await entryAtCommit(repo, commit, dir);
  if (root?.type !== 'tree') return [];
  const byFold = new Map<string, string[]>();
  const pending: { prefix: string; oid: string }[] = [{ prefix: dir, oid: root.oid }];
  while (pending.length > 0) {
    const { prefix, oid } = pending.pop()!;
    for (const e of await readTreeEntries(repo, oid)) {
      const path = prefix === '' ? e.path : `${prefix}/${e.path}`;
      const fold = foldName(path);
      let list = byFold.get(fold);
      if (list === undefined) byFold.set(fold, (list = []));
      list.push(path);
      if (e.type === 'tree' && objectKindOfMode(e.mode) === 'tree') pending.push({ prefix: path, oid: e.oid });
    }
  }
  return [...byFold.values()].filter((l) => l.length > 1).map((l) => l.sort());
}

/** Records the case collisions of a package at the head as errors. */
export function reportCaseCollisions(groups: readonly string[][], out: PackageFindings): void {
  for (const g of groups) {
    for (const path of g) {
      out.fail('path', path, 'case', {
        code: AuditCode.pathCaseCollision,
        message: `${path} and ${g.filter((p) => p !== path).join(' and ')} differ only in letter case; a checkout on macOS or Windows sees only one of them — rename one`,
        file: path,
        title: 'case collision',
      });
    }
  }
}

/**
 * Attributes that make a checkout (or `git archive`, GitHub's source archives) write other bytes than
 * the blob (`gitattributes(5)` "Checking-out and checking-in", "Creating an archive"): `text` too,
 * since with `core.eol=crlf` (native on Windows) it rewrites line ends inside string literals.
 */
const CHECKOUT_ATTRIBUTES = /^(ident|crlf|text|text=.*|eol=.*|filter=.*|working-tree-encoding=.*|export-subst|export-ignore)$/;
/** Attributes that keep a checkout byte-exact; removing one that was set is a change too. */
const PROTECTING_ATTRIBUTES = /^(-text|binary|-crlf|-ident|-filter|-eol|-working-tree-encoding)$/;

/** The `pattern attribute` pairs of a `.gitattributes` text matching `which`. */
function attributePairs(text: string, which: RegExp): Set<string> {
  const out = new Set<string>();
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const [pattern, ...attrs] = line.split(/\s+/);
    for (const a of attrs) if (which.test(a)) out.add(`${pattern} ${a}`);
  }
  return out;
}

/**
 * A `.gitattributes` added or changed anywhere in the tree that turns on an attribute making a
 * checkout write other bytes than the blobs verify-pr verified (`ident`, `text`, `eol=`, `crlf`,
 * `filter=`, `working-tree-encoding=`, `export-subst`, `export-ignore`) or drops one that kept it
 * byte-exact (`-text`, `binary`, …): what the toolchain then reads from the work tree is not what
 * was checked. An error (`audit/checkout-attributes`); merge and diff attributes are fine. The file
 * is read as bytes (Latin-1), as git reads it: a byte that is not UTF-8 hides nothing.
 * @returns the finding, or `undefined`.
 */
export async function attributesFinding(repo: GitRepository, entry: ChangedEntry): Promise<PathFinding | undefined> {
  if (posix.basename(entry.path) !== '.gitattributes' || entry.to === undefined) return undefined;
  const text = async (side: EntrySide | undefined): Promise<string> => {
    if (side === undefined || (side.kind !== 'blob' && side.kind !== 'executable')) return '';
    const { blob } = await repo.git.readBlob({ fs, dir: repo.dir, oid: side.oid, cache: repo.cache });
    return Buffer.from(blob.buffer, blob.byteOffset, blob.byteLength).toString('latin1');
  };
  if (entry.to.kind !== 'blob' && entry.to.kind !== 'executable') {
    return {
      code: AuditCode.checkoutAttributes,
      severity: 'error',
      message: `${entry.path} is a ${entry.to.kind}: git reads attributes through it; keep it a regular file`,
      file: entry.path,
      title: 'checkout attributes',
    };
  }
  const [before, after] = [await text(entry.from), await text(entry.to)];
  const had = attributePairs(before, CHECKOUT_ATTRIBUTES);
  const added = [...attributePairs(after, CHECKOUT_ATTRIBUTES)].filter((a) => !had.has(a));
  const kept = attributePairs(after, PROTECTING_ATTRIBUTES);
  const dropped = [...attributePairs(before, PROTECTING_ATTRIBUTES)].filter((a) => !kept.has(a));
  if (added.length === 0 && dropped.length === 0) return undefined;
  const what = [...added.map((a) => `turns on \`${a}\``), ...dropped.map((a) => `drops \`${a}\``)].join(', ');
  return {
    code: AuditCode.checkoutAttributes,
    severity: 'error',
    message: `${entry.path} ${what}: a checkout (or an archive) then holds other bytes than the verified blobs, so what the toolchain reads is not what was checked; revert these attributes`,
    file: entry.path,
    title: 'checkout attributes',
  };
}

/**
 * Packages the pull request moved to another directory: a package present only at the head whose
 * manifest `name` is that of a package present only at the base, or (a move that also renames the
 * package) whose module list shares more than half of its paths with one.
 * @returns new directory → old directory.
 */
export function movedPackages(candidates: Iterable<CandidatePackage>): Map<string, string> {
  const all = [...candidates];
  const gone = all.filter((c) => typeof c.base !== 'string' && c.head === 'absent');
  const out = new Map<string, string>();
  for (const c of all) {
    if (c.base !== 'absent' || typeof c.head === 'string') continue;
    const head = c.head;
    const shared = (g: CandidatePackage): number => [...(g.base as ManifestListing).modules].filter((m) => head.modules.has(m)).length;
    const from =
      gone.find((g) => head.name !== undefined && (g.base as ManifestListing).name === head.name) ??
      gone.filter((g) => shared(g) * 2 > (g.base as ManifestListing).modules.size).sort((a, b) => shared(b) - shared(a))[0];
    if (from !== undefined) out.set(c.dir, from.dir);
  }
  return out;
}

/** Every changed path's account, and the packages the paths belong to. */
export interface ChangeAccounts {
  /** One account per changed path, in the order git listed them. */
  accounts: PathAccount[];
  /** Package directory → the package and its changed paths. */
  byPackage: Map<string, { c: CandidatePackage; paths: PathAccount[] }>;
  /** Package directory → the findings its paths' kinds and modes give. */
  pathFindingsByPackage: Map<string, PathFinding[]>;
}

/**
 * Accounts for every changed path: where it belongs (the packages owning it, its role there) and
 * what its kind, mode and checkout attributes say. Findings of paths outside every package, and of
 * checkout attributes, go to `global`; the others are kept by package for its audit.
 */
export async function accountChanges(
  repo: GitRepository,
  changed: readonly ChangedEntry[],
  candidates: ReadonlyMap<string, CandidatePackage>,
  global: PackageFindings,
): Promise<ChangeAccounts> {
  const accounts: PathAccount[] = [];
  const byPackage = new Map<string, { c: CandidatePackage; paths: PathAccount[] }>();
  const pathFindingsByPackage = new Map<string, PathFinding[]>();
  for (const entry of changed) {
    const attributes = await attributesFinding(repo, entry);
    if (attributes !== undefined) global.fail('path', entry.path, 'checkout', attributes);
    const owning = owners(entry.path, candidates);
    const role = owning.length === 0 ? 'outside' : roleIn(owning[0]!, entry.path);
    const account = accountOf(entry, owning, role);
    accounts.push(account);
    if (owning.length === 0) {
      // outside-package findings are one summary (or one warning per file): verify-pr.ts, outside.ts
      for (const f of pathFindings(entry, 'outside', undefined)) if (f.code !== AuditCode.outsidePackage) global.fail('path', entry.path, 'kind', f);
      account.explanation = 'outside every package: not verified';
      continue;
    }
    for (const c of owning) {
      let p = byPackage.get(c.dir);
      if (p === undefined) byPackage.set(c.dir, (p = { c, paths: [] }));
      p.paths.push(account);
      let list = pathFindingsByPackage.get(c.dir);
      if (list === undefined) pathFindingsByPackage.set(c.dir, (list = []));
      for (const f of pathFindings(entry, roleIn(c, entry.path), c.manifestPath)) list.push(f);
    }
  }
  return { accounts, byPackage, pathFindingsByPackage };
}
