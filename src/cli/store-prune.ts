/** CLI command `gcpatch store prune` (docs/patches.md "Pruning the store"). Thin: gather the roots, plan, remove under the package lock, render. */
import type { Command } from 'commander';
import { basename, dirname } from 'node:path';
import { readFileSync } from 'node:fs';
import { runGit } from '../git/exec.js';
import { withPackageLock } from '../patch/guard.js';
import { loadPackageState, packPackageState } from '../patch/apply/host.js';
import { applyPrune, planPrune } from '../store/prune.js';
import { EvidenceStore } from '../store/store.js';
import { discoverManifest } from '../workspace/discover.js';
import { addPackageOptions, printJson, type CliContext } from './context.js';
import { exitHelp } from './exit-help.js';

/** Store entries git tracks or has staged (their names), none outside a repository. */
function committedEntries(store: EvidenceStore): string[] {
  const r = runGit(['ls-files', '-z', '--', '.'], { cwd: store.dir });
  if (r.status !== 0) return [];
  return r.stdout
    .split('\0')
    .filter((p) => p !== '')
    .map((p) => basename(p));
}

/** The address of the package record of the package as it is on disk, when it loads. */
function currentRecord(manifestFile: string): string[] {
  try {
    const dir = dirname(manifestFile);
    return [packPackageState(dir, loadPackageState(dir, readFileSync(manifestFile, 'utf8'), manifestFile)).packageArtifact];
  } catch {
    return [];
  }
}

/** Registers `store prune` on the `store` command group. */
export function registerStorePruneCommand(store: Command, ctx: CliContext): void {
  const prune = store
    .command('prune')
    .description(
      "Remove the store entries nothing live references — typically a failed apply's report, acceptance, package\n" +
        'record and patch. Live: entries git tracks or has staged, the addresses in last_acceptance, last_signature,\n' +
        'transparency_head and signatures.gc, apply reports with :ok true, refactor plans and requests, signatures,\n' +
        'transparency entries, the record of the package as it is, and whatever those name. Lists what it would\n' +
        'remove and removes nothing unless --yes (under the package lock; a crash mid-way leaves no dangling\n' +
        'reference). ' +
        exitHelp([
          ['ok', 'done'],
          ['io', 'when a removal fails or the package is locked'],
        ]) +
        '.',
    )
    .option('--yes', 'remove the entries (default: only list them)');
  addPackageOptions(prune).action((opts: { pkg?: string; json?: boolean; yes?: boolean }) => {
    const manifestFile = discoverManifest(opts.pkg);
    const dir = dirname(manifestFile);
    const st = EvidenceStore.forPackage(dir);
    const plan = withPackageLock(dir, { waitMs: 0, command: 'store prune' }, () => {
      const p = planPrune(st, [...committedEntries(st), ...currentRecord(manifestFile)]);
      if (opts.yes) applyPrune(st, p);
      return p;
    });
    const removed = opts.yes === true;
    if (opts.json) {
      printJson(ctx, { ok: true, dryRun: !removed, total: plan.total, kept: plan.kept, bytes: plan.bytes, entries: plan.remove });
      return;
    }
    if (plan.remove.length === 0) {
      ctx.stdout(`nothing to prune: all ${plan.total} entries are referenced\n`);
      return;
    }
    const n = plan.remove.length;
    ctx.stdout(
      `${removed ? 'removed' : 'would remove'} ${n} of ${plan.total} entries (${plan.bytes} bytes) that nothing live references:\n` +
        plan.remove.map((e) => `  ${e.hex}  ${e.kind}${e.summary ? `  ${e.summary}` : ''}\n`).join('') +
        (removed ? '' : 'nothing removed; run `gcpatch store prune --yes` to remove them\n'),
    );
  });
}
