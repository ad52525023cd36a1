/** The capability-policy check of one commit: the effective policy (`caps_policy`) and every other policy file, never widened (`caps-policy.ts` compares). */
import { comparePolicies } from './caps-policy.js';
import type { CommitCheck } from '../walk/commit-context.js';
import { AuditCode } from '../report/findings.js';
import { keyItem, policyItem } from './net-change.js';
import { capsPolicyPath, repoPath } from '../evidence/package-at-commit.js';

/** Judges the capability policy files: the effective policy (`caps_policy`) and every other policy file. */
export function checkPolicies(c: CommitCheck): void {
  const { at, now, start, explanation, out, result } = c;
  const refBefore = capsPolicyPath(start.state.manifest);
  const refAfter = capsPolicyPath(now.table);
  const textAt = (path: string | undefined): string | undefined => (path === undefined ? undefined : now.policies.get(path)?.text);
  const judge = (
    label: string,
    file: string,
    path: string | undefined,
    before: string | undefined,
    after: string | undefined,
    alternatives: readonly (string | undefined)[] | undefined,
  ): void => {
    if (before === after || alternatives?.some((a) => a === after)) return;
    const cmp = comparePolicies(before, after);
    if (cmp.widened.length > 0 || cmp.changed.length > 0) c.dirty.add(path === undefined ? keyItem('caps_policy') : policyItem(path));
    if (cmp.widened.length > 0) {
      result.mismatches.add('package.toml');
      explanation.mismatched.push(file);
      out.fail('policy', file, 'not widened', {
        code: AuditCode.capsWidened,
        message: `${file}: ${at} widens ${label}: ${cmp.widened.slice(0, 6).join('; ')}${cmp.widened.length > 6 ? ` (${cmp.widened.length} in all)` : ''}; a capability policy may only be widened on the base branch, reviewed`,
        file,
        title: 'capabilities widened',
      });
    } else if (cmp.changed.length > 0) {
      explanation.unexplained.push(file);
      out.fail('policy', file, 'unchanged', {
        code: AuditCode.capsChanged,
        severity: 'warning',
        message: `${file}: ${at} changes ${label} (${cmp.changed.slice(0, 6).join('; ')}) without widening it`,
        file,
        title: 'capabilities changed',
      });
    }
  };
  if (refBefore !== refAfter) {
    // repointed: the policy the package now runs under, against the one it ran under
    judge(
      `the package's capability policy (caps_policy ${JSON.stringify(refBefore ?? null)} → ${JSON.stringify(refAfter ?? null)})`,
      refAfter !== undefined ? repoPath(c.dir, refAfter) : now.manifestPath,
      refAfter,
      refBefore === undefined ? undefined : start.policies.get(refBefore),
      textAt(refAfter),
      undefined,
    );
  }
  // every policy file against its own earlier text (the one no longer referenced too: it is still a
  // policy a checkout holds), except the newly referenced one, judged above
  const paths = new Set([...start.policies.keys(), ...now.policies.keys()]);
  for (const path of [...paths].sort()) {
    if (path === refAfter && refAfter !== refBefore) continue;
    const label = path === refAfter ? "the package's capability policy" : `the policy file ${path}`;
    judge(label, repoPath(c.dir, path), path, start.policies.get(path), textAt(path), start.policyAlternatives.get(path));
  }
}
