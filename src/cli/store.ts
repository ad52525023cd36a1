/** CLI commands over the evidence store: `store ls|show|verify`. Thin: call the store, render. */
import type { Command } from 'commander';
import { dirname } from 'node:path';
import { termToJson } from '../coreform/json.js';
import { printTerm } from '../coreform/print.js';
import { readTerm } from '../coreform/read.js';
import { ExitCode } from '../util/errors.js';
import { stringifyJson } from '../util/json.js';
import { resolveManifestPath } from '../workspace/package.js';
import { EvidenceStore } from '../store/store.js';
import type { CliContext } from './context.js';

function storeOf(pkg: string): EvidenceStore {
  return EvidenceStore.forPackage(dirname(resolveManifestPath(pkg)));
}

/** Registers `store ls`, `store show` and `store verify` on `program`. */
export function registerStoreCommands(program: Command, ctx: CliContext): void {
  const store = program.command('store').summary('list, show and verify evidence-store entries').description('The evidence store <pkg>/.genesis/store (content-addressed, write-once).');

  store
    .command('ls')
    .description('List store entries (64-hex names, sorted) with their sizes in bytes.')
    .option('--pkg <path>', 'package.toml or its directory', '.')
    .option('--json', 'machine-readable output')
    .action((opts: { pkg: string; json?: boolean }) => {
      const entries = storeOf(opts.pkg).list();
      if (opts.json) ctx.stdout(stringifyJson({ ok: true, entries }, 2) + '\n');
      else for (const e of entries) ctx.stdout(`${e.hex}  ${e.size}\n`);
    });

  store
    .command('show')
    .description('Print one entry after checking its hash (exit 50 when missing or corrupt).')
    .argument('<hex>', 'store address')
    .option('--pkg <path>', 'package.toml or its directory', '.')
    .option('--json', 'machine-readable output (the entry as a term)')
    .action((hex: string, opts: { pkg: string; json?: boolean }) => {
      const bytes = storeOf(opts.pkg).get(hex);
      if (opts.json) ctx.stdout(stringifyJson({ ok: true, hex, term: termToJson(readTerm(bytes)) }, 2) + '\n');
      else ctx.stdout(printTerm(readTerm(bytes)) + '\n');
    });

  store
    .command('verify')
    .description(
      'Re-hash one entry, or the whole store: every name in it is checked (a symlink, a directory or a\n' +
        'junk-named file is core/store/corruption) and every entry re-hashed in name order; all failures are reported.\n' +
        'Codes: core/store/not-found, core/store/corruption, core/store/io-error, core/caps/resource-limit. Exit 0 or 50.',
    )
    .argument('[hex]', 'one store address (default: the whole store)')
    .option('--pkg <path>', 'package.toml or its directory', '.')
    .option('--json', 'machine-readable output')
    .action((hex: string | undefined, opts: { pkg: string; json?: boolean }) => {
      const r = storeOf(opts.pkg).verify(hex);
      if (!r.ok) ctx.exitCode = ExitCode.verificationFailed;
      if (opts.json) {
        const json = { ok: r.ok, checked: r.checked, total_bytes: r.totalBytes, failure: r.failure ?? null, failures: r.failures, skipped_temp: r.skippedTemp };
        ctx.stdout(stringifyJson(json, 2) + '\n');
        return;
      }
      if (r.ok) ctx.stdout(`ok: ${r.checked} entries verified (${r.totalBytes} bytes)\n`);
      for (const f of r.failures) ctx.stderr(`${f.hex ?? '.genesis/store'}: ${f.code}: ${f.message}\n`);
      if (!r.ok) ctx.stderr(`${r.failures.length} store failure(s); ${r.checked} entries verified\n`);
    });
}
