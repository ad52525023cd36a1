/** The static route (`replay: false`): a commit's verified patches explain the modules and manifest keys they name, without being applied. */
import type { CommitEvidence, EvidenceOutcome } from './commit-context.js';
import { manifestKeysNamedByPatch, type ListKey } from '../checks/manifest-keys.js';
import { checkUnappliedPlans } from './replan.js';
import { modulesNamedByPatch } from '../evidence/replay.js';

/** Without replay: the verified patches explain the modules and keys they name; their plans are still re-planned. */
export function namedByEvidence(c: CommitEvidence): EvidenceOutcome {
  const { applies, explanation, out } = c;
  const namedModules = new Set<string>();
  const namedKeys = new Set<string>();
  const removedEntries = new Map<ListKey, Set<string>>();
  for (const a of applies) {
    explanation.evidence.push({ address: a.address, kind: 'apply-report', route: 'not-applied' });
    for (const p of modulesNamedByPatch(a)) if (p !== 'package.toml') namedModules.add(p);
    const named = manifestKeysNamedByPatch(a.patch);
    for (const k of named.keys) namedKeys.add(k);
    for (const [k, set] of named.removed) {
      let s = removedEntries.get(k);
      if (s === undefined) removedEntries.set(k, (s = new Set()));
      for (const e of set) s.add(e);
    }
    out.skip('apply-report', a.address, 'replay', `replay: false — the patch explains the ${namedModules.size} modules it names, not replayed`);
  }
  checkUnappliedPlans(c);
  return { final: undefined, withEvidence: applies.length > 0, anyOnNewParent: false, namedModules, namedKeys, removedEntries };
}
