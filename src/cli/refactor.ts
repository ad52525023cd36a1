/**
 * `gcpatch refactor plan|verify|apply|evidence`: workspace rename, move and extract plans
 * (GenesisCode `docs/spec/SEMANTIC_REFACTOR_PLAN_v0.1.md`). Thin: load, call `src/refactor/`, render text or `--json`.
 *
 * Exit codes: 0 safe plan / verified safe report / applied; 10 conflicted plan (or a verified
 * conflicted report, or invalid input); 30 obligations failed on apply (rolled back); 50
 * verification failed or stale plan; 70 I/O error.
 */
import { existsSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Command } from 'commander';
import { termToJson } from '../coreform/json.js';
import { mapGetKw } from '../coreform/term.js';
import { serializeEditPlan } from '../editplan/serialize.js';
import { applyRefactorPlan } from '../refactor/apply-plan.js';
import { RefactorErrorCode } from '../refactor/codes.js';
import { refactorEditPlan } from '../refactor/edit-plan-export.js';
import { explainConflicts } from '../refactor/explain.js';
import { findRefactorEvidence, findRefactorRequest, readTermArgument, storeRefactorEvidence, type TermArgument } from '../refactor/evidence.js';
import { loadRefactorAtRevision, loadRefactorFromDisk, type LoadedRefactorPackage } from '../refactor/load.js';
import { planRefactor } from '../refactor/plan.js';
import { decodeRefactorRequest, termIdentity, type RefactorRequest } from '../refactor/request.js';
import { verifyRefactorReport, type VerifiedRefactorReport } from '../refactor/verify.js';
import { EvidenceStore } from '../store/store.js';
import { writeFileAtomic } from '../util/atomic.js';
import { ExitCode, GcError } from '../util/errors.js';
import { discoverManifest } from '../workspace/discover.js';
import { isHexArgument, resolveStoreAddress } from '../store/prefix.js';
import { addPackageOptions, PKG_OPTION, printJson, type CliContext } from './context.js';
import { warnIfEvidenceIgnored } from './ignored-note.js';
import { recoverFirst } from './recover.js';
import { exitHelp } from './exit-help.js';

interface PlanOptions {
  kind: string;
  from: string;
  to: string;
  target?: string;
  pkg?: string;
  rev?: string;
  out?: string;
  requestOut?: string;
  editPlan?: string;
  store: boolean;
  json?: boolean;
}

function conflictLines(v: VerifiedRefactorReport): string[] {
  return explainConflicts(v.request, v.conflicts).map((c) => `  ${c.code}${c.where === '' ? '' : `  ${c.where}`}\n      ${c.detail}`);
}

function opLines(v: VerifiedRefactorReport): string[] {
  const r = v.request;
  const lines = v.affectedModules.map((p) => `    rename-symbol   ${p}`);
  const ops = v.patch === null ? undefined : mapGetKw(v.patch, 'ops');
  for (const op of ops?.kind === 'vec' ? ops.items : []) {
    const from = op.kind === 'map' ? mapGetKw(op, 'from-module-path') : undefined;
    if (from?.kind === 'str') {
      lines.push(`    split-module    ${from.value} -> ${r.targetModulePath} [${r.toSymbol}]`);
      lines.push(`    update-manifest ${r.targetModulePath} inserted before ${from.value}`);
    }
  }
  return lines;
}

/** Human summary of a verified report. */
function describe(v: VerifiedRefactorReport, label: string): string[] {
  const r = v.request;
  const head = `refactor ${r.refactorKind} ${r.fromSymbol} -> ${r.toSymbol}${r.refactorKind === 'rename' ? '' : ` into ${r.targetModulePath}`} (${label})`;
  if (!v.safe) {
    return [`${head}: CONFLICTED, no patch (${v.conflicts.length} conflict${v.conflicts.length === 1 ? '' : 's'})`, ...conflictLines(v)];
  }
  return [
    `${head}: safe to apply`,
    `  ${v.replacementCount} replacement${v.replacementCount === 1 ? '' : 's'} in ${v.affectedModules.length} of ${r.modules.length} modules; ${v.opIdentities.length} ops`,
    ...opLines(v),
    `  request-h ${r.requestH}`,
    `  patch-h   ${v.patchH}`,
  ];
}

function verifiedJson(v: VerifiedRefactorReport): Record<string, unknown> {
  const explanations = explainConflicts(v.request, v.conflicts);
  return {
    safe: v.safe,
    refactorKind: v.request.refactorKind,
    fromSymbol: v.request.fromSymbol,
    toSymbol: v.request.toSymbol,
    targetModulePath: v.request.targetModulePath,
    moduleCount: v.request.modules.length,
    replacementCount: v.replacementCount,
    opCount: v.opIdentities.length,
    affectedModules: v.affectedModules,
    // The report's records (reference text), each with a human `where` and `detail`.
    conflicts: v.conflicts.map((c, i) => ({ ...c, ...explanations[i], code: c.code })),
    requestH: v.request.requestH,
    requestAddress: v.request.address,
    reportAddress: v.address,
    patchH: v.patchH,
  };
}

/**
 * The evidence store of the package `--pkg` names (or the one discovered from the current
 * directory), or undefined when there is no such package.
 */
function packageStore(pkg: string | undefined): EvidenceStore | undefined {
  try {
    const m = discoverManifest(pkg);
    return existsSync(m) && statSync(m).isFile() ? EvidenceStore.forPackage(dirname(m)) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A report or request argument: a file when one exists at that path, else a store address or a
 * unique prefix of one (resolved in `store`).
 */
function termArgument(arg: string, store: EvidenceStore | undefined): TermArgument {
  if (store !== undefined && !existsSync(arg) && isHexArgument(arg)) return readTermArgument(resolveStoreAddress(store, arg), store);
  return readTermArgument(arg, store);
}

/** Registers `gcpatch refactor` and its subcommands. */
export function registerRefactorCommands(program: Command, ctx: CliContext): void {
  const refactor = program
    .command('refactor')
    .summary('plan, verify and apply rename/move/extract refactors')
    .description(
      'Workspace rename, move and extract plans (genesis/refactor-plan-v0.1), their independent verifier and apply-plan.\n' +
        exitHelp([
          ['ok', 'safe/verified/applied'],
          ['invalidInput', 'conflicted plan or invalid input'],
          ['obligationsFailed', 'obligations failed on apply'],
          ['verificationFailed', 'verification failed or stale plan'],
          ['io', 'I/O error'],
        ]) +
        '.',
    );

  registerRefactorPlan(refactor, ctx);
  registerRefactorVerify(refactor, ctx);
  registerRefactorApply(refactor, ctx);
  registerRefactorEvidence(refactor, ctx);
}

/** `gcpatch refactor plan`: plan a rename, move or extract and store the request and report. */
function registerRefactorPlan(refactor: Command, ctx: CliContext): void {
  refactor
    .command('plan')
    .description(
      'Plan a refactor of the package: a closed request (modules in manifest order) → the planner → the verifier.\n' +
        'The request and report are stored in <pkg>/.genesis/store unless --no-store. ' +
        exitHelp(
          [
            ['ok', 'safe'],
            ['invalidInput', 'conflicted'],
          ],
          ', ',
        ) +
        '.',
    )
    .requiredOption('--kind <kind>', 'rename, move or extract')
    .requiredOption('--from <symbol>', 'the source symbol (defined once by a top-level def)')
    .requiredOption('--to <symbol>', 'the destination symbol')
    .option('--target <path>', 'move/extract: the new module, package-relative (ignored by rename)', '')
    .option('--pkg <path>', `${PKG_OPTION}; with --rev: its path in the repository, from the current directory`)
    .option('--rev <rev>', 'plan on the package as of this git revision (isomorphic-git; the work tree is not read)')
    .option('--out <file>', "write the report's canonical print (the stored bytes) to FILE")
    .option('--request-out <file>', "write the request's canonical print to FILE")
    .option('--edit-plan <file>', 'also write the renames as a weavatrix.edit-plan.v1 JSON plan of exact source ranges')
    .option('--no-store', 'do not put the request and report in the evidence store')
    .option('--json', 'machine-readable output')
    .action(async (opts: PlanOptions) => {
      const params = { refactorKind: opts.kind, fromSymbol: opts.from, toSymbol: opts.to, targetModulePath: opts.target ?? '' };
      const manifest = opts.rev === undefined ? discoverManifest(opts.pkg) : undefined;
      if (manifest !== undefined) recoverFirst(ctx, manifest);
      const loaded: LoadedRefactorPackage =
        manifest !== undefined ? loadRefactorFromDisk(params, manifest) : await loadRefactorAtRevision(params, opts.rev!, opts.pkg ?? '.');
      const plan = planRefactor(loaded.request);
      const verified = verifyRefactorReport(plan.report, loaded.request);
      let stored: { request: string; report: string } | undefined;
      if (opts.store && existsSync(loaded.packageDir)) {
        stored = storeRefactorEvidence(EvidenceStore.forPackage(loaded.packageDir), loaded.request, plan.report);
      }
      if (opts.out !== undefined) writeFileAtomic(opts.out, termIdentity(plan.report).bytes);
      if (opts.requestOut !== undefined) writeFileAtomic(opts.requestOut, termIdentity(loaded.request.term).bytes);
      let editPlanFiles: number | undefined;
      if (opts.editPlan !== undefined && verified.safe) {
        const editPlan = refactorEditPlan(verified, loaded.sources);
        writeFileAtomic(opts.editPlan, serializeEditPlan(editPlan, { indent: 2 }) + '\n');
        editPlanFiles = editPlan.files.length;
      }
      ctx.exitCode = verified.safe ? ExitCode.ok : ExitCode.invalidInput;
      if (opts.json) {
        printJson(ctx, {
          ok: verified.safe,
          source: { label: loaded.label, packageDir: loaded.packageDir, commit: loaded.commit },
          ...verifiedJson(verified),
          stored: stored !== undefined,
          reportFile: opts.out,
          requestFile: opts.requestOut,
          editPlanFile: editPlanFiles === undefined ? undefined : opts.editPlan,
          report: termToJson(plan.report),
        });
        return;
      }
      const lines = describe(verified, loaded.label);
      lines.push('verified: the report passed the independent refactor verifier');
      if (stored !== undefined) lines.push(`request stored as ${stored.request}`, `report stored as  ${stored.report}`);
      if (opts.out !== undefined) lines.push(`report written to ${opts.out}`);
      if (opts.requestOut !== undefined) lines.push(`request written to ${opts.requestOut}`);
      if (editPlanFiles !== undefined) lines.push(`edit plan (${editPlanFiles} files) written to ${opts.editPlan}`);
      if (opts.editPlan !== undefined && !verified.safe) lines.push('no edit plan written: the plan is conflicted');
      ctx.stdout(lines.join('\n') + '\n');
    });
}

/** `gcpatch refactor verify`: the independent verifier of a stored plan. */
function registerRefactorVerify(refactor: Command, ctx: CliContext): void {
  const verify = refactor
    .command('verify')
    .description(
      'Verify a plan report independently against its request. REPORT and --request are files or store addresses;\n' +
        "without --request the request is looked up in the package's store. " +
        exitHelp(
          [
            ['ok', 'verified safe'],
            ['invalidInput', 'verified conflicted (no patch authority)'],
            ['verificationFailed', 'verification failed'],
          ],
          ', ',
        ) +
        '.',
    )
    .argument('<report>', 'the report: a file (e.g. from plan --out) or a store address (or a unique prefix of 8+ hex digits)')
    .option('--request <request>', 'the request: a file or a store address (default: found in the store)');
  addPackageOptions(verify).action((reportArg: string, opts: { request?: string; pkg?: string; json?: boolean }) => {
    const store = packageStore(opts.pkg);
    const report = termArgument(reportArg, store);
    let request: RefactorRequest;
    if (opts.request !== undefined) request = decodeRefactorRequest(termArgument(opts.request, store).term);
    else if (store !== undefined) request = findRefactorRequest(report.term, store);
    else {
      throw new GcError(
        RefactorErrorCode.requestNotFound,
        `no package at ${opts.pkg ?? 'the current directory'} to look the request up in; pass --request FILE or --pkg DIR`,
      );
    }
    const verified = verifyRefactorReport(report.term, request);
    ctx.exitCode = verified.safe ? ExitCode.ok : ExitCode.invalidInput;
    if (opts.json) {
      printJson(ctx, { ok: true, verified: true, ...verifiedJson(verified) });
      return;
    }
    ctx.stdout(
      [...describe(verified, report.origin === 'store' ? report.address : reportArg), 'verified: the report passed the independent refactor verifier'].join(
        '\n',
      ) + '\n',
    );
  });
}

/** `gcpatch refactor apply`: apply a verified plan as one transaction. */
function registerRefactorApply(refactor: Command, ctx: CliContext): void {
  refactor
    .command('apply')
    .description(
      'Verify a plan report and apply its normalized patch through the ordinary patch apply (preflight, transaction,\n' +
        'pack, obligations, evidence, rollback). ' +
        exitHelp(
          [
            ['ok', 'applied'],
            ['invalidInput', 'conflicted plan'],
            ['obligationsFailed', 'obligations failed (rolled back)'],
            ['verificationFailed', 'verification failed or stale plan'],
            ['io', 'I/O'],
          ],
          ', ',
        ) +
        '. Modules keep their formatting (only the renamed or moved text\n' +
        'changes); --canonical rewrites every touched module in canonical print instead, with the same evidence.',
    )
    .argument('<report>', 'the report: a file or a store address (or a unique prefix of 8+ hex digits)')
    .option('--pkg <path>', PKG_OPTION)
    .option('--request <request>', 'the request: a file or a store address (default: found in the store)')
    .option(
      '--obligation-runner <cmd>',
      '`genesis` (the GenesisCode CLI) or a shell command printing an acceptance, as for `gcpatch apply` (default $GCPATCH_OBLIGATION_RUNNER)',
    )
    .option('--canonical', 'write touched modules in canonical print (the reference whole-module rewrite)')
    .option('--json', 'machine-readable output')
    .action((reportArg: string, opts: { pkg?: string; request?: string; obligationRunner?: string; canonical?: boolean; json?: boolean }) => {
      const manifest = discoverManifest(opts.pkg);
      const store = EvidenceStore.forPackage(dirname(manifest));
      const report = termArgument(reportArg, store);
      const result = applyRefactorPlan({
        pkg: manifest,
        report: report.term,
        ...(opts.request !== undefined ? { request: termArgument(opts.request, store).term } : {}),
        ...(opts.obligationRunner !== undefined ? { obligationRunner: opts.obligationRunner } : {}),
        ...(opts.canonical === true ? { canonical: true } : {}),
      });
      warnIfEvidenceIgnored(ctx, manifest);
      if (opts.json) {
        printJson(ctx, {
          ok: true,
          ...verifiedJson(result.verified),
          evidence: result.evidence,
          changedPaths: result.applied.changedPaths,
          canonicalFallbacks: result.applied.canonicalFallbacks,
        });
        return;
      }
      const e = result.evidence;
      ctx.stdout(
        [
          ...describe(result.verified, reportArg),
          `applied: ${result.applied.changedPaths.length} module files written (${result.applied.changedPaths.join(', ')})`,
          `  request      ${e.request}`,
          `  plan report  ${e.report}`,
          `  patch        ${e.patch}`,
          `  apply report ${e.applyReport}`,
          `  package      ${e.packageArtifact}`,
          `  acceptance   ${e.acceptanceArtifact}`,
          ...result.applied.canonicalFallbacks.map((f) => `note: wrote ${f.path} in canonical print: ${f.reason}`),
        ].join('\n') + '\n',
      );
    });
}

/** `gcpatch refactor evidence`: the request, plan report and apply report that belong together. */
function registerRefactorEvidence(refactor: Command, ctx: CliContext): void {
  const evidence = refactor
    .command('evidence')
    .description('Given the store address of a refactor request, plan report or apply report, list the other two.')
    .argument('<address>', 'a store address (or a unique prefix of 8+ hex digits)');
  addPackageOptions(evidence).action((address: string, opts: { pkg?: string; json?: boolean }) => {
    const store = EvidenceStore.forPackage(dirname(discoverManifest(opts.pkg)));
    const found = findRefactorEvidence(store, resolveStoreAddress(store, address));
    if (opts.json) {
      printJson(ctx, { ok: true, ...found });
      return;
    }
    ctx.stdout(
      [
        `request       ${found.request ?? '(not stored)'}`,
        `plan report   ${found.report ?? '(not stored)'}`,
        ...(found.applyReports.length === 0 ? ['apply reports (none)'] : found.applyReports.map((a) => `apply report  ${a}`)),
      ].join('\n') + '\n',
    );
  });
}
