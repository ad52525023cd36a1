// One step of following a top-level form back through a commit: the same in a parent, changed, renamed or moved by the commit's evidence, or added.
import { termsEqual, type Term } from '../coreform/term.js';
import { relocationsOf, type CommitPackageSnapshot, type Relocation } from './evidence.js';
import { findDefinition, formIn, type KeyedForm } from './forms.js';
import type { PackageHistory } from './walk.js';

/** A form being followed: where it is at some commit. */
export interface TracedForm {
  module: string;
  key: string;
  symbol: string | undefined;
  term: Term;
  /** The module's forms array at that commit (identity shows an untouched blob). */
  moduleForms: readonly Term[];
}

/** What a commit did to a traced form, seen from its parents. */
export type TraceStep =
  /** The form is canonically equal in `parent` (the commit did not change it; a reformat does not count). */
  | { kind: 'same'; parent: string; at: TracedForm }
  /** The commit changed the form; `at` is its version in the first parent that has it. */
  | { kind: 'changed'; parent: string; at: TracedForm }
  /** The commit's refactor evidence renamed or moved the form: it was `at` in `parent`. */
  | { kind: 'relocated'; parent: string; at: TracedForm; relocation: Relocation }
  /** No parent has the form (by key, by symbol anywhere in the package, or through evidence). */
  | { kind: 'added' };

function traced(snapshot: CommitPackageSnapshot, module: string, form: KeyedForm): TracedForm {
  return { module, key: form.key, symbol: form.symbol, term: form.term, moduleForms: snapshot.byPath.get(module)!.forms };
}

/** The form's place in a parent: the same module and key, else (a definition) its symbol anywhere in the package. */
function locate(parent: CommitPackageSnapshot, form: TracedForm): TracedForm | undefined {
  const same = formIn(parent, form.module, form.key);
  if (same !== undefined) return traced(parent, form.module, same);
  if (form.symbol === undefined || !form.key.startsWith('def:') || form.key.includes('#')) return undefined;
  const found = findDefinition(parent, form.symbol);
  return found === undefined ? undefined : traced(parent, found.module, found.form);
}

/**
 * Follows `form` (as it is at walked commit `oid`) to the commit's parents, in git's parent order,
 * as `git blame` passes blame: to the first parent where it is canonically the same; else the
 * commit changed it (compared with the first parent that has it); else a rename or move by the
 * commit's own evidence names its old symbol; else the commit added it. A boundary commit has no
 * parents: every form is `added` there.
 * @throws GcError `git/missing-commit` (exit 70).
 */
export async function traceStep(history: PackageHistory, oid: string, form: TracedForm): Promise<TraceStep> {
  const commit = history.commit(oid);
  const parents: { oid: string; snapshot: CommitPackageSnapshot }[] = [];
  let changed: { parent: string; at: TracedForm } | undefined;
  for (const p of commit.parents) {
    // the same module and manifest blobs: the form is the same, nothing to read or compare
    if (await history.sameModuleBlobs(oid, p, form.module)) return { kind: 'same', parent: p, at: { ...form } };
    const s = await history.readable(p);
    if (s === undefined) continue;
    parents.push({ oid: p, snapshot: s });
    if (s.byPath.get(form.module)?.forms === form.moduleForms) return { kind: 'same', parent: p, at: { ...form } };
    const at = locate(s, form);
    if (at === undefined) continue;
    if (termsEqual(at.term, form.term)) return { kind: 'same', parent: p, at };
    changed ??= { parent: p, at };
  }
  if (changed !== undefined) return { kind: 'changed', ...changed };
  if (form.symbol !== undefined && parents.length > 0) {
    const relocations = await relocationsOf(oid, commit.parents, history.headEvidence());
    const relocation = relocations.find((r) => r.to === form.symbol);
    if (relocation !== undefined) {
      for (const p of parents) {
        const found = findDefinition(p.snapshot, relocation.from);
        if (found !== undefined) return { kind: 'relocated', parent: p.oid, at: traced(p.snapshot, found.module, found.form), relocation };
      }
    }
  }
  return { kind: 'added' };
}
