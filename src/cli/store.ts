/** CLI commands over the evidence store: `store ls|show|verify`. Thin: call the store, render. */
import type { Command } from 'commander';
import { dirname } from 'node:path';
import { termToJson } from '../coreform/json.js';
import { printTerm } from '../coreform/print.js';
import { readTerm } from '../coreform/read.js';
import { ExitCode } from '../util/errors.js';
import { discoverManifest } from '../workspace/discover.js';
import { EvidenceStore } from '../store/store.js';
import { describeEntry, resolveStoreAddress } from '../store/prefix.js';
import { addPackageOptions, PKG_OPTION, printJson, type CliContext } from './context.js';
import { registerStorePruneCommand } from './store-prune.js';
import { exitHelp } from './exit-help.js';

function storeOf(pkg: string | undefined): EvidenceStore {
  return EvidenceStore.forPackage(dirname(discoverManifest(pkg)));
}

/** Registers `store ls`, `store show` and `store verify` on `program`. */
export function registerStoreCommands(program: Command, ctx: CliContext): void {
  const store = program
    .command('store')
    .summary('list, show and verify evidence-store entries')
    .description('The evidence store <pkg>/.genesis/store (content-addressed, write-once).');

  const ls = store
    .command('ls')
    .description(
      'List store entries (sorted by address): address, kind and a one-line summary (intent, refactor from -> to,\n' +
        "package and version, ok). --json adds each entry's size in bytes. Any unique prefix of 8+ hex digits of an\n" +
        'address works wherever gcpatch takes one.',
    );
  addPackageOptions(ls).action((opts: { pkg?: string; json?: boolean }) => {
    const st = storeOf(opts.pkg);
    const entries = st.list().map((e) => ({ ...e, ...describeEntry(st, e.hex) }));
    if (opts.json) printJson(ctx, { ok: true, entries });
    else for (const e of entries) ctx.stdout(`${e.hex}  ${e.kind}${e.summary ? `  ${e.summary}` : ''}\n`);
  });

  store
    .command('show')
    .description(`Print one entry after checking its hash (exit ${ExitCode.verificationFailed} when missing or corrupt).`)
    .argument('<hex>', 'store address (or a unique prefix of 8+ hex digits)')
    .option('--pkg <path>', PKG_OPTION)
    .option('--json', 'machine-readable output (the entry as a term)')
    .action((hex: string, opts: { pkg?: string; json?: boolean }) => {
      const st = storeOf(opts.pkg);
      const address = resolveStoreAddress(st, hex);
      const bytes = st.get(address);
      if (opts.json) printJson(ctx, { ok: true, hex: address, term: termToJson(readTerm(bytes)) });
      else ctx.stdout(printTerm(readTerm(bytes)) + '\n');
    });

  const verifyStore = store
    .command('verify')
    .description(
      'Re-hash one entry, or the whole store: every name in it is checked (a symlink, a directory or a\n' +
        'junk-named file is core/store/corruption) and every entry re-hashed in name order; all failures are reported.\n' +
        'Codes: core/store/not-found, core/store/corruption, core/store/io-error, core/caps/resource-limit. ' +
        exitHelp(
          [
            ['ok', 'verified'],
            ['verificationFailed', 'on any failure'],
          ],
          ', ',
        ) +
        '.',
    )
    .argument('[hex]', 'one store address or unique prefix (default: the whole store)');
  addPackageOptions(verifyStore).action((hex: string | undefined, opts: { pkg?: string; json?: boolean }) => {
    const st = storeOf(opts.pkg);
    const r = st.verify(hex === undefined ? undefined : resolveStoreAddress(st, hex));
    if (!r.ok) ctx.exitCode = ExitCode.verificationFailed;
    if (opts.json) {
      const json = {
        ok: r.ok,
        checked: r.checked,
        total_bytes: r.totalBytes,
        failure: r.failure ?? null,
        failures: r.failures,
        skipped_temp: r.skippedTemp,
        abandoned_temp: r.abandonedTemp,
      };
      printJson(ctx, json);
      return;
    }
    if (r.ok) ctx.stdout(`ok: ${r.checked} entries verified (${r.totalBytes} bytes)\n`);
    for (const name of r.abandonedTemp) {
      ctx.stderr(`.genesis/store/${name}: a temporary file of a gcpatch process that was killed (not an entry); \`gcpatch recover\` removes it\n`);
    }
    for (const f of r.failures) ctx.stderr(`${f.hex ?? '.genesis/store'}: ${f.code}: ${f.message}\n`);
    if (!r.ok) ctx.stderr(`${r.failures.length} store failure(s); ${r.checked} entries verified\n`);
  });
  registerStorePruneCommand(store, ctx);
}
