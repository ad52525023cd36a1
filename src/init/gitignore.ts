/**
 * The block `gcpatch init` keeps at the end of the repository's top `.gitignore` (docs/init.md
 * "What init writes to .gitignore"): the transaction's leftovers stay out of commits, and for every
 * package whose evidence the repository's rules ignore, the exceptions that let exactly the evidence
 * in — the store's entries (not its temporary files) and the four pointer files beside it — while
 * everything else under that `.genesis/` (caches, keys, build output) stays ignored.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { evidenceProbePaths, ignoredPaths, type IgnoreRule } from '../git/ignored.js';

/** The first and last line of the block; everything between them is gcpatch's. */
export const BLOCK_START = '# >>> gcpatch init: evidence is committed, transaction files are not (docs/init.md) >>>';
export const BLOCK_END = '# <<< gcpatch init <<<';

/** The transaction's files, never committed (docs/patches.md "Crash safety"). */
export const TRANSACTION_PATTERNS = ['.gcpatch/', '*.gcpatch-stage-*', '*.gcpatch-backup-*'] as const;

/** The files beside the store that are evidence (docs/reference/evidence-store.md §5). */
export const POINTER_FILES = ['last_acceptance', 'last_signature', 'signatures.gc', 'transparency_head'] as const;

/** A package folder (relative to the top, `/`-separated, `''` for the top) as an anchored gitignore pattern prefix. */
function anchored(pkg: string): string {
  const escaped = pkg.replace(/[\\*?[\]!# ]/g, (c) => `\\${c}`);
  return escaped === '' ? '' : `/${escaped}`;
}

/** The lines that let `pkg`'s evidence in (see the file comment). */
export function exceptionLines(pkg: string): string[] {
  const g = `${anchored(pkg)}/.genesis`;
  return [`!${g}/`, `${g}/*`, `!${g}/store/`, `${g}/store/.tmp-*`, ...POINTER_FILES.map((f) => `!${g}/${f}`)];
}

/** The whole block for `packages` (sorted by the caller), ending with a newline. */
export function blockText(packages: readonly string[]): string {
  return [BLOCK_START, ...TRANSACTION_PATTERNS, ...packages.flatMap(exceptionLines), BLOCK_END].join('\n') + '\n';
}

/** A `.gitignore` text split around gcpatch's block: the text without it, and the packages it covered. */
export function splitBlock(text: string): { rest: string; packages: string[]; had: boolean } {
  const lines = text.split('\n');
  const start = lines.indexOf(BLOCK_START);
  const end = start < 0 ? -1 : lines.indexOf(BLOCK_END, start);
  if (start < 0 || end < 0) return { rest: text, packages: [], had: false };
  const packages: string[] = [];
  for (const l of lines.slice(start + 1, end)) {
    const m = /^!(.*)\/\.genesis\/$/.exec(l);
    if (m) packages.push(m[1]!.replace(/^\//, '').replace(/\\(.)/g, '$1'));
  }
  const rest = [...lines.slice(0, start), ...lines.slice(end + 1)].join('\n');
  return { rest, packages, had: true };
}

/** What the top `.gitignore` should become. */
export interface GitignorePlan {
  file: string;
  /** Its text now (`undefined`: it does not exist) and the text it should have. */
  before: string | undefined;
  after: string;
  /** The packages the block lets evidence in for. */
  packages: string[];
  /** For each package newly covered, the rule that ignored its evidence. */
  ignoredBy: IgnoreRule[];
}

/**
 * Plans the top `.gitignore` of the work tree `top` for the packages `packages` (folders relative to
 * `top`): the block lists every package it listed before that still exists, and every package whose
 * evidence git ignores now; it is moved to the end of the file, where its rules win.
 */
export function planGitignore(top: string, packages: readonly string[]): GitignorePlan {
  const file = join(top, '.gitignore');
  const before = existsSync(file) ? readFileSync(file, 'utf8') : undefined;
  const { rest, packages: listed } = splitBlock(before ?? '');
  const present = new Set(packages);
  const keep = new Set(listed.filter((p) => present.has(p)));
  const ignoredBy: IgnoreRule[] = [];
  // One git call for every package (a repository may have dozens).
  const asked = packages.filter((p) => !keep.has(p));
  const rules = new Map(ignoredPaths(top, asked.flatMap(evidenceProbePaths)).map((r) => [r.path, r]));
  for (const pkg of asked) {
    const rule = evidenceProbePaths(pkg)
      .map((p) => rules.get(p))
      .find((r) => r !== undefined);
    if (rule !== undefined) {
      keep.add(pkg);
      ignoredBy.push(rule);
    }
  }
  const covered = [...keep].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  const trimmed = rest.replace(/\n+$/, '');
  const after = (trimmed === '' ? '' : `${trimmed}\n`) + blockText(covered);
  return { file, before, after, packages: covered, ignoredBy };
}
