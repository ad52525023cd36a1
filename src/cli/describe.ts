/**
 * Human descriptions for `gcpatch diff` and `gcpatch merge`: definitions named by their text
 * (`(def ledger/core::total …)`), module and line, and which side deleted or changed what — in
 * place of form indexes and shortened hashes. Text output only; `--json` keeps the reports.
 */
import { readFileSync } from 'node:fs';
import { defName } from '../coreform/forms.js';
import { printTerm } from '../coreform/print.js';
import { modulePathOnDisk } from '../workspace/path.js';
import { lineColumn, readModule } from '../coreform/read.js';
import type { Term, VecTerm } from '../coreform/term.js';
import type { WorkspaceSource } from '../git/source.js';
import type { MergeConflict } from '../merge/report.js';

/** Longest label printed for a form that is not a definition, in characters. */
const LABEL_WIDTH = 60;

/**
 * A short label for a top-level form: `(def NAME …)` for a definition, else the form's one-line
 * print cut to 60 characters with `…`.
 */
export function formLabel(form: Term | undefined): string {
  if (form === undefined) return '(no form)';
  const name = defName(form);
  if (name !== undefined) return `(def ${name} …)`;
  const flat = printTerm(form).replace(/\s+/g, ' ');
  const chars = [...flat];
  return chars.length <= LABEL_WIDTH ? flat : chars.slice(0, LABEL_WIDTH - 1).join('') + '…';
}

/**
 * The 1-based line of top-level form `formIndex` of `modulePath` in a side read from a directory,
 * or undefined (a git revision, an unreadable file). Form indexes of the canonical workspace and
 * of the source are the same: canonicalization is form by form.
 */
export function formLine(side: WorkspaceSource | undefined, modulePath: string, formIndex: number): number | undefined {
  if (side === undefined || side.origin !== 'directory') return undefined;
  try {
    const bytes = readFileSync(modulePathOnDisk(side.packageDir, modulePath));
    const form = readModule(bytes).forms[formIndex];
    return form === undefined ? undefined : lineColumn(bytes, form.start).line;
  } catch {
    return undefined;
  }
}

function formsOf(side: WorkspaceSource, path: string): VecTerm | undefined {
  return side.workspace.byPath.get(path);
}

/** `path:line` when the line is known, else `path`. */
function at(path: string, line: number | undefined): string {
  return line === undefined ? path : `${path}:${line}`;
}

/**
 * One conflict of a merge, in words: where (module, line in the left side when it is a
 * directory), which definition, and what each side did.
 */
export function describeConflict(c: MergeConflict, sides: { base: WorkspaceSource; left: WorkspaceSource; right: WorkspaceSource }): string[] {
  const base = formsOf(sides.base, c.modulePath);
  const left = formsOf(sides.left, c.modulePath);
  const right = formsOf(sides.right, c.modulePath);
  const n = (v: VecTerm | undefined): string => (v === undefined ? 'absent' : `${v.items.length} form${v.items.length === 1 ? '' : 's'}`);
  switch (c.code) {
    case 'form/divergent-edit': {
      const i = c.formIndex ?? 0;
      const line = formLine(sides.left, c.modulePath, i) ?? formLine(sides.right, c.modulePath, i);
      const was = formLabel(base?.items[i]);
      const l = formLabel(left?.items[i]);
      const r = formLabel(right?.items[i]);
      const what = l === was && r === was ? was : `${was} (left: ${l}, right: ${r})`;
      return [`${at(c.modulePath, line)} ${what}: left and right both changed it, differently`];
    }
    case 'module/delete-modify': {
      const deleted = left === undefined ? 'left' : 'right';
      const changed = deleted === 'left' ? 'right' : 'left';
      return [
        `${c.modulePath}: ${deleted} deleted the module; ${changed} changed it (${n(base)} in base, ${n(deleted === 'left' ? right : left)} on ${changed})`,
      ];
    }
    case 'module/divergent-add':
      return [`${c.modulePath}: left and right both added the module, differently (left ${n(left)}, right ${n(right)})`];
    case 'module/structural-divergence': {
      const defs = (v: VecTerm | undefined): Set<string> => new Set((v?.items ?? []).map(formLabel));
      const b = defs(base);
      const change = (v: VecTerm | undefined): string => {
        const s = defs(v);
        const added = [...s].filter((x) => !b.has(x));
        const removed = [...b].filter((x) => !s.has(x));
        const parts = [...added.map((x) => `+${x}`), ...removed.map((x) => `-${x}`)];
        return parts.length === 0 ? `${n(v)}` : `${n(v)}: ${parts.join(' ')}`;
      };
      return [
        `${c.modulePath}: left and right changed the module's forms incompatibly (base ${n(base)})`,
        `    left  ${change(left)}`,
        `    right ${change(right)}`,
      ];
    }
    default:
      return [`${c.modulePath}: ${c.code}`];
  }
}

/**
 * The label of a replace-node op of a diff: the module with the line of the form in the target
 * (when read from a directory) and `(def NAME …)`, or `(def OLD …) -> (def NEW …)` when the
 * form's head changed.
 */
export function describeReplacement(path: string, formIndex: number, base: WorkspaceSource | undefined, target: WorkspaceSource | undefined): string {
  const before = base === undefined ? undefined : formLabel(formsOf(base, path)?.items[formIndex]);
  const after = target === undefined ? undefined : formLabel(formsOf(target, path)?.items[formIndex]);
  const line = formLine(target, path, formIndex);
  const what = before === undefined ? (after ?? '') : after === undefined || after === before ? before : `${before} -> ${after}`;
  return `${at(path, line)} ${what}`.trimEnd();
}
