/**
 * `gcpatch init` (docs/init.md): makes the repository containing `cwd` ready in one idempotent
 * step — the merge drivers and their attributes (`driver install`), the `.gitignore` block that
 * lets every package's evidence reach commits (gitignore.ts), the workflow of the Action pinned by
 * commit (workflow.ts) — and reports each change. `--dry-run` plans without writing; `--undo`
 * removes what init added, from the record it keeps in `<git common dir>/gcpatch/init.json`.
 */
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { installDriver } from '../driver-setup/install.js';
import { uninstallDriver } from '../driver-setup/uninstall.js';
import { ATTRIBUTE_LINES, attributesFile, readAttributeLines } from '../driver-setup/attributes.js';
import { evidenceProbePaths, ignoredPaths, type IgnoreRule } from '../git/ignored.js';
import { runGit } from '../git/exec.js';
import { writeFileAtomic } from '../util/atomic.js';
import { ExitCode, GcError } from '../util/errors.js';
import { packagesUnder } from '../workspace/discover.js';
import { planGitignore, splitBlock } from './gitignore.js';
import { checkoutActionRef, WORKFLOW_PATH, workflowText, type ActionRef } from './workflow.js';

/** One thing init did (or, with `dryRun`, would do). */
export interface InitChange {
  what: 'drivers' | 'attributes' | 'gitignore' | 'workflow' | 'record';
  action: 'created' | 'updated' | 'unchanged' | 'skipped' | 'removed';
  /** The file, relative to the work tree top (absolute when outside it); undefined for git config. */
  file: string | undefined;
  detail: string;
}

/** Whether one package's evidence reaches commits after init. */
export interface EvidenceStatus {
  /** The package folder relative to the top (`.` for the top). */
  package: string;
  /** The rule that ignored its evidence before init, when one did. */
  wasIgnoredBy: IgnoreRule | undefined;
  /** The rule that still ignores it (a `.gitignore` below the top, say); undefined when it reaches commits. */
  stillIgnoredBy: IgnoreRule | undefined;
}

/** What {@link initRepository} and {@link undoInit} report. */
export interface InitReport {
  top: string;
  dryRun: boolean;
  changes: InitChange[];
  evidence: EvidenceStatus[];
  /** Problems init could not fix, each with what to do; empty when the repository is ready. */
  problems: string[];
}

/** Options of {@link initRepository}. */
export interface InitOptions {
  cwd?: string;
  dryRun?: boolean;
  /** The Action to pin (default: the gcpatch checkout this CLI runs from, when there is one). */
  action?: ActionRef;
  /** Leave the workflow out. */
  workflow?: boolean;
}

/** What init keeps between runs so that `--undo` removes only what it added. */
interface InitRecord {
  format: 'gcpatch.init.v1';
  /** init configured the drivers (they were not configured before the first run). */
  drivers: boolean;
  /** init created the top `.gitignore`. */
  gitignoreCreated: boolean;
  /** init created `.gitattributes`. */
  attributesCreated?: boolean;
  /** The workflow text init wrote, when it created the file. */
  workflow: string | undefined;
}

function topOf(cwd: string): { top: string; record: string } {
  const r = runGit(['rev-parse', '--show-toplevel', '--git-common-dir'], { cwd });
  if (r.status !== 0) {
    throw new GcError('git/not-a-repository', `${resolve(cwd)} is not inside a git work tree; run \`git init\` first, or cd into your repository`, {
      exitCode: ExitCode.invalidInput,
      location: { file: resolve(cwd) },
    });
  }
  const [top, common] = r.stdout.trim().split('\n') as [string, string];
  const commonDir = isAbsolute(common) ? common : resolve(cwd, common);
  return { top: resolve(top), record: join(commonDir, 'gcpatch', 'init.json') };
}

function readRecord(file: string): InitRecord | undefined {
  try {
    const v = JSON.parse(readFileSync(file, 'utf8')) as InitRecord;
    return v.format === 'gcpatch.init.v1' ? v : undefined;
  } catch {
    return undefined;
  }
}

/** The package folders of the work tree, relative to `top` (`''` for the top itself). */
function packageFolders(top: string): string[] {
  return packagesUnder(top).map((m) => relative(top, dirname(m)).split('\\').join('/'));
}

const shown = (pkg: string): string => (pkg === '' ? '.' : pkg);

/** Up to three names, then how many more (the whole list is in `--json`). */
export function listed(names: readonly string[]): string {
  return names.length <= 3 ? names.join(', ') : `${names.slice(0, 3).join(', ')} and ${names.length - 3} more`;
}

/**
 * Makes the repository containing `opts.cwd` ready (see the file comment); idempotent: a second run
 * reports every item `unchanged`.
 * @throws GcError `git/not-a-repository` (exit 10) outside a work tree; the errors of
 *   `installDriver` (`driver/*`, exit 70) and of `writeFileAtomic` (`io/*`).
 */
export function initRepository(opts: InitOptions = {}): InitReport {
  const cwd = opts.cwd ?? process.cwd();
  const dryRun = opts.dryRun === true;
  const { top, record: recordFile } = topOf(cwd);
  const previous = readRecord(recordFile);
  const changes: InitChange[] = [];
  const problems: string[] = [];

  // 1. The drivers and their attributes.
  const configured = runGit(['config', '--local', '--get', 'merge.gcpatch.driver'], { cwd: top });
  const hadDrivers = configured.status === 0;
  const attrFile = attributesFile({ cwd: top });
  const attrRel = relative(top, attrFile);
  if (dryRun) {
    const present = new Set(readAttributeLines(attrFile).map((l) => l.trim()));
    const missing = ATTRIBUTE_LINES.filter((l) => !present.has(l));
    changes.push({
      what: 'drivers',
      action: hadDrivers ? 'updated' : 'created',
      file: undefined,
      detail: hadDrivers ? 'would refresh the installed driver (gcpatch driver install)' : 'would install the merge drivers (gcpatch driver install)',
    });
    changes.push({
      what: 'attributes',
      action: missing.length > 0 ? (existsSync(attrFile) ? 'updated' : 'created') : 'unchanged',
      file: attrRel,
      detail: missing.length > 0 ? `would add ${missing.join(', ')}` : 'has the attribute lines',
    });
  }
  const hadAttrFile = existsSync(attrFile);
  if (!dryRun) {
    const installed = installDriver({ cwd: top });
    const after = installed.config.find((c) => c.key === 'merge.gcpatch.driver')!.value;
    changes.push({
      what: 'drivers',
      action: !hadDrivers ? 'created' : configured.stdout.trim() === after ? 'unchanged' : 'updated',
      file: undefined,
      detail: `merge drivers in git config, driver copied to ${installed.installedTo}${installed.check.level === 'error' ? `; the check failed: ${installed.check.message}` : ''}`,
    });
    if (installed.check.level === 'error')
      problems.push(`the installed driver line does not merge: ${installed.check.message}; ${installed.check.fix ?? 'run gcpatch driver doctor'}`);
    changes.push({
      what: 'attributes',
      action: installed.attributesAdded.length === 0 ? 'unchanged' : hadAttrFile ? 'updated' : 'created',
      file: attrRel,
      detail: installed.attributesAdded.length > 0 ? `added ${installed.attributesAdded.join(', ')} (commit it)` : 'has the attribute lines',
    });
  }

  // 2. The .gitignore block.
  const packages = packageFolders(top);
  const plan = planGitignore(top, packages);
  const gitignoreChanged = plan.before !== plan.after;
  changes.push({
    what: 'gitignore',
    action: !gitignoreChanged ? 'unchanged' : plan.before === undefined ? 'created' : 'updated',
    file: '.gitignore',
    detail:
      (plan.packages.length > 0
        ? `evidence of ${plan.packages.length} package${plan.packages.length === 1 ? '' : 's'} let in (${listed(plan.packages.map(shown))})`
        : 'no package evidence was ignored') + '; transaction files (.gcpatch/, *.gcpatch-stage-*, *.gcpatch-backup-*) kept out',
  });
  if (!dryRun && gitignoreChanged) writeFileAtomic(plan.file, plan.after);

  // 3. The workflow.
  let workflowWritten: string | undefined;
  const workflowFile = join(top, WORKFLOW_PATH);
  if (opts.workflow === false) {
    changes.push({ what: 'workflow', action: 'skipped', file: WORKFLOW_PATH, detail: 'left out (--no-workflow)' });
  } else if (existsSync(workflowFile)) {
    const ref = opts.action ?? checkoutActionRef();
    const text = readFileSync(workflowFile, 'utf8');
    const same = text === previous?.workflow || (ref !== undefined && text === workflowText(ref));
    changes.push({
      what: 'workflow',
      action: same ? 'unchanged' : 'skipped',
      file: WORKFLOW_PATH,
      detail: same ? 'as init wrote it' : 'exists and is kept as it is',
    });
  } else {
    const ref = opts.action ?? checkoutActionRef();
    if (ref === undefined) {
      changes.push({
        what: 'workflow',
        action: 'skipped',
        file: WORKFLOW_PATH,
        detail: 'no Action to pin: pass --action OWNER/gcpatch@<40-hex commit> (where you host gcpatch)',
      });
      problems.push('no workflow written: run `gcpatch init --action OWNER/gcpatch@<40-hex commit>` (docs/init.md "The workflow")');
    } else {
      workflowWritten = workflowText(ref);
      changes.push({
        what: 'workflow',
        action: 'created',
        file: WORKFLOW_PATH,
        detail: `pins ${ref.repository}@${ref.commit}${ref.from === 'checkout' ? ' (the gcpatch checkout this CLI runs from)' : ''} (commit it)`,
      });
      if (!dryRun) {
        mkdirSync(dirname(workflowFile), { recursive: true });
        writeFileAtomic(workflowFile, workflowWritten);
      }
    }
  }

  // 4. The record, then the check: git itself says whether the evidence reaches commits now.
  if (!dryRun) {
    const record: InitRecord = {
      format: 'gcpatch.init.v1',
      drivers: previous?.drivers ?? !hadDrivers,
      gitignoreCreated: previous?.gitignoreCreated ?? (gitignoreChanged && plan.before === undefined),
      attributesCreated: previous?.attributesCreated ?? !hadAttrFile,
      workflow: previous?.workflow ?? workflowWritten,
    };
    mkdirSync(dirname(recordFile), { recursive: true });
    writeFileAtomic(recordFile, JSON.stringify(record, null, 2) + '\n');
  }
  const before = new Map(plan.ignoredBy.map((r) => [r.path, r]));
  const after = dryRun ? new Map<string, IgnoreRule>() : new Map(ignoredPaths(top, packages.flatMap(evidenceProbePaths)).map((r) => [r.path, r]));
  const evidence: EvidenceStatus[] = packages.map((pkg) => {
    const probes = evidenceProbePaths(pkg);
    const was = probes.map((p) => before.get(p)).find((r) => r !== undefined);
    const still = probes.map((p) => after.get(p)).find((r) => r !== undefined);
    if (still !== undefined) {
      problems.push(
        `${shown(pkg)}: its evidence is still ignored by ${still.source}:${still.line} (${still.pattern}); add \`!${still.pattern.replace(/\/$/, '')}\` exceptions there, or remove that line`,
      );
    }
    return { package: shown(pkg), wasIgnoredBy: was, stillIgnoredBy: still };
  });
  return { top, dryRun, changes, evidence, problems };
}

/**
 * Removes what init added: the `.gitignore` block (and the file when init created it and nothing
 * else is left), the workflow while it is still the text init wrote, the drivers when init
 * installed them (`driver uninstall`), and the record. Without a record only the block is removed.
 * @throws GcError `git/not-a-repository` (exit 10) outside a work tree.
 */
export function undoInit(opts: { cwd?: string; dryRun?: boolean } = {}): InitReport {
  const cwd = opts.cwd ?? process.cwd();
  const dryRun = opts.dryRun === true;
  const { top, record: recordFile } = topOf(cwd);
  const record = readRecord(recordFile);
  const changes: InitChange[] = [];
  const problems: string[] = [];

  const gitignore = join(top, '.gitignore');
  const text = existsSync(gitignore) ? readFileSync(gitignore, 'utf8') : undefined;
  const split = splitBlock(text ?? '');
  if (text !== undefined && split.had) {
    const rest = split.rest.replace(/\n+$/, '');
    const remove = rest === '' && record?.gitignoreCreated === true;
    changes.push({ what: 'gitignore', action: 'removed', file: '.gitignore', detail: remove ? 'deleted (init created it)' : "gcpatch's block removed" });
    if (!dryRun) {
      if (remove) rmSync(gitignore);
      else writeFileAtomic(gitignore, rest === '' ? '' : `${rest}\n`);
    }
  } else {
    changes.push({ what: 'gitignore', action: 'unchanged', file: '.gitignore', detail: 'has no gcpatch block' });
  }

  const workflowFile = join(top, WORKFLOW_PATH);
  if (record?.workflow !== undefined && existsSync(workflowFile)) {
    const same = readFileSync(workflowFile, 'utf8') === record.workflow;
    changes.push({
      what: 'workflow',
      action: same ? 'removed' : 'skipped',
      file: WORKFLOW_PATH,
      detail: same ? 'deleted (init wrote it)' : 'changed since init wrote it: kept; delete it yourself if you want',
    });
    if (same && !dryRun) rmSync(workflowFile);
  } else {
    changes.push({
      what: 'workflow',
      action: 'unchanged',
      file: WORKFLOW_PATH,
      detail: record?.workflow === undefined ? 'not written by init' : 'already gone',
    });
  }

  if (record?.drivers === true) {
    changes.push({ what: 'drivers', action: 'removed', file: undefined, detail: 'merge drivers and their attribute lines removed (gcpatch driver uninstall)' });
    if (!dryRun) {
      const attrFile = attributesFile({ cwd: top });
      uninstallDriver({ cwd: top });
      if (record.attributesCreated === true && existsSync(attrFile) && readFileSync(attrFile, 'utf8') === '') rmSync(attrFile);
    }
  } else {
    changes.push({
      what: 'drivers',
      action: 'unchanged',
      file: undefined,
      detail: record === undefined ? 'no record of init: remove them with `gcpatch driver uninstall` if you want' : 'were installed before init: kept',
    });
  }
  if (record !== undefined) {
    changes.push({ what: 'record', action: 'removed', file: relative(top, recordFile), detail: "init's record" });
    if (!dryRun) rmSync(recordFile, { force: true });
  }
  return { top, dryRun, changes, evidence: [], problems };
}
