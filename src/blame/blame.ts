// Blame by definition: for each top-level form of a module, the commit that last changed its canonical form, and how that change is explained.
import { lineColumn, readModule } from '../coreform/read.js';
import { signaturesIntroduced, type CommitRoute, type SignedAcceptance } from './evidence.js';
import { formsOf } from './forms.js';
import { traceStep, type TracedForm } from './trace.js';
import type { BoundaryKind, PackageHistory, Signature } from './walk.js';

/** How many commits ahead of the walk back their trees and manifests are read (`walk.ts` prefetchBefore). */
export const PREFETCH = 16;

/** The commit a form is attributed to, and what it did. Shared by blame, why and log. */
export interface Attribution {
  commit: string;
  /** Set when the walk stopped at this commit: the form is older, or history is cut here. */
  boundary: BoundaryKind | null;
  author: Signature;
  subject: string;
  /** What the commit did to the form: `changed`, `added`, `renamed` or `moved` (by evidence). */
  change: 'changed' | 'added' | 'renamed' | 'moved';
  /** For `renamed`/`moved`: the old symbol and module. */
  from?: { symbol: string; module: string };
  explanation: CommitRoute;
}

/** One top-level form of the blamed module. */
export interface BlameForm extends Attribution {
  /** The signed acceptances the commit logged (transparency entries new since its first parent), oldest first. */
  signed: SignedAcceptance[];
  /** 0-based form index; `line` is its 1-based first line in the head's file. */
  index: number;
  line: number;
  /** See `forms.ts` `KeyedForm.key`. */
  key: string;
  symbol: string | null;
  /** The merge commit through which the change reached the head's first-parent line, if any. */
  via: string | null;
}

/** `gcpatch blame --json` (docs/audit.md "blame"). */
export interface BlameReport {
  kind: 'gcpatch/blame-v1';
  package: { dir: string; name: string };
  /** Package-relative module path; `file` is repository-relative. */
  module: string;
  file: string;
  head: string;
  since: string | null;
  /** Commits where history stops because the clone is shallow. */
  shallow: string[];
  forms: BlameForm[];
}

/**
 * Blames every top-level form of `module` at the walk's head: walking commits children first, each
 * form passes to the parent where it is canonically the same (formatting and comments never move
 * blame) and stops at the commit that changed, added, renamed or moved it (`trace.ts`). Renames and
 * moves count as changes; `gcpatch why` follows them further back.
 * @param module package-relative path of a module the head's manifest lists (checked by the caller).
 * @throws GcError `git/missing-commit` (exit 70).
 */
export async function blameModule(history: PackageHistory, module: string): Promise<BlameReport> {
  const head = (await history.readable(history.head))!;
  const m = head.byPath.get(module)!;
  const source = readModule(m.bytes);
  type Item = { form: TracedForm; index: number; line: number; via: string | undefined };
  const pending = new Map<string, Item[]>();
  pending.set(
    history.head,
    formsOf(m.forms).map((f) => ({
      form: { module, key: f.key, symbol: f.symbol, term: f.term, moduleForms: m.forms },
      index: f.index,
      line: lineColumn(m.bytes, source.forms[f.index]?.start ?? 0).line,
      via: undefined,
    })),
  );
  const found: { item: Item; commit: string; change: Attribution['change']; from?: Attribution['from'] }[] = [];
  for (let i = history.commits.length - 1; i >= 0 && pending.size > 0; i--) {
    const commit = history.commits[i]!;
    const items = pending.get(commit.oid);
    if (items === undefined) continue;
    history.prefetchBefore(commit.oid, module, PREFETCH);
    pending.delete(commit.oid);
    for (const item of items) {
      const step = await traceStep(history, commit.oid, item.form);
      if (step.kind === 'same') {
        const via = item.via ?? (commit.parents.length > 1 && step.parent !== commit.parents[0] ? commit.oid : undefined);
        let list = pending.get(step.parent);
        if (list === undefined) pending.set(step.parent, (list = []));
        list.push({ ...item, form: step.at, via });
      } else if (step.kind === 'relocated') {
        const change = step.relocation.refactorKind === 'move' ? 'moved' : 'renamed';
        found.push({ item, commit: commit.oid, change, from: { symbol: step.relocation.from, module: step.at.module } });
      } else {
        found.push({ item, commit: commit.oid, change: step.kind });
      }
    }
  }
  const routes = await history.explain(found.map((f) => f.commit));
  const signed = new Map<string, SignedAcceptance[]>();
  for (const f of found) {
    if (!signed.has(f.commit)) signed.set(f.commit, await signaturesIntroduced(history.repo, f.commit, history.commit(f.commit).parents[0], history.dir));
  }
  const forms: BlameForm[] = found
    .map(({ item, commit, change, from }) => {
      const c = history.commit(commit);
      const out: BlameForm = {
        index: item.index,
        line: item.line,
        key: item.form.key,
        symbol: item.form.symbol ?? null,
        commit,
        boundary: c.boundary,
        author: c.author,
        subject: c.subject,
        change,
        explanation: routes.get(commit)!,
        signed: signed.get(commit)!,
        via: item.via ?? null,
      };
      if (from !== undefined) out.from = from;
      return out;
    })
    .sort((a, b) => a.index - b.index);
  return {
    kind: 'gcpatch/blame-v1',
    package: { dir: history.dir, name: head.manifest.name },
    module,
    file: m.file,
    head: history.head,
    since: history.since,
    shallow: history.shallowBoundaries(),
    forms,
  };
}
