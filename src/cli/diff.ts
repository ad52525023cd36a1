/**
 * `gcpatch diff --base A --target B`: the semantic diff of two package workspaces
 * (genesis/patch-diff-v0.1), checked by the independent verifier before it is shown. Each side is
 * a package directory or `REV[:PATH]` (see `src/git/source.ts`). Thin: load, call, verify, render.
 * Also holds the option handling shared with `merge`.
 */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { termToJson } from '../coreform/json.js';
import { printTerm } from '../coreform/print.js';
import { readTerm } from '../coreform/read.js';
import { kwMap, mapGetKw, type MapTerm, type Term } from '../coreform/term.js';
import { diffWorkspaces } from '../diff/diff.js';
import { diffReportOps, type DiffReport } from '../diff/protocol.js';
import { verifyDiffReport } from '../diff/verify.js';
import { workspaceSourceLoader, type WorkspaceSource } from '../git/source.js';
import { EvidenceStore } from '../store/store.js';
import { writeFileAtomic } from '../util/atomic.js';
import { utf8 } from '../util/bytes.js';
import { GcError, ioError, isGcError } from '../util/errors.js';
import { printJson, type CliContext } from './context.js';
import { describeReplacement } from './describe.js';
import { exitHelp } from './exit-help.js';

/** Options shared by `diff` and `merge`. */
export interface ReportOptions {
  intent: string;
  provenance?: string;
  json?: boolean;
  report?: string;
  patch?: string;
  store?: boolean;
}

/** Help text describing how a side argument is read. */
export const SOURCE_HELP =
  'A side is a package directory on disk (an existing path always wins), or\n' +
  'REV[:PATH], a package at a git revision of the current repository:\n' +
  '  REV   branch, tag, HEAD or (abbreviated) commit id, optionally ~N or ^N\n' +
  '  PATH  package directory, its package.toml or any file in it, relative to\n' +
  '        the repository root (to the current directory if it starts with ./)\n' +
  '  Without :PATH, the package containing the current directory is used, or\n' +
  "  the revision's only package.";

/**
 * Reads the `--provenance` file: one CoreForm map term (default `{}`).
 * @throws GcError `cli/provenance-not-a-map`, `core/parse/*` (exit 10), `io/*` (exit 70).
 */
export function readProvenance(file: string | undefined): MapTerm {
  if (file === undefined) return kwMap({});
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    throw ioError(error, file, 'read');
  }
  let t: Term;
  try {
    t = readTerm(bytes);
  } catch (error) {
    throw isGcError(error) ? error.withLocation({ file }) : error;
  }
  if (t.kind !== 'map') {
    throw new GcError('cli/provenance-not-a-map', `${file} must hold one CoreForm map, e.g. {:tool "gcpatch"}, got ${t.kind}`, {
      location: { file },
    });
  }
  return t;
}

/**
 * Writes `--report OUT` (the report's canonical print, exactly the stored bytes) and, with
 * `--store`, puts the same bytes in `<storePackageDir>/.genesis/store/<blake3>`.
 * @returns the store address when stored.
 */
export function saveReport(report: Term, opts: ReportOptions, storePackageDir: string): string | undefined {
  const bytes = utf8(printTerm(report));
  if (opts.report !== undefined) writeFileAtomic(opts.report, bytes);
  if (opts.patch !== undefined) {
    const patch = reportPatch(report);
    if (patch !== undefined) writeFileAtomic(opts.patch, utf8(printTerm(patch) + '\n'));
  }
  return opts.store ? EvidenceStore.forPackage(storePackageDir).put(bytes) : undefined;
}

/**
 * The normalized patch a report carries: a diff report's `:patch`, or the `:patch` of a merge
 * report's embedded `:diff`; `undefined` for a conflicted merge (no patch).
 */
export function reportPatch(report: Term): Term | undefined {
  if (report.kind !== 'map') return undefined;
  const direct = mapGetKw(report, 'patch');
  if (direct !== undefined) return direct.kind === 'map' ? direct : undefined;
  const diff = mapGetKw(report, 'diff');
  return diff !== undefined && diff.kind === 'map' ? reportPatch(diff) : undefined;
}

/** Registers the `--intent`, `--provenance`, `--json`, `--report`, `--patch` and `--store` options. */
export function addReportOptions(cmd: Command, storeHelp: string): Command {
  return cmd
    .option('--intent <text>', 'the patch :intent', '')
    .option('--provenance <file>', 'file with one CoreForm map, the patch :provenance')
    .option('--json', 'print {ok, sources, report, reportFile, storeAddress}')
    .option('--report <out>', "write the report term's canonical print to <out>")
    .option('--patch <out>', 'write the normalized patch to <out> (a .gcpatch for `gcpatch apply`; not written on conflicts)')
    .option('--store', storeHelp);
}

/** JSON description of a loaded side. */
export function sourceJson(s: WorkspaceSource): Record<string, unknown> {
  return { spec: s.spec, origin: s.origin, commit: s.commit, packageDir: s.packageDir, label: s.label };
}

/** Human lines for the ops of a diff report, one op per line. */
export function describeDiff(report: DiffReport, sides: { base?: WorkspaceSource; target?: WorkspaceSource } = {}): string[] {
  const s = report.stats;
  const lines = [
    `  patch-h ${report.patchH}`,
    `  ${report.opCount} ops: ${s.replacements} replace-node, ${s.additions} add-module, ${s.removals} remove-module`,
  ];
  for (const op of diffReportOps(report).items) {
    const m = op as MapTerm;
    const name = printTerm(mapGetKw(m, 'op')!).slice(1);
    const path = (mapGetKw(m, 'module-path') as { value: string }).value;
    let detail = '';
    if (name === 'replace-node') {
      const index = Number(printTerm(mapGetKw(m, 'path')!).replace(/\D+/g, ' ').trim().split(' ')[0]);
      lines.push(`    ${name.padEnd(14)} ${describeReplacement(path, index, sides.base, sides.target)}`);
      continue;
    }
    if (name === 'add-module') {
      const content = mapGetKw(m, 'content');
      const n = content?.kind === 'vec' ? content.items.length : 0;
      detail = `  (${n} form${n === 1 ? '' : 's'})`;
    }
    lines.push(`    ${name.padEnd(14)} ${path}${detail}`);
  }
  return lines;
}

/** Registers `gcpatch diff`. */
export function registerDiffCommand(program: Command, ctx: CliContext): void {
  const cmd = program
    .command('diff')
    .summary('semantic diff of two package versions (directories or git revisions)')
    .description(
      'Semantic diff of two package workspaces (genesis/patch-diff-v0.1): one\n' +
        'replace-node per changed top-level form, add-module/remove-module for\n' +
        'added/removed modules, remove+add when a form count changes. The report is\n' +
        'checked by the independent verifier before it is printed.\n\n' +
        SOURCE_HELP +
        '\n\n' +
        exitHelp([
          ['ok', 'ok'],
          ['invalidInput', 'invalid input'],
          ['verificationFailed', 'verification failed'],
          ['io', 'I/O error\n(e.g. git/missing-commit in a shallow clone)'],
        ]) +
        '.',
    )
    .requiredOption('--base <side>', 'the base package (directory or REV[:PATH])')
    .requiredOption('--target <side>', 'the target package');
  addReportOptions(cmd, "also store the report in the target package's .genesis/store/").action(
    async (opts: ReportOptions & { base: string; target: string }) => {
      const load = workspaceSourceLoader();
      const base = await load(opts.base);
      const target = await load(opts.target);
      const { admitted, report } = diffWorkspaces(base.workspace, target.workspace, {
        intent: opts.intent,
        provenance: readProvenance(opts.provenance),
      });
      const decoded = verifyDiffReport(admitted, report);
      const storeAddress = saveReport(report, opts, target.packageDir);
      if (opts.json) {
        printJson(ctx, {
          ok: true,
          sources: { base: sourceJson(base), target: sourceJson(target) },
          report: termToJson(report),
          reportFile: opts.report,
          storeAddress,
        });
        return;
      }
      const lines = [
        `diff ${base.label} -> ${target.label}`,
        `  base-h   ${decoded.baseH}`,
        `  target-h ${decoded.targetH}`,
        ...describeDiff(decoded, { base, target }),
        'verified: the report passed the independent diff verifier',
      ];
      if (opts.report !== undefined) lines.push(`report written to ${opts.report}`);
      if (storeAddress !== undefined) lines.push(`report stored as ${storeAddress}`);
      ctx.stdout(lines.join('\n') + '\n');
    },
  );
}
