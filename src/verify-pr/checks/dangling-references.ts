/**
 * Dangling references at the head (docs/security.md): a qualified name that the base or a commit of
 * the range defined with a top-level `(def NAME …)`, that no module of the head defines, and that a
 * head module still references, is an error at its first use — whichever side removed or renamed it
 * (typically a branch adds a use of a name main renamed, and merges main); and stale references, the
 * same problem seen from a rename or move of this pull request whose old name is used again.
 */
import { lineColumn } from '../../coreform/read.js';
import type { Term } from '../../coreform/term.js';
import { findSymbolSites } from '../../refactor/symbol-sites.js';
import { AuditCode, type AuditCodeValue, type PackageFindings } from '../report/findings.js';
import type { CommitModule, CommitPackageSnapshot } from '../evidence/package-at-commit.js';
import type { RefactorEvidence } from '../evidence/refactor-evidence.js';

const namesByForms = new WeakMap<readonly Term[], string[]>();

/** The names a module defines with top-level `(def NAME …)` forms (memoized by the forms array). */
export function moduleDefinitions(forms: readonly Term[]): string[] {
  let names = namesByForms.get(forms);
  if (names === undefined) {
    names = [];
    for (const f of forms) {
      if (f.kind !== 'pair' || f.car.kind !== 'sym' || f.car.name !== 'def') continue;
      const rest: Term = f.cdr;
      if (rest.kind === 'pair' && rest.car.kind === 'sym') names.push(rest.car.name);
    }
    namesByForms.set(forms, names);
  }
  return names;
}

/** Every name the snapshots' modules define. */
export function definedIn(snapshots: Iterable<CommitPackageSnapshot>): Set<string> {
  const out = new Set<string>();
  const seen = new Set<readonly Term[]>();
  for (const s of snapshots) {
    for (const m of s.modules) {
      if (seen.has(m.forms)) continue;
      seen.add(m.forms);
      for (const n of moduleDefinitions(m.forms)) out.add(n);
    }
  }
  return out;
}

/** The uses of `name` in `modules` that a rename must edit (a byte pre-filter, then the reader's symbol sites). */
export function usesOf(name: string, modules: readonly CommitModule[]): { file: string; line: number }[] {
  const needle = Buffer.from(name, 'utf8');
  const sites: { file: string; line: number }[] = [];
  for (const m of modules) {
    if (Buffer.from(m.bytes.buffer, m.bytes.byteOffset, m.bytes.byteLength).indexOf(needle) < 0) continue;
    let found;
    try {
      found = findSymbolSites(m.bytes, name).filter((s) => s.survives);
    } catch {
      continue; // an unreadable module is reported by the other checks
    }
    for (const site of found) sites.push({ file: m.file, line: lineColumn(m.bytes, site.start).line ?? 1 });
  }
  return sites;
}

/** The first five use sites as `file:line, …`, and how many there are in all when more. */
function describeSites(sites: readonly { file: string; line: number }[]): string {
  return (
    sites
      .slice(0, 5)
      .map((s) => `${s.file}:${s.line}`)
      .join(', ') + (sites.length > 5 ? `, … (${sites.length} in all)` : '')
  );
}

/**
 * When a module of `head` uses `name`, records one error at its first use: `describe` gets all the
 * uses as `file:line, …` and the first one's file, and returns the finding's code, message and title.
 * @returns whether it was recorded.
 */
function failAtFirstUse(
  name: string,
  head: CommitPackageSnapshot,
  out: PackageFindings,
  where: { kind: string; evidence: (file: string) => string; check: string },
  describe: (uses: string, file: string) => { code: AuditCodeValue; message: string; title: string },
): boolean {
  const sites = usesOf(name, head.modules);
  if (sites.length === 0) return false;
  const { file, line } = sites[0]!;
  const { code, message, title } = describe(describeSites(sites), file);
  out.fail(where.kind, where.evidence(file), where.check, { code, message, file, line, title });
  return true;
}

/**
 * Records `audit/dangling-reference` for every name in `formerly` (defined at the base or along the
 * range) that `headDefined` lacks and a module of `head` references.
 * @param skip names another finding already reports (a refactor's stale reference).
 * @returns the names reported.
 */
export function checkDanglingReferences(
  head: CommitPackageSnapshot,
  formerly: ReadonlySet<string>,
  headDefined: ReadonlySet<string>,
  skip: ReadonlySet<string>,
  out: PackageFindings,
): string[] {
  const reported: string[] = [];
  for (const name of [...formerly].sort()) {
    if (headDefined.has(name) || skip.has(name) || !name.includes('::')) continue;
    const found = failAtFirstUse(name, head, out, { kind: 'module', evidence: (file) => file, check: 'references' }, (uses, file) => ({
      code: AuditCode.danglingReference,
      message:
        `${name} is referenced at the head (${uses}) but no module defines it any more (the base or an earlier commit did): ` +
        `a use of the name arrived after it was renamed or removed. Rename the use with a patch (gcpatch apply --patch of a :rename-symbol op on ${file}) or restore the definition`,
      title: 'dangling reference',
    }));
    if (!found) continue;
    reported.push(name);
  }
  return reported;
}

/**
 * A rename or move whose old name is referenced again at the head, although no module defines it,
 * is an error (`audit/refactor-stale-reference`): each commit can be explained (the refactor by its
 * evidence, a merge from main by the structural merge of its parents) while the result calls a
 * definition that no longer exists, because main added a use of the old name in a module the
 * refactor never saw. A rebase shows the same problem as `audit/refactor-replan-differs`.
 * @returns the old names reported (the dangling-reference check skips them).
 */
export function checkStaleReferences(head: CommitPackageSnapshot, refactors: readonly RefactorEvidence[], out: PackageFindings): Set<string> {
  const reported = new Set<string>();
  const moving = refactors.filter((r) => r.verified.safe && (r.request.refactorKind === 'rename' || r.request.refactorKind === 'move'));
  if (moving.length === 0) return reported;
  const defined = definedIn([head]);
  for (const r of moving) {
    const from = r.request.fromSymbol;
    if (from === '' || from === r.request.toSymbol || defined.has(from)) continue;
    const found = failAtFirstUse(from, head, out, { kind: 'refactor-plan', evidence: () => r.address, check: 'no stale reference' }, (uses, file) => ({
      code: AuditCode.refactorStaleReference,
      message:
        `${r.request.refactorKind} ${from} → ${r.request.toSymbol}: the head still references ${from}, which no module defines any more ` +
        `(${uses}); a use of the old name arrived after the refactor (e.g. with a merge from main). Rename the new use with a patch — ` +
        `gcpatch apply --patch of {:op :rename-symbol :module-path "${file.slice(head.dir === '' ? 0 : head.dir.length + 1)}" :from "${from}" :to "${r.request.toSymbol}"} — and commit its evidence`,
      title: 'reference to a refactored-away name',
    }));
    if (!found) continue;
    reported.add(from);
  }
  return reported;
}
