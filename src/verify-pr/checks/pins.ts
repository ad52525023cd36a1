/** The head's pin check: every module's `hash` pin in `package.toml` is the hash of the module at the head. */
import { AuditCode, type PackageFindings } from '../report/findings.js';
import type { CommitPackageSnapshot } from '../evidence/package-at-commit.js';

/** The 1-based line of a `[[modules]]` entry's `path` (or, with `hash`, of its pin) in the manifest text. */
function manifestLine(snapshot: CommitPackageSnapshot, modulePath: string, key: 'path' | 'hash'): number | undefined {
  const lines = snapshot.manifestText.split('\n');
  const at = lines.findIndex((l) => new RegExp(`^\\s*path\\s*=\\s*${JSON.stringify(modulePath).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*$`).test(l));
  if (at < 0) return undefined;
  if (key === 'path') return at + 1;
  for (let i = at; i >= 0 && (i === at || !/^\s*\[/.test(lines[i]!)); i--) if (/^\s*hash\s*=/.test(lines[i]!)) return i + 1;
  for (let i = at + 1; i < lines.length && !/^\s*\[/.test(lines[i]!); i++) if (/^\s*hash\s*=/.test(lines[i]!)) return i + 1;
  return at + 1;
}

/** Records `audit/pin-mismatch` for each module whose pin is not its hash at the head, or one pass row. */
export function checkPins(head: CommitPackageSnapshot, out: PackageFindings): void {
  let ok = 0;
  for (const m of head.modules) {
    if (m.pin === m.hash) {
      ok++;
      continue;
    }
    const line = manifestLine(head, m.path, 'hash');
    out.fail('pins', m.path, 'head pin', {
      code: AuditCode.pinMismatch,
      message:
        m.pin === undefined || m.pin === ''
          ? `${head.manifestPath} has no hash pin for ${m.path} (module hash ${m.hash}); run \`gcpatch pack\` (after a merge: \`gcpatch driver repin\`) and commit`
          : `${head.manifestPath} pins ${m.path} to ${m.pin.slice(0, 12)}…, but the module at the head hashes to ${m.hash.slice(0, 12)}…; after a merge where only one side re-pinned the module, run \`gcpatch driver repin\` and commit; a change made by hand: make it with gcpatch apply / refactor apply, or re-pin with \`gcpatch pack\``,
      file: head.manifestPath,
      ...(line !== undefined ? { line } : {}),
      title: 'pin mismatch',
    });
  }
  if (ok === head.modules.length) out.pass('pins', 'package.toml', 'head pins', `${ok} module pins match`);
}
