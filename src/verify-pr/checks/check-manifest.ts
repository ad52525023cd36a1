/** The manifest check of one commit: keys the evidence set, hand changes judged by the key table, removed obligations, tests and property tests. */
import type { TomlTable } from '../../workspace/manifest-write.js';
import type { CommitCheck } from '../walk/commit-context.js';
import { AuditCode } from '../report/findings.js';
import { judgeKeyChange, LIST_KEYS, listEntries } from './manifest-keys.js';
import { keyItem } from './net-change.js';
import { manifestDifferences } from '../evidence/replay.js';

/** Judges the manifest: keys the evidence set, hand changes by the key table, removed list entries. */
export function checkManifest(c: CommitCheck): void {
  const { at, now, start, ev, explanation, touchedBefore, out, result } = c;
  const startTable = start.state.manifest;
  const expected: TomlTable = ev.final?.manifest ?? startTable;
  const evidenceKeys = ev.final !== undefined ? new Set(manifestDifferences(startTable, ev.final.manifest)) : ev.namedKeys;
  // a key a two-parent merge really conflicted on may be either side's; every other key is judged
  const differing = manifestDifferences(expected, now.table).filter(
    (k) => evidenceKeys.has(k) || !(start.keyAlternatives.get(k) ?? []).some((t) => !manifestDifferences(t, now.table).includes(k)),
  );
  const baseTable = c.base.table;
  if (ev.final !== undefined) {
    // keys evidence of this commit (or earlier in the pull request) set, changed again by hand (unless restored to the base)
    const contradicted = differing.filter(
      (k) => evidenceKeys.has(k) || (touchedBefore.has(`package.toml:${k}`) && manifestDifferences(baseTable, now.table).includes(k)),
    );
    if (contradicted.length > 0) {
      for (const k of contradicted) c.dirty.add(keyItem(k));
      result.mismatches.add('package.toml');
      explanation.mismatched.push('package.toml');
      out.fail('manifest', 'package.toml', 'replay', {
        code: AuditCode.replayManifestMismatch,
        message: `${now.manifestPath}: in ${at}, ${contradicted.join(', ')} differ${contradicted.length === 1 ? 's' : ''} from the manifest the evidence of this pull request produces`,
        file: now.manifestPath,
        title: 'manifest differs',
      });
    }
  }
  if (ev.withEvidence) for (const k of evidenceKeys) touchedBefore.add(`package.toml:${k}`);
  for (const k of differing) {
    if (ev.final === undefined ? evidenceKeys.has(k) : evidenceKeys.has(k) || touchedBefore.has(`package.toml:${k}`)) continue;
    c.dirty.add(keyItem(k));
    if (k === 'modules') {
      result.unexplained.add('package.toml');
      explanation.unexplained.push('package.toml');
      out.fail('manifest', 'package.toml', 'explained', {
        code: AuditCode.unexplainedChange,
        severity: 'warning',
        message: `${now.manifestPath}: ${at} changes the [[modules]] list (paths or order) and no evidence explains the change`,
        file: now.manifestPath,
        title: 'unexplained change',
      });
      continue;
    }
    const verdict = judgeKeyChange(k, expected[k], now.table[k]);
    if (verdict === undefined) continue;
    if (verdict.severity === 'error') {
      result.mismatches.add('package.toml');
      explanation.mismatched.push('package.toml');
    } else {
      explanation.unexplained.push('package.toml');
    }
    const line = keyLine(now.manifestText, k);
    out.fail('manifest', 'package.toml', k, {
      code: verdict.code,
      severity: verdict.severity,
      message:
        `${now.manifestPath}: ${at} changes ${verdict.detail} and no evidence explains it` +
        (verdict.severity === 'error'
          ? '; this weakens what the package is checked against: make the change with an update-manifest patch (gcpatch apply) or revert it'
          : k === 'caps_policy'
            ? ' (repoint it with an update-manifest :caps-policy patch to carry evidence)'
            : ' (make it with an update-manifest :set patch to carry evidence)'),
      file: now.manifestPath,
      ...(line !== undefined ? { line } : {}),
      title: verdict.title,
    });
  }

  // Obligations, test suites and property tests: removing one needs evidence.
  for (const key of LIST_KEYS) {
    const declared = start.lists.get(key) ?? new Set<string>();
    const kept = new Set(listEntries(now.table, key));
    const removedByEvidence =
      ev.final !== undefined
        ? new Set(listEntries(startTable, key).filter((e) => !listEntries(ev.final!.manifest, key).includes(e)))
        : (ev.removedEntries.get(key) ?? new Set<string>());
    for (const name of [...declared].sort()) {
      if (kept.has(name) || removedByEvidence.has(name)) continue;
      c.dirty.add(keyItem(key));
      result.mismatches.add('package.toml');
      explanation.mismatched.push('package.toml');
      const line = lineOf(now.manifestText, key) ?? keyLine(now.manifestText, key);
      const what = key === 'obligations' ? 'the declared obligation' : key === 'tests' ? 'the test suite' : 'the property test';
      out.fail('manifest', 'package.toml', key, {
        code: AuditCode.obligationsWeakened,
        message: `${now.manifestPath}: ${at} removes ${what} ${name} by hand; only evidence may remove it (gcpatch apply of an update-manifest op with :${key === 'tests' ? 'tests' : 'obligations'}-remove), or restore it`,
        file: now.manifestPath,
        ...(line !== undefined ? { line } : {}),
        title: `${key === 'obligations' ? 'obligation' : key === 'tests' ? 'test suite' : 'property test'} removed`,
      });
    }
  }
}

/** The 1-based line of top-level key `key` (or of its `[key]` table header) in manifest text. */
function keyLine(text: string, key: string): number | undefined {
  const lines = text.split('\n');
  const esc = key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const i = lines.findIndex((l) => new RegExp(`^\\s*(${esc}\\s*=|\\[\\s*${esc}\\s*\\])`).test(l));
  return i < 0 ? undefined : i + 1;
}

function lineOf(text: string, needle: string): number | undefined {
  const i = text.split('\n').findIndex((l) => l.includes(JSON.stringify(needle)));
  return i < 0 ? undefined : i + 1;
}
