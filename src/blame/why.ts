// The why trail of one definition: every commit that changed it, back to the one that introduced it, following renames and moves its evidence made.
import { compareUtf8 } from '../util/bytes.js';
import { GcError } from '../util/errors.js';
import { PREFETCH, type Attribution } from './blame.js';
import { BlameCode } from './codes.js';
import { definitions, findDefinition } from './forms.js';
import { traceStep, type TracedForm } from './trace.js';
import type { BoundaryKind, PackageHistory } from './walk.js';

/** One commit of the trail. `symbol`/`module` name the definition as that commit left it. */
export interface WhyEntry extends Attribution {
  symbol: string;
  module: string;
}

/**
 * Where the trail ends:
 * - `introduced`: the commit added the package, or is the repository's first commit;
 * - `added`: the commit added the definition; `removed` lists definitions the same commit removed
 *   (if one of them is the old name, it was renamed by hand: no evidence links the two);
 * - `shallow` / `since`: history stops (a shallow clone's boundary, or `--since`) before the
 *   definition's first commit.
 */
export interface WhyEnd {
  reason: 'introduced' | 'added' | 'shallow' | 'since';
  commit: string;
  removed: string[];
}

/** `gcpatch why --json` (docs/audit.md "why"). */
export interface WhyReport {
  kind: 'gcpatch/why-v1';
  package: { dir: string; name: string };
  symbol: string;
  /** The module defining `symbol` at the head (package-relative). */
  module: string;
  head: string;
  since: string | null;
  shallow: string[];
  /** Newest first. */
  trail: WhyEntry[];
  end: WhyEnd;
}

/**
 * Follows `symbol` from the head back (`trace.ts`, one parent per step: the first where the form is
 * the same, else the first that has it): each commit that changed, renamed or moved it is an entry;
 * a rename or move by evidence continues under the old symbol; the trail ends where the definition
 * was added, or where history stops.
 * @throws GcError `blame/unknown-symbol` (exit 10) when no module defines `symbol` at the head;
 *   `git/missing-commit` (exit 70).
 */
export async function whySymbol(history: PackageHistory, symbol: string): Promise<WhyReport> {
  const head = (await history.readable(history.head))!;
  const at = findDefinition(head, symbol);
  if (at === undefined) {
    const near = [...definitions(head).keys()].filter((s) => s.endsWith(`::${symbol.split('::').pop()}`)).slice(0, 3);
    throw new GcError(
      BlameCode.unknownSymbol,
      `no module of package ${head.manifest.name} defines ${symbol} at ${history.head.slice(0, 12)}` +
        (near.length > 0 ? ` (did you mean ${near.join(', ')}?)` : '; `gcpatch log` lists definitions removed or renamed earlier'),
      { location: { file: head.manifestPath, at: symbol }, details: { symbol, suggestions: near } },
    );
  }
  const steps: { commit: string; change: WhyEntry['change']; symbol: string; module: string; from?: WhyEntry['from'] }[] = [];
  let form: TracedForm = { module: at.module, key: at.form.key, symbol, term: at.form.term, moduleForms: head.byPath.get(at.module)!.forms };
  let oid = history.head;
  let end: WhyEnd | undefined;
  while (end === undefined) {
    const commit = history.commit(oid);
    history.prefetchBefore(oid, form.module, PREFETCH);
    const step = await traceStep(history, oid, form);
    if (step.kind === 'same') {
      form = step.at;
      oid = step.parent;
      continue;
    }
    const entry = { commit: oid, symbol: form.symbol!, module: form.module };
    if (step.kind === 'changed') {
      steps.push({ ...entry, change: 'changed' });
      form = step.at;
      oid = step.parent;
    } else if (step.kind === 'relocated') {
      steps.push({
        ...entry,
        change: step.relocation.refactorKind === 'move' ? 'moved' : 'renamed',
        from: { symbol: step.relocation.from, module: step.at.module },
      });
      form = step.at;
      oid = step.parent;
    } else {
      steps.push({ ...entry, change: 'added' });
      end = await trailEnd(history, oid, commit.boundary);
    }
  }
  const routes = await history.explain(steps.map((s) => s.commit));
  const trail = steps.map((s): WhyEntry => {
    const c = history.commit(s.commit);
    const out: WhyEntry = {
      commit: s.commit,
      boundary: c.boundary,
      author: c.author,
      subject: c.subject,
      change: s.change,
      symbol: s.symbol,
      module: s.module,
      explanation: routes.get(s.commit)!,
    };
    if (s.from !== undefined) out.from = s.from;
    return out;
  });
  return {
    kind: 'gcpatch/why-v1',
    package: { dir: history.dir, name: head.manifest.name },
    symbol,
    module: at.module,
    head: history.head,
    since: history.since,
    shallow: history.shallowBoundaries(),
    trail,
    end,
  };
}

async function trailEnd(history: PackageHistory, oid: string, boundary: BoundaryKind | null): Promise<WhyEnd> {
  if (boundary === 'shallow' || boundary === 'since') return { reason: boundary, commit: oid, removed: [] };
  const commit = history.commit(oid);
  const parents = (await Promise.all(commit.parents.map((p) => history.readable(p)))).filter((s) => s !== undefined);
  if (parents.length === 0) return { reason: 'introduced', commit: oid, removed: [] };
  const now = (await history.readable(oid))!;
  const kept = definitions(now);
  const removed = new Set<string>();
  for (const p of parents) for (const s of definitions(p).keys()) if (!kept.has(s)) removed.add(s);
  return { reason: 'added', commit: oid, removed: [...removed].sort(compareUtf8) };
}
