// The semantic changes between two package snapshots by definition: added, removed, changed, renamed, moved, `::meta` lists and manifest keys.
import { termsEqual, type Term } from '../coreform/term.js';
import { compareUtf8 } from '../util/bytes.js';
import { manifestDifferences, type CommitPackageSnapshot, type Relocation } from './evidence.js';
import { definitions, formsOf, metaLists, type MetaList } from './forms.js';

/** One semantic change of a commit (docs/audit.md "What log shows"). Module paths are package-relative. */
export type SemanticChange =
  | { kind: 'module-added' | 'module-removed'; module: string; symbols: string[] }
  | { kind: 'added' | 'removed' | 'changed'; module: string; key: string; symbol: string | undefined }
  | { kind: 'renamed' | 'moved'; module: string; symbol: string; from: { symbol: string; module: string }; byEvidence: boolean }
  | { kind: MetaList; module: string; added: string[]; removed: string[] }
  | { kind: 'manifest'; keys: string[] };

function sorted(xs: Iterable<string>): string[] {
  return [...xs].sort(compareUtf8);
}

function defSymbols(forms: readonly Term[]): string[] {
  return formsOf(forms).flatMap((f) => (f.key.startsWith('def:') ? [f.symbol!] : []));
}

/**
 * The changes from `before` to `after` (canonical forms decide: a reformat is no change).
 * Definitions are matched by symbol across the package; `relocations` (the commit's rename and move
 * evidence) link an old symbol to a new one; a definition that keeps its symbol but changes module
 * is a move without evidence. `::meta` changes show as set changes of `:exports`, `:imports` and
 * `:caps` (any other change of the form as `changed ::meta`); other top-level forms by their place.
 * @returns changes in a stable order: module list, manifest keys, then by module and symbol (UTF-8 order).
 */
export function semanticChanges(before: CommitPackageSnapshot, after: CommitPackageSnapshot, relocations: readonly Relocation[]): SemanticChange[] {
  const out: SemanticChange[] = [];
  const beforePaths = new Set(before.byPath.keys());
  const afterPaths = new Set(after.byPath.keys());
  for (const p of sorted(afterPaths)) if (!beforePaths.has(p)) out.push({ kind: 'module-added', module: p, symbols: defSymbols(after.byPath.get(p)!.forms) });
  for (const p of sorted(beforePaths))
    if (!afterPaths.has(p)) out.push({ kind: 'module-removed', module: p, symbols: defSymbols(before.byPath.get(p)!.forms) });
  const keys = manifestDifferences(before.table, after.table);
  if (keys.length > 0) out.push({ kind: 'manifest', keys });

  const byModule: SemanticChange[] = [];
  const old = definitions(before);
  const now = definitions(after);
  const consumed = new Set<string>();
  for (const [symbol, at] of now) {
    if (!afterPaths.has(at.module) || !beforePaths.has(at.module)) {
      // in a module added by this commit: listed by module-added, unless evidence moved it there
      const r = relocations.find((x) => x.to === symbol && old.has(x.from) && !now.has(x.from));
      if (r !== undefined) {
        consumed.add(r.from);
        byModule.push({
          kind: r.refactorKind === 'move' ? 'moved' : 'renamed',
          module: at.module,
          symbol,
          from: { symbol: r.from, module: old.get(r.from)!.module },
          byEvidence: true,
        });
      }
      continue;
    }
    const was = old.get(symbol);
    if (was === undefined) {
      const r = relocations.find((x) => x.to === symbol && old.has(x.from) && !now.has(x.from));
      if (r !== undefined) {
        consumed.add(r.from);
        const from = old.get(r.from)!;
        byModule.push({
          kind: from.module === at.module && r.refactorKind === 'rename' ? 'renamed' : 'moved',
          module: at.module,
          symbol,
          from: { symbol: r.from, module: from.module },
          byEvidence: true,
        });
      } else byModule.push({ kind: 'added', module: at.module, key: at.form.key, symbol });
    } else if (was.module !== at.module) {
      byModule.push({ kind: 'moved', module: at.module, symbol, from: { symbol, module: was.module }, byEvidence: false });
    } else if (!termsEqual(was.form.term, at.form.term)) {
      byModule.push({ kind: 'changed', module: at.module, key: at.form.key, symbol });
    }
  }
  for (const [symbol, was] of old) {
    if (now.has(symbol) || consumed.has(symbol) || !afterPaths.has(was.module)) continue;
    byModule.push({ kind: 'removed', module: was.module, key: was.form.key, symbol });
  }
  // ::meta and the forms that define nothing, module by module
  for (const p of sorted(afterPaths)) {
    if (!beforePaths.has(p)) continue;
    const a = before.byPath.get(p)!.forms;
    const b = after.byPath.get(p)!.forms;
    if (a === b) continue;
    const fa = formsOf(a).filter((f) => !f.key.startsWith('def:'));
    const fb = formsOf(b).filter((f) => !f.key.startsWith('def:'));
    const metaA = fa.find((f) => f.key === 'meta');
    const metaB = fb.find((f) => f.key === 'meta');
    if (metaA === undefined || metaB === undefined || !termsEqual(metaA.term, metaB.term)) {
      const la = metaLists(metaA?.term);
      const lb = metaLists(metaB?.term);
      let listed = false;
      for (const list of ['exports', 'imports', 'caps'] as const) {
        const added = sorted(lb[list].filter((s) => !la[list].includes(s)));
        const removed = sorted(la[list].filter((s) => !lb[list].includes(s)));
        if (added.length + removed.length === 0) continue;
        listed = true;
        byModule.push({ kind: list, module: p, added, removed });
      }
      if (!listed && (metaA !== undefined || metaB !== undefined)) {
        byModule.push({ kind: metaA === undefined ? 'added' : metaB === undefined ? 'removed' : 'changed', module: p, key: 'meta', symbol: '::meta' });
      }
    }
    const others = new Set([...fa, ...fb].map((f) => f.key).filter((k) => k !== 'meta'));
    for (const key of others) {
      const x = fa.find((f) => f.key === key);
      const y = fb.find((f) => f.key === key);
      if (x !== undefined && y !== undefined && termsEqual(x.term, y.term)) continue;
      byModule.push({ kind: x === undefined ? 'added' : y === undefined ? 'removed' : 'changed', module: p, key, symbol: undefined });
    }
  }
  const name = (c: SemanticChange): string => ('symbol' in c && typeof c.symbol === 'string' ? c.symbol : 'key' in c ? c.key : c.kind);
  byModule.sort((x, y) => compareUtf8((x as { module: string }).module, (y as { module: string }).module) || compareUtf8(name(x), name(y)));
  return [...out, ...byModule];
}

/** True when `change` concerns module `module` (package-relative), on either side of a move. */
export function touchesModule(change: SemanticChange, module: string): boolean {
  if (change.kind === 'manifest') return false;
  return change.module === module || ((change.kind === 'renamed' || change.kind === 'moved') && change.from.module === module);
}

/** True when `change` concerns definition `symbol` (under its new or old name, or in a module added or removed). */
export function touchesSymbol(change: SemanticChange, symbol: string): boolean {
  switch (change.kind) {
    case 'manifest':
      return false;
    case 'module-added':
    case 'module-removed':
      return change.symbols.includes(symbol);
    case 'renamed':
    case 'moved':
      return change.symbol === symbol || change.from.symbol === symbol;
    case 'exports':
    case 'imports':
    case 'caps':
      return change.added.includes(symbol) || change.removed.includes(symbol);
    default:
      return change.symbol === symbol;
  }
}
