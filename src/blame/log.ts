// The log by definition: per commit that changed the package (or one module or definition), its semantic changes and how they are explained.
import { relocationsOf, signaturesIntroduced, type CommitRoute, type SignedAcceptance } from './evidence.js';
import { semanticChanges, touchesModule, touchesSymbol, type SemanticChange } from './changes.js';
import type { PackageHistory, Signature } from './walk.js';

/** One commit of the log. */
export interface LogEntry {
  commit: string;
  parents: string[];
  author: Signature;
  subject: string;
  /** Against the first parent; a commit that adds the package lists its modules as added. */
  changes: SemanticChange[];
  explanation: CommitRoute;
  /** The signed acceptances the commit logged (transparency entries new since its first parent), oldest first. */
  signed: SignedAcceptance[];
}

/** What `log` is limited to. */
export type LogFilter = { module: string } | { symbol: string } | undefined;

/** `gcpatch log --json` (docs/audit.md "log"). */
export interface LogReport {
  kind: 'gcpatch/log-v1';
  package: { dir: string; name: string };
  head: string;
  since: string | null;
  /** `{module}` or `{symbol}`, or `null` for the whole package. */
  filter: { module: string } | { symbol: string } | null;
  maxCount: number | null;
  /** Newest first (children before parents). */
  commits: LogEntry[];
  /** True when `maxCount` cut the log short. */
  truncated: boolean;
  /** Commits where history stops because the clone is shallow. */
  shallow: string[];
}

/**
 * Lists, newest first, each walked commit that changes the package (its package tree differs from
 * its first parent's), with its semantic changes against the first parent (`changes.ts`) and its
 * explanation. With a filter only commits with a change to that module or definition are listed;
 * without one, a commit whose package changed with no semantic change (formatting, comments,
 * evidence only) is listed with no changes. A root commit that has the package is listed with every
 * module added; shallow and `--since` boundary commits are not listed (see `shallow`).
 * @param maxCount at most this many commits (positive).
 * @throws GcError `git/missing-commit` (exit 70).
 */
export async function logPackage(history: PackageHistory, filter: LogFilter, maxCount: number | undefined): Promise<LogReport> {
  const head = (await history.readable(history.head))!;
  const picked: { commit: string; changes: SemanticChange[] }[] = [];
  let truncated = false;
  for (let i = history.commits.length - 1; i >= 0; i--) {
    const c = history.commits[i]!;
    // a root commit is where the package was introduced, not a boundary of the history
    if (c.boundary !== null && c.boundary !== 'root') continue;
    const first = c.parents[0];
    if (first !== undefined && (await history.samePackageTree(c.oid, first))) continue;
    const now = await history.readable(c.oid);
    if (now === undefined) continue;
    const before = first === undefined ? undefined : await history.readable(first);
    const relocations = before === undefined ? [] : await relocationsOf(c.oid, c.parents, history.headEvidence());
    const empty = { ...now, modules: [], byPath: new Map(), table: {} };
    let changes = semanticChanges(before ?? empty, now, relocations);
    if (filter !== undefined) {
      changes = changes.filter((x) => ('module' in filter ? touchesModule(x, filter.module) : touchesSymbol(x, filter.symbol)));
      if (changes.length === 0) continue;
    }
    if (maxCount !== undefined && picked.length >= maxCount) {
      truncated = true;
      break;
    }
    picked.push({ commit: c.oid, changes });
  }
  const routes = await history.explain(picked.map((p) => p.commit));
  const commits: LogEntry[] = [];
  for (const { commit, changes } of picked) {
    const c = history.commit(commit);
    const signed = await signaturesIntroduced(history.repo, commit, c.parents[0], history.dir);
    commits.push({ commit, parents: c.parents, author: c.author, subject: c.subject, changes, explanation: routes.get(commit)!, signed });
  }
  return {
    kind: 'gcpatch/log-v1',
    package: { dir: history.dir, name: head.manifest.name },
    head: history.head,
    since: history.since,
    filter: filter ?? null,
    maxCount: maxCount ?? null,
    commits,
    truncated,
    shallow: history.shallowBoundaries(),
  };
}
