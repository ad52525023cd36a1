/**
 * CLI commands for semantic patches: `patch normalize|preflight|node-index`, `apply`, `pack` and
 * `audit`. Thin: parse options, call one library function, render text or `--json`.
 */
import { readFileSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { Command } from 'commander';
import { termToJson } from '../coreform/json.js';
import { printTerm } from '../coreform/print.js';
import type { Term } from '../coreform/term.js';
import { ExitCode, GcError, ioError, isGcError } from '../util/errors.js';
import { discoverManifest, repinCommand } from '../workspace/discover.js';
import { parseManifest } from '../workspace/manifest.js';
import { describeEntry } from '../store/prefix.js';
import { EvidenceStore } from '../store/store.js';
import { acceptPackage, applyPatch, normalizePatchFile, type ApplyResult } from '../patch/apply/apply.js';
import { inspectPathStates, loadPackageState, dependencyArtifactOnDisk, packOnDisk } from '../patch/apply/host.js';
import { nodeIndexReport, nodeIndexRequest } from '../patch/protocol/node-index.js';
import { verifyNodeIndexReport } from '../patch/protocol/node-index-verify.js';
import { normalizedReportTerm } from '../patch/protocol/normalize.js';
import { opReferencedPaths, preflightReport, preflightRequest } from '../patch/protocol/preflight.js';
import { verifyPreflightReport } from '../patch/protocol/preflight-verify.js';
import { auditPackage } from '../package-audit/audit.js';
import { addPackageOptions, PKG_OPTION, printJson, type CliContext } from './context.js';
import { warnIfEvidenceIgnored } from './ignored-note.js';
import { lockWaitMs, recoverFirst } from './recover.js';
import { exitHelp } from './exit-help.js';

function emitTerm(ctx: CliContext, json: boolean | undefined, kind: string, term: Term, extra: Record<string, unknown> = {}): void {
  if (json) printJson(ctx, { ok: true, kind, ...extra, report: termToJson(term) });
  else ctx.stdout(printTerm(term) + '\n');
}

function readManifest(pkg: string | undefined): { manifestFile: string; packageDir: string; text: string } {
  const manifestFile = discoverManifest(pkg);
  try {
    return { manifestFile, packageDir: dirname(manifestFile), text: readFileSync(manifestFile, 'utf8') };
  } catch (error) {
    throw ioError(error, manifestFile, 'read');
  }
}

/** Lines saying what a command stored: `stored <role> <address>  <kind>  <summary>`. */
function storedLines(store: EvidenceStore, entries: readonly (readonly [string, string])[]): string {
  const width = Math.max(...entries.map(([role]) => role.length));
  return entries
    .map(([role, hex]) => {
      const d = describeEntry(store, hex);
      return `stored ${role.padEnd(width)} ${hex}  ${d.kind}${d.summary ? `  ${d.summary}` : ''}\n`;
    })
    .join('');
}

/** The module pins of the manifest at `manifestFile` as it is now (empty when unreadable). */
function pinsOf(manifestFile: string): Map<string, string> {
  try {
    return new Map(parseManifest(readFileSync(manifestFile, 'utf8'), manifestFile).modules.map((m) => [m.path, m.hash ?? '']));
  } catch {
    return new Map();
  }
}

/** Registers the patch commands, `apply`, `pack` and `audit` on `program`. */
export function registerPatchCommands(program: Command, ctx: CliContext): void {
  registerPatchProtocolCommands(program, ctx);
  registerApplyCommands(program, ctx);
  registerPackageCommands(program, ctx);
}

/** `gcpatch patch normalize | preflight | node-index`: the authority protocols without an apply. */
function registerPatchProtocolCommands(program: Command, ctx: CliContext): void {
  const patch = program
    .command('patch')
    .summary('normalize, preflight or index a patch without applying it')
    .description('Semantic patch authority protocols: normalize, preflight, node-index (GenesisCode `docs/spec/PATCH_SCHEMA.md`).');

  patch
    .command('normalize')
    .description(`Normalize a .gcpatch and print the verified genesis/patch-normalize-v0.1 report. ${exitHelp([['invalidInput', 'for a rejected patch']])}.`)
    .requiredOption('--patch <file>', 'the .gcpatch file')
    .option('--json', 'machine-readable output')
    .action((opts: { patch: string; json?: boolean }) => {
      const plan = normalizePatchFile(opts.patch);
      emitTerm(ctx, opts.json, 'genesis/patch-normalize-v0.1', normalizedReportTerm(plan));
    });

  const preflight = patch
    .command('preflight')
    .description(
      'Run the path-state preflight of a patch against a package and print the genesis/patch-preflight-v0.1 report.\n' +
        exitHelp(
          [
            ['ok', 'when every check passes'],
            ['invalidInput', 'on a path-state conflict, a symlinked component or a non-portable path'],
          ],
          ', ',
        ) +
        '.',
    )
    .requiredOption('--patch <file>', 'the .gcpatch file');
  addPackageOptions(preflight).action((opts: { patch: string; pkg?: string; json?: boolean }) => {
    const plan = normalizePatchFile(opts.patch);
    const manifestFile = discoverManifest(opts.pkg);
    recoverFirst(ctx, manifestFile);
    const { packageDir } = readManifest(manifestFile);
    const request = preflightRequest(plan.normalized, inspectPathStates(packageDir, opReferencedPaths(plan.ops)));
    const report = preflightReport(request);
    const outcome = verifyPreflightReport(request, report);
    emitTerm(ctx, opts.json, 'genesis/patch-preflight-v0.1', report);
    if (!outcome.ok) {
      const c = outcome.conflict!;
      ctx.stderr(`patch/path-state-conflict: op ${c.ordinal} (${c.op}) needs ${c.path} to be ${c.expected}, but it is ${c.actual}\n`);
      ctx.exitCode = ExitCode.invalidInput;
    }
  });

  patch
    .command('node-index')
    .description('Print the genesis/patch-node-index-v0.1 report of one module: every node, its id, path, term hash and tag.')
    .option('--pkg <path>', PKG_OPTION)
    .requiredOption('--module <path>', 'package-relative module path, e.g. lib/math.gc')
    .option('--json', 'machine-readable output')
    .action((opts: { pkg?: string; module: string; json?: boolean }) => {
      const { manifestFile, packageDir, text } = readManifest(opts.pkg);
      const state = loadPackageState(packageDir, text, manifestFile, [opts.module]);
      const forms = state.modules.get(opts.module);
      if (forms === undefined) {
        throw new GcError('patch/module-missing', `module ${JSON.stringify(opts.module)} does not exist in ${packageDir}`, { location: { at: opts.module } });
      }
      const request = nodeIndexRequest(opts.module, forms);
      const report = nodeIndexReport(request);
      verifyNodeIndexReport(request, report);
      emitTerm(ctx, opts.json, 'genesis/patch-node-index-v0.1', report);
    });
}

/** `gcpatch apply` and `gcpatch accept`: transactional applies with evidence. */
function registerApplyCommands(program: Command, ctx: CliContext): void {
  registerApply(program, ctx);
  registerAccept(program, ctx);
}

/** `gcpatch apply`: apply a .gcpatch to a package as one transaction. */
function registerApply(program: Command, ctx: CliContext): void {
  program
    .command('apply')
    .summary('apply a .gcpatch to a package as one transaction, with evidence')
    .description(
      'Apply a semantic patch to a package transactionally: normalize, preflight, snapshot, ops, pack, acceptance, report.\n' +
        'Obligations run through --obligation-runner (or GCPATCH_OBLIGATION_RUNNER): `genesis` runs the GenesisCode\n' +
        'CLI (`genesis test --pkg package.toml`, genesis on PATH) and takes the acceptance it records; any other value is a\n' +
        'shell command that must print a genesis/acceptance-v0.2 term (docs/patches.md, docs/reference/genesis-cli.md).\n' +
        'Without a runner, declared obligations are recorded as not evaluated (:ok false),\n' +
        `so a package with obligations rolls back with exit ${ExitCode.obligationsFailed}; a package with obligations = [] applies.\n` +
        'Files are written through a journal under a package lock: after a crash\n' +
        'the next gcpatch command on the package (or `gcpatch recover`) restores it;\n' +
        'a second apply or pack meanwhile fails with patch/package-locked.\n' +
        'Paths naming .git, .gcpatch or .genesis, or not portable, are refused\n' +
        '(patch/reserved-path, patch/non-portable-path); modes are kept; a\n' +
        'symlinked package.toml is refused (patch/symlink-target).\n' +
        'Modules keep their formatting: only the text an op changes is edited;\n' +
        '--canonical rewrites touched modules in canonical print (same evidence).\n' +
        exitHelp(
          [
            ['ok', 'applied'],
            ['invalidInput', 'invalid patch or path-state conflict'],
            ['obligationsFailed', 'obligations failed'],
            ['verificationFailed', 'verification failed'],
            ['io', 'I/O or package locked'],
          ],
          ', ',
        ) +
        '.',
    )
    .requiredOption('--patch <file>', 'the .gcpatch file')
    .option('--pkg <path>', PKG_OPTION)
    .option(
      '--obligation-runner <cmd>',
      '`genesis` (the GenesisCode CLI), or a shell command printing a genesis/acceptance-v0.2 term (run in the package directory)',
    )
    .option('--lock-wait <ms>', 'wait this long for another gcpatch changing the package (default: fail at once, patch/package-locked)', '0')
    .option('--canonical', 'write touched modules in canonical print (the reference whole-module rewrite)')
    .option('--json', 'machine-readable output')
    .action((opts: { patch: string; pkg?: string; obligationRunner?: string; lockWait: string; canonical?: boolean; json?: boolean }) => {
      const manifestFile = discoverManifest(opts.pkg);
      runApply(ctx, manifestFile, opts, opts.patch, () =>
        applyPatch({
          pkg: manifestFile,
          patchFile: opts.patch,
          lockWaitMs: lockWaitMs(opts.lockWait),
          ...(opts.obligationRunner !== undefined ? { obligationRunner: opts.obligationRunner } : {}),
          ...(opts.canonical === true ? { canonical: true } : {}),
        }),
      );
    });
}

/** `gcpatch accept`: accept the package as it is (the apply of the patch with no ops). */
function registerAccept(program: Command, ctx: CliContext): void {
  program
    .command('accept')
    .summary('run the obligations on the package as it is and record an acceptance linked to its package record')
    .description(
      'Re-pin the package, run its obligations on it as it is and record the acceptance, linked to the package record by\n' +
        'an apply report of the patch with no ops (intent "accept the package as it is"): what `gcpatch audit` needs after\n' +
        'a hand edit or a merge (audit/acceptance-stale, audit/acceptance-unbound). The obligation runner is as for\n' +
        '`gcpatch apply`: `genesis` (the GenesisCode CLI) or a shell command; none for a package with obligations = [].\n' +
        exitHelp(
          [
            ['ok', 'accepted'],
            ['obligationsFailed', 'obligations failed (rolled back)'],
            ['verificationFailed', 'verification failed'],
            ['io', 'I/O or package locked'],
          ],
          ', ',
        ) +
        '.',
    )
    .option('--pkg <path>', PKG_OPTION)
    .option(
      '--obligation-runner <cmd>',
      '`genesis` (the GenesisCode CLI), or a shell command printing a genesis/acceptance-v0.2 term (run in the package directory)',
    )
    .option('--lock-wait <ms>', 'wait this long for another gcpatch changing the package (default: fail at once, patch/package-locked)', '0')
    .option('--json', 'machine-readable output')
    .action((opts: { pkg?: string; obligationRunner?: string; lockWait: string; json?: boolean }) => {
      const manifestFile = discoverManifest(opts.pkg);
      runApply(ctx, manifestFile, opts, '(accept)', () =>
        acceptPackage({
          pkg: manifestFile,
          lockWaitMs: lockWaitMs(opts.lockWait),
          ...(opts.obligationRunner !== undefined ? { obligationRunner: opts.obligationRunner } : {}),
        }),
      );
    });
}

/** `gcpatch pack` and `gcpatch audit`: re-pin a package, re-verify it. */
function registerPackageCommands(program: Command, ctx: CliContext): void {
  program
    .command('pack')
    .summary('re-pin module hashes in package.toml and store the package record')
    .description('Re-pin every module (and dependency) hash in package.toml and store the genesis/package-v0.2 record. Prints its address.')
    .option('--pkg <path>', PKG_OPTION)
    .option('--lock-wait <ms>', 'wait this long for another gcpatch changing the package (default: fail at once, patch/package-locked)', '0')
    .option('--json', 'machine-readable output')
    .action((opts: { pkg?: string; lockWait: string; json?: boolean }) => {
      const manifestFile = discoverManifest(opts.pkg);
      recoverFirst(ctx, manifestFile);
      const before = pinsOf(manifestFile);
      const r = packOnDisk(manifestFile, { lockWaitMs: lockWaitMs(opts.lockWait) });
      warnIfEvidenceIgnored(ctx, manifestFile);
      if (opts.json) {
        printJson(ctx, {
          ok: true,
          kind: 'genesis/package-v0.2',
          package_artifact: r.packageArtifact,
          pins: Object.fromEntries(r.pins),
          record: termToJson(r.packageRecord),
        });
        return;
      }
      const changed = [...r.pins].filter(([path, hex]) => before.get(path) !== hex);
      ctx.stdout(
        (changed.length === 0
          ? `pins unchanged (${r.pins.size} modules)\n`
          : `re-pinned ${changed.length} of ${r.pins.size} modules:\n` +
            changed.map(([path, hex]) => `  ${path}  ${before.get(path) ? before.get(path)!.slice(0, 12) : '""'} -> ${hex.slice(0, 12)}\n`).join('')) +
          storedLines(r.store, [['package', r.packageArtifact]]),
      );
    });

  const audit = program
    .command('audit')
    .summary('re-verify a package: pins, last acceptance, evidence store')
    .description(
      'Re-verify a package: module pins, dependency pins, the last acceptance and every artifact it references,\n' +
        'and a re-hash of the whole evidence store. The acceptance counts only for the package record it was produced\n' +
        'for (an apply report or a transparency entry in the store links them): after a hand edit, audit names the\n' +
        'modules changed since (audit/acceptance-stale). When it fails, it says what verified and what to do next.\n' +
        exitHelp(
          [
            ['ok', 'when everything verifies'],
            ['verificationFailed', 'otherwise'],
          ],
          ', ',
        ) +
        '.',
    );
  addPackageOptions(audit).action((opts: { pkg?: string; json?: boolean }) => {
    const manifestFile = discoverManifest(opts.pkg);
    recoverFirst(ctx, manifestFile);
    const r = auditPackage(manifestFile, {
      dependencyArtifact: (dir, dep) => dependencyArtifactOnDisk(dir, dep),
      packageArtifact: (file) => dependencyArtifactOnDisk(dirname(file), { path: basename(file) }),
    });
    if (!r.ok) ctx.exitCode = ExitCode.verificationFailed;
    // Empty or missing pins (what a merge of both sides' module changes leaves) have one fix.
    const unpinned = r.findings.filter((f) => f.code === 'audit/empty-pin' || f.code === 'audit/missing-pin').length;
    const fix = unpinned > 0 ? repinCommand(dirname(manifestFile)) : null;
    if (opts.json) {
      printJson(ctx, { kind: 'gcpatch/audit-v0.1', ...r, fix });
      return;
    }
    ctx.stdout(
      `${r.ok ? 'ok' : 'FAILED'}: ${r.modulesChecked} modules, acceptance ${r.acceptanceArtifact ?? '(none)'}, ` +
        `${r.referencedArtifacts.length} referenced artifacts, ${r.store.checked} store entries re-hashed\n`,
    );
    if (!r.ok && r.verified.length > 0) ctx.stdout(`verified: ${r.verified.join('; ')}\n`);
    if (r.signing.head !== undefined)
      ctx.stdout(
        `transparency log: ${r.signing.entries} entr${r.signing.entries === 1 ? 'y' : 'ies'}${r.signing.chainOk ? ', chain verified' : ', chain FAILED'}\n`,
      );
    for (const g of r.signing.signers) {
      ctx.stdout(
        `signed by ${g.signer}${g.verified ? '' : ' (does NOT verify)'}${g.current === false ? ' for another package record' : ''}: signature ${g.signature.slice(0, 12)}, entry ${g.entry.slice(0, 12)}\n`,
      );
    }
    for (const f of r.findings) ctx.stderr(`${f.subject}: ${f.code}: ${f.message}\n`);
    for (const step of r.nextSteps) ctx.stderr(`${step}\n`);
    if (fix !== null)
      ctx.stderr(
        `${unpinned} module${unpinned === 1 ? '' : 's'} without a pin${r.findings.some((f) => f.code === 'audit/empty-pin') ? ' (a merge leaves hash = "")' : ''}: run \`${fix}\` to re-pin\n`,
      );
  });
}

/** Runs an apply (`apply` or `accept`) and renders its result or error as text or `--json`. */
function runApply(ctx: CliContext, manifestFile: string, opts: { pkg?: string; json?: boolean }, patchLabel: string, apply: () => ApplyResult): void {
  const base = { patch: patchLabel, pkg: opts.pkg ?? dirname(manifestFile) };
  try {
    const r = apply();
    warnIfEvidenceIgnored(ctx, manifestFile);
    const data = {
      ...base,
      patch_artifact: r.patchArtifact,
      report_artifact: r.reportArtifact,
      acceptance_artifact: r.acceptanceArtifact,
      package_artifact: r.packageArtifact,
      patch_h: r.patchH,
      source_patch_h: r.sourcePatchH,
      changed_paths: r.changedPaths,
      canonical_fallbacks: r.canonicalFallbacks,
    };
    if (opts.json) {
      printJson(ctx, { ok: true, kind: 'genesis/apply-patch-v0.2', data, report: termToJson(r.report), error: null });
    } else {
      const store = EvidenceStore.forPackage(dirname(manifestFile));
      for (const f of r.canonicalFallbacks) ctx.stderr(`note: wrote ${f.path} in canonical print: ${f.reason}\n`);
      ctx.stdout(
        `applied ${patchLabel}: changed ${r.changedPaths.join(', ') || 'nothing'}\n` +
          storedLines(store, [
            ['apply report', r.reportArtifact],
            ['acceptance', r.acceptanceArtifact],
            ['package', r.packageArtifact],
            ['patch', r.patchArtifact],
          ]),
      );
    }
  } catch (error) {
    if (opts.json && isGcError(error)) {
      printJson(ctx, { ok: false, kind: 'genesis/apply-patch-v0.2', data: { ...base, ...(error.details ?? {}) }, error: error.toJSON() });
      ctx.stderr(`${error.format()}\n`);
      ctx.exitCode = error.exitCode;
      return;
    }
    throw error;
  }
}
