/** The module check of one commit: each module against what its start state and evidence give (explained, unexplained, contradicted, hidden hand edit). */
import type { Term } from '../../coreform/term.js';
import { termsEqual } from '../../coreform/term.js';
import { formsEqual } from '../../coreform/forms.js';
import { manifestModulePaths } from '../../patch/protocol/state.js';
import type { CommitCheck } from '../walk/commit-context.js';
import { AuditCode } from '../report/findings.js';
import { repoPath, type CommitModule } from '../evidence/package-at-commit.js';
import { firstDifferingLine } from '../evidence/replay.js';
import { moduleItem } from './net-change.js';

type Forms = readonly Term[];

/** Compares each module of the commit with what its start state and evidence give. */
export function checkModules(c: CommitCheck): { explainedHere: Set<string>; hidden: number } {
  const { at, now, start, ev, explanation, touchedBefore, dir, out, result } = c;
  const final = ev.final;
  const finalPaths = final === undefined ? undefined : new Set(manifestModulePaths(final.manifest));
  const startPaths = new Set(manifestModulePaths(start.state.manifest));
  const paths = [...new Set([...(finalPaths ?? []), ...startPaths, ...now.byPath.keys()])].sort();
  const explainedHere = new Set<string>();
  let hidden = 0;
  const mergeWords = start.merge ? 'or merge of the parents ' : '';
  for (const path of paths) {
    const h = now.byPath.get(path);
    const b = startPaths.has(path) ? start.state.modules.get(path) : undefined;
    const r = final === undefined ? (ev.namedModules.has(path) ? h?.forms : b) : finalPaths!.has(path) ? final.modules.get(path) : undefined;
    const file = h?.file ?? repoPath(dir, path);
    if (formsEqual(r, h?.forms)) {
      if (!formsEqual(b, h?.forms)) {
        explainedHere.add(path);
        result.explainedByEvidence.add(path);
      }
      continue;
    }
    const alts = start.alternatives.get(path);
    if (alts !== undefined && formsEqual(r, b) && alts.some((a) => formsEqual(a, h?.forms))) {
      out.pass('module', path, 'merge', `${at}: merge conflict resolved to one parent's version`);
      continue;
    }
    const line = (m: CommitModule | undefined, expected: Forms | undefined): number | undefined =>
      m !== undefined && expected !== undefined ? firstDifferingLine(m, expected) : undefined;
    if (!formsEqual(r, b)) {
      // evidence changed this module, the commit has something else
      c.dirty.add(moduleItem(path));
      result.mismatches.add(path);
      explanation.mismatched.push(path);
      const l = line(h, r);
      out.fail('module', path, 'replay', {
        code: AuditCode.replayModuleMismatch,
        message: `${file}: ${at} differs from replaying its evidence (${describe(h?.forms, r)}); a change not produced by the recorded patch, e.g. a hand edit made in the same commit`,
        file,
        ...(l !== undefined ? { line: l } : {}),
        title: 'replay differs',
      });
      continue;
    }
    const l = line(h, b);
    const restoresBase = formsEqual(h?.forms, c.base.byPath.get(path)?.forms);
    c.dirty.add(moduleItem(path));
    if (touchedBefore.has(path) && !restoresBase) {
      hidden++;
      result.mismatches.add(path);
      explanation.mismatched.push(path);
      out.fail('module', path, 'replay', {
        code: AuditCode.replayModuleMismatch,
        message: `${file}: ${at} changes a module that evidence earlier in this pull request changed, and no evidence ${mergeWords}explains the change (${describe(h?.forms, b)}): a hand edit hidden after the evidence; redo it as a patch or refactor`,
        file,
        ...(l !== undefined ? { line: l } : {}),
        title: 'replay differs',
      });
      continue;
    }
    result.unexplained.add(path);
    explanation.unexplained.push(path);
    out.fail('module', path, 'explained', {
      code: AuditCode.unexplainedChange,
      severity: 'warning',
      message: `${file}: ${at} changes it (${describe(h?.forms, b)}) and no evidence in this pull request ${mergeWords}explains the change${restoresBase && touchedBefore.has(path) ? ' (it restores the base version: a revert)' : ''}${alts !== undefined && start.parents > 2 ? ' (an octopus merge must give what merging its parents gives)' : ''}`,
      file,
      ...(l !== undefined ? { line: l } : {}),
      title: 'unexplained change',
    });
  }
  return { explainedHere, hidden };
}

function describe(head: Forms | undefined, expected: Forms | undefined): string {
  if (head === undefined) return 'the module is absent';
  if (expected === undefined) return 'the module should not exist';
  if (head.length !== expected.length) return `${head.length} top-level forms, ${expected.length} expected`;
  const i = head.findIndex((f, k) => !termsEqual(f, expected[k]!));
  return `top-level form ${i + 1} differs`;
}
