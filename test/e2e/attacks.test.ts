// The scored adversarial suite of docs/security.md ("How each guarantee is tested"): dishonest pull
// requests built with plain git (index entries of any mode, `git commit-tree` merges, scratch
// copies) on real repositories holding the ledger package (fixtures/refactor/ledger), each expected
// to fail with the code of its change class under the policy the change-class table gives, and
// honest controls that must pass under the default policy. Most cases call the library
// (`auditPullRequest`) in-process; a few run the built CLI (`gcpatch verify-pr --json`) and a sample
// also run the bundled Action, which must give the library's verdict. The file ends by printing its
// score, from the results the tests recorded.
import { cpSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditPullRequest, type AuditOptions } from '../../src/verify-pr/verify-pr.js';
import type { AuditReport } from '../../src/verify-pr/report/findings.js';
import { gcpatch, ROOT } from '../helpers/cli.js';
import { FIXTURES as ACTION_FIXTURES, runAction } from '../action/helpers.js';
import {
  acceptingRunner,
  applyPatchText,
  CAPS_NONE,
  CAPS_WIDE,
  commitAll,
  commitIndex,
  commitTree,
  declareObligation,
  edit,
  git,
  GIT_ENV,
  gitWithInput,
  ledgerTemplate,
  OBLIGATION,
  objectId,
  onePatch,
  pack,
  PKG,
  rename,
  Scratch,
  setIndexEntry,
  stageTree,
  storeName,
  TOOLCAPS,
  tryMerge,
  writeBlob,
} from './attack-helpers.js';

type Policy = 'error' | 'warning';

/** A pull request to check: the repository, its base and head, and options of the check. */
interface PullRequest {
  repo: string;
  base: string;
  head: string;
  options?: Partial<Pick<AuditOptions, 'packages' | 'replay' | 'outsidePackage'>>;
}

/** Where a case's verdict comes from: the library in-process, the built CLI, or both the library and the bundled Action. */
type Via = 'library' | 'cli' | 'action';

interface Attack {
  id: string;
  /** The row of the change-class table (docs/security.md) the attack belongs to. */
  klass: string;
  /** The code the row gives (several when the row names several). */
  codes: string[];
  /** The policy under which it must fail: `error` (the default) or `warning` (`--fail-on warning`). */
  policy: Policy;
  /** The file the finding must name, where one file is to blame. */
  file?: string;
  via?: Via;
  build: () => PullRequest;
}

interface Control {
  id: string;
  what: string;
  /** Warnings the change-class table gives this honest change (it passes the default policy with them). */
  warns?: string[];
  via?: Via;
  build: () => PullRequest;
}

/** What a check gave: its report, or what it threw. */
interface Outcome {
  report?: AuditReport;
  threw?: string;
  /** The CLI's exit status (CLI cases). */
  status?: number;
}

interface Result {
  kind: 'attack' | 'control';
  id: string;
  expected: string;
  passed: boolean;
  got: string;
}

const scratch = new Scratch();
const results: Result[] = [];
/** The pull requests the scored tests built, by case id (the accounting tests read them again). */
const built = new Map<string, PullRequest>();
const T = { ledger: '', obligation: '', nested: '', two: '', gfx: '', attr: '' };
let runner = '';

// ---------------------------------------------------------------------------------------------
// Running a check and describing its outcome

async function library(pr: PullRequest, failOn: Policy): Promise<Outcome> {
  try {
    return { report: await auditPullRequest({ dir: pr.repo, base: pr.base, head: pr.head, failOn, ...pr.options }) };
  } catch (error) {
    const e = error as { code?: string; message?: string };
    return { threw: `${e.code ?? 'exception'}: ${e.message ?? String(error)}` };
  }
}

function cli(pr: PullRequest, failOn: Policy): Outcome {
  const args = ['verify-pr', '--base', pr.base, '--head', pr.head, '--json', '--fail-on', failOn];
  const packages = pr.options?.packages;
  if (packages !== undefined) for (const p of typeof packages === 'string' ? [packages] : packages) args.push('--packages', p);
  if (pr.options?.replay === false) args.push('--no-replay');
  if (pr.options?.outsidePackage !== undefined) args.push('--outside-package', pr.options.outsidePackage);
  const r = gcpatch(args, { cwd: pr.repo });
  try {
    const parsed = JSON.parse(r.stdout) as AuditReport;
    if (parsed.kind !== 'gcpatch/pr-audit-v1') return { status: r.status, threw: `exit ${r.status}: ${r.stdout.slice(0, 300)}` };
    return { status: r.status, report: parsed };
  } catch {
    return { status: r.status, threw: `exit ${r.status}: ${(r.stderr || r.stdout).trim().slice(0, 300)}` };
  }
}

function codesAt(report: AuditReport, severity: string): string[] {
  return [...new Set(report.findings.filter((f) => f.severity === severity).map((f) => f.code))].sort();
}

function describeOutcome(o: Outcome): string {
  if (o.report === undefined) return `threw ${o.threw}`;
  const r = o.report;
  const status = o.status !== undefined ? `exit ${o.status}, ` : '';
  return `${status}ok=${r.ok} errors=[${codesAt(r, 'error').join(' ')}] warnings=[${codesAt(r, 'warning').join(' ')}]`;
}

/** True when the outcome fails the run under `policy` with one of `codes` at that severity or above (naming `file`, if given). */
function caught(o: Outcome, codes: readonly string[], policy: Policy, file?: string): boolean {
  if (o.report === undefined || o.report.ok) return false;
  if (o.status !== undefined && o.status !== 50) return false;
  const severities = policy === 'error' ? ['error'] : ['error', 'warning'];
  return o.report.findings.some((f) => codes.includes(f.code) && severities.includes(f.severity) && (file === undefined || f.file === file));
}

/** The files the findings with `codes` name (for the score's details). */
function filesOf(o: Outcome, codes: readonly string[]): string {
  return `(files: ${
    (o.report?.findings ?? [])
      .filter((f) => codes.includes(f.code))
      .map((f) => f.file ?? '(none)')
      .join(', ') || 'none'
  })`;
}

/** True when the outcome passes under the default policy with no error finding, and with the warnings `warns`. */
function passes(o: Outcome, warns: readonly string[] = []): boolean {
  if (o.report === undefined) return false;
  if (o.status !== undefined && o.status !== 0) return false;
  const warnings = codesAt(o.report, 'warning');
  return o.report.ok && codesAt(o.report, 'error').length === 0 && warns.every((w) => warnings.includes(w));
}

/** The bundled Action on the same pull request (pull_request event, `fail-on` as given). */
function action(pr: PullRequest, failOn: Policy): Outcome {
  const event = join(scratch.dir('gcpatch-attack-event-'), 'event.json');
  writeFileSync(event, readFileSync(join(ACTION_FIXTURES, 'pull_request.json'), 'utf8').replace('BASE_SHA', pr.base).replace('HEAD_SHA', pr.head));
  const run = runAction(pr.repo, { event, inputs: { 'fail-on': failOn } });
  if (run.report === undefined)
    return {
      threw: `Action exited ${run.status} without a report: ${run.stdout
        .split('\n')
        .filter((l) => l.startsWith('::error'))
        .join(' ')
        .slice(0, 300)}`,
    };
  return { report: run.report, status: run.status === 0 ? 0 : run.status === 1 ? 50 : run.status };
}

/** The verdict the Action and the library must share: pass/fail and the error codes. */
function verdict(o: Outcome): string {
  return o.report === undefined ? `threw` : `ok=${o.report.ok} errors=[${codesAt(o.report, 'error').join(' ')}]`;
}

async function check(pr: PullRequest, policy: Policy, via: Via): Promise<{ outcome: Outcome; agreement?: string }> {
  if (via === 'cli') {
    const outcome = cli(pr, policy);
    const lib = await library(pr, policy);
    return { outcome, agreement: verdict(outcome) === verdict(lib) ? undefined : `library gives ${describeOutcome(lib)}` };
  }
  const outcome = await library(pr, policy);
  if (via === 'action') {
    const run = action(pr, policy);
    return { outcome, agreement: verdict(run) === verdict(outcome) ? undefined : `the Action gives ${describeOutcome(run)}` };
  }
  return { outcome };
}

function attackTest(a: Attack): void {
  const expected = `${a.codes.join(' | ')} (${a.policy})${a.file ? ` at ${a.file}` : ''}`;
  it(`${a.id}: ${a.klass} → ${expected}${a.via && a.via !== 'library' ? ` [${a.via}]` : ''}`, async () => {
    const pr = a.build();
    built.set(a.id, pr);
    const { outcome, agreement } = await check(pr, a.policy, a.via ?? 'library');
    const ok = caught(outcome, a.codes, a.policy, a.file) && agreement === undefined;
    const got = describeOutcome(outcome) + (a.file ? ` ${filesOf(outcome, a.codes)}` : '');
    results.push({ kind: 'attack', id: a.id, expected, passed: ok, got: got + (agreement ? `; ${agreement}` : '') });
    expect(caught(outcome, a.codes, a.policy, a.file), `${a.id} expected ${expected}, got ${got}`).toBe(true);
    expect(agreement, a.id).toBeUndefined();
  });
}

function controlTest(c: Control): void {
  const warned = c.warns ? ` with ${c.warns.join(', ')}` : '';
  it(`${c.id}: ${c.what} passes${warned}${c.via && c.via !== 'library' ? ` [${c.via}]` : ''}`, async () => {
    const pr = c.build();
    built.set(c.id, pr);
    const { outcome, agreement } = await check(pr, 'error', c.via ?? 'library');
    const ok = passes(outcome, c.warns) && agreement === undefined;
    results.push({ kind: 'control', id: c.id, expected: `pass${warned}`, passed: ok, got: describeOutcome(outcome) + (agreement ? `; ${agreement}` : '') });
    expect(passes(outcome, c.warns), `${c.id} expected to pass${warned}, got ${describeOutcome(outcome)}`).toBe(true);
    expect(agreement, c.id).toBeUndefined();
  });
}

// ---------------------------------------------------------------------------------------------
// Building pull requests

/** A copy of `template` on a new branch `pr` from `main`. */
function start(template: string): { repo: string; pkg: string; base: string } {
  const repo = scratch.copy(template);
  git(repo, 'checkout', '-q', '-b', 'pr');
  return { repo, pkg: join(repo, PKG), base: git(repo, 'rev-parse', 'main') };
}

function pr(repo: string, base: string, options?: PullRequest['options']): PullRequest {
  return { repo, base, head: git(repo, 'rev-parse', 'HEAD'), ...(options ? { options } : {}) };
}

/** A pull request of one commit on a copy of `template`: `change` edits the work tree, all of it is committed. */
function oneCommit(template: string, change: (pkg: string, repo: string) => void, options?: PullRequest['options']): PullRequest {
  const { repo, pkg, base } = start(template);
  change(pkg, repo);
  commitAll(repo, 'change');
  return pr(repo, base, options);
}

/** A copy of `template` with one more commit on main: `change` edits the package (red-team round 5 bases). */
function withMain(template: string, change: (pkg: string) => void): string {
  const repo = scratch.copy(template);
  change(join(repo, PKG));
  commitAll(repo, 'main: a change the pull request starts from');
  return repo;
}

/** The ledger without its [property] table (so `cases_per_test` is the reference's default, 64). */
const withoutProperty = () => withMain(T.ledger, (pkg) => edit(manifestOf(pkg), '[property]\ncases_per_test = 100\n\n', ''));
/** The ledger whose toolcaps.toml bounds its one op with a timeout. */
const withOpTimeout = () => withMain(T.ledger, (pkg) => writeFileSync(join(pkg, 'toolcaps.toml'), `${TOOLCAPS}\n[op."sys/time::now"]\ntimeout_ms = 100\n`));
/** The ledger with a policy file in a subdirectory (`ci/caps.ci.toml`, what a CI job passes with `--caps`). */
const withCiPolicy = () =>
  withMain(T.ledger, (pkg) => {
    mkdirSync(join(pkg, 'ci'), { recursive: true });
    writeFileSync(join(pkg, 'ci/caps.ci.toml'), TOOLCAPS);
  });

/** The ledger with a policy file in a directory named for policies (`caps/ci.toml`: the name has no `caps`, its directory has). */
const withCapsDirectory = () =>
  withMain(T.ledger, (pkg) => {
    mkdirSync(join(pkg, 'caps'), { recursive: true });
    writeFileSync(join(pkg, 'caps/ci.toml'), TOOLCAPS);
  });
/** The ledger with a policy whose path names no caps at all (`ci/policy.toml`, passed with --caps) and a TOML file that is no policy (`tools/fmt.toml`). */
const withPlainPolicy = () =>
  withMain(T.ledger, (pkg) => {
    mkdirSync(join(pkg, 'ci'), { recursive: true });
    writeFileSync(join(pkg, 'ci/policy.toml'), TOOLCAPS);
    mkdirSync(join(pkg, 'tools'), { recursive: true });
    writeFileSync(join(pkg, 'tools/fmt.toml'), '[format]\nwidth = 80\n');
  });
/** The ledger with the reference's workspace file beside its manifest (as `genesis pkg scaffold` writes it): profile ci runs under caps.toml, dev under toolcaps.toml. */
const withWorkspace = () =>
  withMain(T.ledger, (pkg) =>
    writeFileSync(
      join(pkg, 'genesis.workspace.toml'),
      'version = 1\nworkspace = "ledger"\n\n[[members]]\nname = "ledger"\npath = "."\n\n[defaults]\ntoolchain = "toolchain.toml"\n\n[profiles."ci"]\ncaps_policy = "caps.toml"\n\n[profiles."dev"]\ncaps_policy = "toolcaps.toml"\n',
    ),
  );
const WORKSPACE_PATH = `${PKG}/genesis.workspace.toml`;
/** The ledger with the toolcaps.toml worker budget set (`[task] default_workers = 2`). */
const withDefaultWorkers = () => withMain(T.ledger, (pkg) => writeFileSync(join(pkg, 'toolcaps.toml'), `${TOOLCAPS}\n[task]\ndefault_workers = 2\n`));
/** A wide policy outside every package (`shared/ci/caps.ci.toml`), and `ledger/ci` replaced by a symlink to its directory. */
const symlinkCiDirectory = (pkg: string, repo: string) => {
  mkdirSync(join(repo, 'shared/ci'), { recursive: true });
  writeFileSync(join(repo, 'shared/ci/caps.ci.toml'), CAPS_WIDE);
  rmSync(join(pkg, 'ci'), { recursive: true });
  symlinkSync('../shared/ci', join(pkg, 'ci'));
};

/**
 * A pull request of one commit on a copy of `template` that moves the package to `to` (a folder of
 * the repository, default `ledger2`) after `change` edited it on the way.
 */
function movedPackage(template: string, change: (pkg: string) => void, to = 'ledger2', options?: PullRequest['options']): PullRequest {
  return oneCommit(
    template,
    (pkg, repo) => {
      change(pkg);
      mkdirSync(join(repo, to, '..'), { recursive: true });
      cpSync(pkg, join(repo, to), { recursive: true });
      rmSync(pkg, { recursive: true });
    },
    options,
  );
}

/** A pull request of one commit whose only change is an index entry of `mode` at `path`, object id `oid(repo, base)`. */
function oneEntry(mode: string, path: string, oid: (repo: string, base: string) => string, options?: PullRequest['options']): PullRequest {
  const { repo, base } = start(T.ledger);
  setIndexEntry(repo, mode, oid(repo, base), path);
  commitIndex(repo, `${path} as mode ${mode}`);
  return pr(repo, base, options);
}

/** The object id `path` has on main. */
const onMain = (path: string) => (repo: string) => objectId(repo, 'main', path);

const CURRENCY = 'money/currency.gc';
const CURRENCY_PATH = `${PKG}/${CURRENCY}`;
const MANIFEST_PATH = `${PKG}/package.toml`;
const manifestOf = (pkg: string) => join(pkg, 'package.toml');
/** A hand edit of a module no evidence touches. */
const editCurrency = (pkg: string) => edit(join(pkg, CURRENCY), '"CHF"', '"Fr."');
/** The rename evidence of most cases (touches core/pair.gc only). */
const renameFirst = (pkg: string, obligationRunner?: string) => rename(pkg, 'ledger/pair::first', 'ledger/pair::head', obligationRunner);
const renameEmoji = (pkg: string) => rename(pkg, 'ledger/text::emoji', 'ledger/text::emoji-label');
/** A hand edit of core/pair.gc (after {@link renameFirst} too). */
const editPair = (pkg: string) => edit(join(pkg, 'core/pair.gc'), '(prim vec/get p 1)', '(prim vec/get p 0)');
const editComment = (pkg: string) => edit(join(pkg, 'core/pair.gc'), '; Pairs as two-element vectors.', '; Pairs: two-element vectors.');
/** `gcpatch apply --patch`: the ledger's product name (meta/profile.gc form 1). */
const patchName = (pkg: string) =>
  applyPatchText(
    scratch,
    pkg,
    onePatch(
      'rename the product',
      '{:op :replace-node :module-path "meta/profile.gc" :path [[:form 1] [:pair-cdr] [:pair-cdr] [:pair-car]] :new "ledger-pro"}',
    ),
  );
const dropObligation = (pkg: string) => edit(manifestOf(pkg), `obligations = [${JSON.stringify(OBLIGATION)}]`, 'obligations = []');
const manifestEdit = (from: string, to: string, options?: PullRequest['options']) => oneCommit(T.ledger, (pkg) => edit(manifestOf(pkg), from, to), options);
const TEST_SUITE_LINE = '    "ledger/tests::amount-suite",\n';

/**
 * Ways to commit a package that cannot be read; each leaves a readable manifest in the work tree
 * for the next commit to restore.
 */
const breakers: Record<string, (repo: string, pkg: string) => void> = {
  'invalid TOML': (repo, pkg) => {
    const good = readFileSync(manifestOf(pkg), 'utf8');
    writeFileSync(manifestOf(pkg), good.replace('[[modules]]', '[[modules]'));
    commitAll(repo, 'wip');
    writeFileSync(manifestOf(pkg), good);
  },
  deleted: (repo) => {
    git(repo, 'rm', '-q', '--cached', MANIFEST_PATH);
    commitIndex(repo, 'wip');
  },
  'a directory': (repo) => {
    git(repo, 'rm', '-q', '--cached', MANIFEST_PATH);
    setIndexEntry(repo, '100644', writeBlob(repo, 'x\n'), `${MANIFEST_PATH}/x`);
    commitIndex(repo, 'wip');
  },
  'a symlink': (repo) => {
    setIndexEntry(repo, '120000', writeBlob(repo, '../elsewhere/package.toml'), MANIFEST_PATH);
    commitIndex(repo, 'wip');
  },
};

/** The obligation template: a commit whose package cannot be read (`breaker`), then the manifest restored without the obligation. */
function brokenThenDrop(breaker: string): PullRequest {
  const { repo, pkg, base } = start(T.obligation);
  breakers[breaker]!(repo, pkg);
  dropObligation(pkg);
  commitAll(repo, 'restore the manifest');
  return pr(repo, base);
}

/** A rename with evidence, then `between` (commits of its own, or nothing), then a hand edit of the renamed module, re-packed. */
function hiddenEditAfterRefactor(between: (repo: string, pkg: string) => void = () => {}, options?: PullRequest['options']): PullRequest {
  const { repo, pkg, base } = start(T.ledger);
  renameFirst(pkg);
  commitAll(repo, 'rename pair first');
  between(repo, pkg);
  editPair(pkg);
  pack(pkg);
  commitAll(repo, 'tidy');
  return pr(repo, base, options);
}

/** A store entry that main holds (the package record its pack stored). */
function mainStoreEntry(repo: string): string {
  const names = git(repo, 'ls-tree', '-r', '--name-only', 'main', `${PKG}/.genesis/store`)
    .split('\n')
    .filter((n) => n !== '');
  if (names.length === 0) throw new Error('main has no store entry');
  return join(repo, names[0]!);
}

/**
 * A rename planned and applied (with `obligationRunner`, if given) in a scratch copy of the package
 * whose manifest `differ` changed, its store entries and the renamed module copied into the
 * package, which is then packed.
 */
function evidenceFromCopy(template: string, differ: (copy: string) => void, obligationRunner?: string): PullRequest {
  return oneCommit(template, (pkg) => {
    const copy = join(scratch.dir('gcpatch-attack-copy-'), PKG);
    cpSync(pkg, copy, { recursive: true });
    differ(copy);
    pack(copy);
    renameFirst(copy, obligationRunner);
    const store = join(copy, '.genesis/store');
    for (const name of readdirSync(store)) cpSync(join(store, name), join(pkg, '.genesis/store', name));
    cpSync(join(copy, 'core/pair.gc'), join(pkg, 'core/pair.gc'));
    pack(pkg);
  });
}

/**
 * main: a commit that breaks currency.gc and pair.gc (`mainBug`), then one that fixes them (`mainFix`);
 * a branch `b2` with an honest patch; the PR renames pair::first with evidence (`p1`), merges b2,
 * takes `module` back from `mainBug` and commits the octopus of p1, b2 and mainBug.
 */
function octopusRevert(module: string): PullRequest {
  const repo = scratch.copy(T.ledger);
  const pkg = join(repo, PKG);
  const bugs: [string, string, string][] = [
    [CURRENCY, '"CHF"', '"CHX"'],
    ['core/pair.gc', '(prim vec/get p 1)', '(prim vec/get p 2)'],
  ];
  for (const [file, good, bad] of bugs) edit(join(pkg, file), good, bad);
  pack(pkg);
  const mainBug = commitAll(repo, 'currency and pair (with bugs)');
  for (const [file, good, bad] of bugs) edit(join(pkg, file), bad, good);
  pack(pkg);
  const mainFix = commitAll(repo, 'fix currency and pair');
  git(repo, 'checkout', '-q', '-b', 'b2');
  patchName(pkg);
  const b2 = commitAll(repo, 'rename the product');
  git(repo, 'checkout', '-q', '-b', 'pr', mainFix);
  renameFirst(pkg);
  const p1 = commitAll(repo, 'rename pair first');
  if (!tryMerge(repo, '--no-ff', '--no-commit', 'b2')) throw new Error('b2 does not merge cleanly');
  git(repo, 'checkout', mainBug, '--', `${PKG}/${module}`);
  pack(pkg);
  const head = commitTree(repo, stageTree(repo), [p1, b2, mainBug], 'Merge branches b2 and an old main');
  if (objectId(repo, head, `${PKG}/${module}`) !== objectId(repo, mainBug, `${PKG}/${module}`)) throw new Error('the octopus does not hold the old module');
  return { repo, base: mainFix, head };
}

/**
 * The PR renames pair::first with evidence (`p1`); `change` then edits the work tree, which is packed
 * and committed as an orphan snapshot (a root commit) and merged with `p1` — the snapshot as the first
 * parent or as the second — into a merge holding the snapshot's tree.
 */
function orphanMerge(template: string, change: (pkg: string) => void, order: 'orphan-first' | 'orphan-second'): PullRequest {
  const { repo, pkg, base } = start(template);
  // a package that declares obligations applies only with a runner
  renameFirst(pkg, template === T.obligation ? acceptingRunner(scratch) : undefined);
  const p1 = commitAll(repo, 'rename pair first');
  change(pkg);
  pack(pkg);
  const tree = stageTree(repo);
  const orphan = commitTree(repo, tree, [], 'a snapshot');
  return { repo, base, head: commitTree(repo, tree, order === 'orphan-first' ? [orphan, p1] : [p1, orphan], 'Merge a snapshot') };
}

/**
 * The PR renames pair::first with evidence (`p1`); a branch from main makes `change` by hand (packed);
 * the merge of the two holds both (the structural merge), with the evidence or the edit as first parent.
 */
function parallelEdit(change: (pkg: string) => void, order: 'evidence-first' | 'edit-first'): PullRequest {
  const { repo, pkg, base } = start(T.ledger);
  renameFirst(pkg);
  const p1 = commitAll(repo, 'rename pair first');
  git(repo, 'checkout', '-q', '-b', 'side', base);
  change(pkg);
  pack(pkg);
  const side = commitAll(repo, 'a change beside the rename');
  git(repo, 'checkout', '-q', 'pr');
  change(pkg);
  pack(pkg);
  return { repo, base, head: commitTree(repo, stageTree(repo), order === 'evidence-first' ? [p1, side] : [side, p1], 'Merge side') };
}

/**
 * main edits pair::first (`b1`, the base) after the PR's fork point `b0`, so the PR's pair.gc is
 * stale until it merges main. `change` is made by hand (packed) on the stale state — before the PR
 * renames pair::first with evidence (`merge-main`: the PR then merges main), or on a side branch
 * from `b0` merged with the rename made on `b1` (`parallel-*`, either parent first); the merge holds
 * what merging its parents gives (main's edit carried into the renamed definition, and `change`).
 */
function staleModuleMerge(change: (pkg: string) => void, shape: 'merge-main' | 'parallel-evidence-first' | 'parallel-edit-first'): PullRequest {
  const repo = scratch.copy(T.ledger);
  const pkg = join(repo, PKG);
  const pair = join(pkg, 'core/pair.gc');
  const b0 = git(repo, 'rev-parse', 'main');
  const MAIN_FROM = '(fn (p) (prim vec/get p 0)))';
  const MAIN_TO = '(fn (pair) (prim vec/get pair 0)))';
  edit(pair, `(def ledger/pair::first ${MAIN_FROM}`, `(def ledger/pair::first ${MAIN_TO}`);
  pack(pkg);
  const b1 = commitAll(repo, 'main: name the pair');
  let parents: string[];
  let renamed: string;
  if (shape === 'merge-main') {
    git(repo, 'checkout', '-q', '-b', 'pr', b0);
    change(pkg);
    pack(pkg);
    commitAll(repo, 'tidy');
    renameFirst(pkg);
    renamed = readFileSync(pair, 'utf8');
    parents = [commitAll(repo, 'rename pair first'), b1];
  } else {
    git(repo, 'checkout', '-q', '-b', 'pr', b1);
    renameFirst(pkg);
    const a = commitAll(repo, 'rename pair first');
    git(repo, 'checkout', '-q', '-b', 'side', b0);
    change(pkg);
    pack(pkg);
    const side = commitAll(repo, 'tidy');
    git(repo, 'checkout', '-q', 'pr');
    renamed = readFileSync(pair, 'utf8').replace(`(def ledger/pair::head ${MAIN_TO}`, `(def ledger/pair::head ${MAIN_FROM}`);
    parents = shape === 'parallel-evidence-first' ? [a, side] : [side, a];
  }
  tryMerge(repo, '--no-commit', '--no-ff', shape === 'merge-main' ? 'main' : 'side');
  git(repo, 'checkout', '--ours', '--', MANIFEST_PATH);
  writeFileSync(pair, renamed.replace(`(def ledger/pair::head ${MAIN_FROM}`, `(def ledger/pair::head ${MAIN_TO}`));
  if (shape !== 'merge-main') change(pkg); // the side's change (the PR's own renamed text holds it already)
  pack(pkg);
  return { repo, base: b1, head: commitTree(repo, stageTree(repo), parents, 'Merge') };
}

/**
 * main edits pair::first (`b1`, the base) after `b0`; the PR commits an unreadable merge of `b0` and
 * `b1` (first parent `b0`, the tree without main's edit), restores the manifest and renames
 * pair::first with evidence on `b0`'s state, then merges `b1` again (already an ancestor): the head
 * drops main's edit of the refactored module.
 */
function unreadableMergeDropsMainEdit(): PullRequest {
  const repo = scratch.copy(T.ledger);
  const pkg = join(repo, PKG);
  const b0 = git(repo, 'rev-parse', 'main');
  edit(join(pkg, 'core/pair.gc'), '(fn (p) (prim vec/get p 0)))', '(fn (pair) (prim vec/get pair 0)))');
  pack(pkg);
  const b1 = commitAll(repo, 'main: name the pair');
  git(repo, 'checkout', '-q', '-b', 'pr', b0);
  const good = readFileSync(manifestOf(pkg), 'utf8');
  writeFileSync(manifestOf(pkg), good.replace('[[modules]]', '[[modules]'));
  const u = commitTree(repo, stageTree(repo), [b0, b1], 'Merge main (wip)');
  git(repo, 'reset', '-q', '--soft', u);
  writeFileSync(manifestOf(pkg), good);
  renameFirst(pkg);
  const v = commitAll(repo, 'rename pair first');
  return { repo, base: b1, head: commitTree(repo, stageTree(repo), [v, b1], 'Merge main') };
}

/** The suite the `gfx` template's `[gfx]` table names. */
const GFX_SUITE = 'ledger/tests::amount-suite';

/** `ledger/money/package.toml`: a package of its own listing currency.gc (pinned by its pack). */
function writeInnerPackage(pkg: string): void {
  writeFileSync(
    join(pkg, 'money/package.toml'),
    'dependencies = []\nname = "money"\nobligations = []\nschema = 1\nversion = "0.1.0"\n\n[[modules]]\nhash = ""\npath = "currency.gc"\n',
  );
  pack(join(pkg, 'money'));
}

/** A PR on the two-package template: a comment in pkgs/a, a hand edit with a stale pin in pkgs/b. */
function twoPackageEdit(options: PullRequest['options']): PullRequest {
  const repo = scratch.copy(T.two);
  git(repo, 'checkout', '-q', '-b', 'pr');
  const base = git(repo, 'rev-parse', 'main');
  editComment(join(repo, 'pkgs/a'));
  editCurrency(join(repo, 'pkgs/b'));
  commitAll(repo, 'a comment in a, an edit in b');
  return pr(repo, base, options);
}

/** The PR renames pair::first with evidence; main meanwhile renames text::emoji. Returns with the PR checked out and `base` = main. */
function mainMovesOn(): { repo: string; pkg: string; base: string } {
  const { repo, pkg } = start(T.ledger);
  renameFirst(pkg);
  commitAll(repo, 'rename pair first');
  git(repo, 'checkout', '-q', 'main');
  renameEmoji(pkg);
  const base = commitAll(repo, 'rename emoji (main)');
  git(repo, 'checkout', '-q', 'pr');
  return { repo, pkg, base };
}

// ---------------------------------------------------------------------------------------------
// The dishonest pull requests, by class of docs/security.md

const NOT_REGULAR = ['audit/not-a-regular-file'];
const WEAKENED = ['audit/obligations-weakened'];
/** The codes of the table's row for a module's canonical forms (unexplained; contradicting the evidence that changed it). */
const MODULE_CHANGE = ['audit/replay-module-mismatch', 'audit/unexplained-change'];

const attacks: Attack[] = [
  // membership by manifest
  {
    id: 'nested-package-on-main',
    klass: 'membership: a nested package.toml on main swallows a hand edit of the outer package (stale outer pin)',
    codes: ['audit/pin-mismatch'],
    policy: 'error',
    file: MANIFEST_PATH,
    via: 'action',
    build: () =>
      oneCommit(T.nested, (pkg) => {
        editCurrency(pkg);
        pack(join(pkg, 'money'));
      }),
  },
  {
    id: 'nested-package-added',
    klass: 'membership: the PR adds a nested package.toml and hand-edits a module of the outer package',
    codes: ['audit/pin-mismatch'],
    policy: 'error',
    file: MANIFEST_PATH,
    build: () =>
      oneCommit(T.ledger, (pkg) => {
        writeInnerPackage(pkg);
        editCurrency(pkg);
        pack(join(pkg, 'money'));
      }),
  },
  {
    id: 'nested-package-added-repacked',
    klass: 'membership: nested package added, outer re-packed: the hand edit is still the outer package’s',
    codes: ['audit/unexplained-change'],
    policy: 'warning',
    build: () =>
      oneCommit(T.ledger, (pkg) => {
        writeInnerPackage(pkg);
        editCurrency(pkg);
        pack(join(pkg, 'money'));
        pack(pkg);
      }),
  },
  {
    id: 'unlisted-module',
    klass: 'membership: a new .gc file in the package directory that no manifest lists',
    codes: ['audit/unlisted-module'],
    policy: 'warning',
    file: `${PKG}/money/extra.gc`,
    build: () => oneCommit(T.ledger, (pkg) => writeFileSync(join(pkg, 'money/extra.gc'), '(def ledger/extra::rate 7)\n')),
  },
  {
    id: 'outside-package',
    klass: 'membership: a .gc file outside every package',
    codes: ['audit/outside-package'],
    policy: 'warning',
    file: 'tools/gen.gc',
    // One warning per file when asked (by default they are one notice with the count: test/verify-pr/outside.test.ts).
    build: () =>
      oneCommit(
        T.ledger,
        (_, repo) => {
          mkdirSync(join(repo, 'tools'));
          writeFileSync(join(repo, 'tools/gen.gc'), '(def tools/gen::main (fn (x) x))\n');
        },
        { outsidePackage: 'warning' },
      ),
  },
  // object kinds
  {
    id: 'symlink-module',
    klass: 'kinds: a module replaced by a symlink whose link text is the old code',
    codes: NOT_REGULAR,
    policy: 'error',
    file: CURRENCY_PATH,
    via: 'action',
    build: () => oneEntry('120000', CURRENCY_PATH, onMain(CURRENCY_PATH)),
  },
  {
    id: 'symlink-store-entry',
    klass: 'kinds: a store entry that is a symlink named by the hash of its link text',
    codes: NOT_REGULAR,
    policy: 'error',
    build: () => oneEntry('120000', `${PKG}/.genesis/store/${storeName('../../money/currency.gc')}`, (repo) => writeBlob(repo, '../../money/currency.gc')),
  },
  {
    id: 'gitlink-package-dir',
    klass: 'kinds: the package directory replaced by a gitlink (submodule)',
    codes: NOT_REGULAR,
    policy: 'error',
    build: () => oneEntry('160000', PKG, (_, base) => base),
  },
  {
    id: 'file-package-dir',
    klass: 'kinds: the package directory replaced by a file',
    codes: NOT_REGULAR,
    policy: 'error',
    build: () => oneEntry('100644', PKG, (repo) => writeBlob(repo, 'moved elsewhere\n')),
  },
  {
    id: 'symlink-manifest',
    klass: 'kinds: package.toml replaced by a symlink whose link text is the old manifest',
    codes: NOT_REGULAR,
    policy: 'error',
    file: MANIFEST_PATH,
    build: () => oneEntry('120000', MANIFEST_PATH, onMain(MANIFEST_PATH)),
  },
  {
    id: 'symlink-policy',
    klass: 'kinds: the caps_policy file replaced by a symlink',
    codes: NOT_REGULAR,
    policy: 'error',
    file: `${PKG}/caps.toml`,
    build: () => oneEntry('120000', `${PKG}/caps.toml`, (repo) => writeBlob(repo, '../../shared/caps-open.toml')),
  },
  {
    id: 'symlink-module-directory',
    klass: 'kinds: a directory of modules replaced by a symlink (the checkout reads another directory)',
    codes: [...NOT_REGULAR, 'audit/package-unreadable'],
    policy: 'error',
    build: () => oneEntry('120000', `${PKG}/money`, (repo) => writeBlob(repo, '../../vendor/money')),
  },
  {
    id: 'symlink-store-directory',
    klass: 'kinds: the evidence store directory replaced by a symlink',
    codes: NOT_REGULAR,
    policy: 'error',
    build: () => oneEntry('120000', `${PKG}/.genesis/store`, (repo) => writeBlob(repo, '../../cache/store')),
  },
  {
    id: 'gitlink-module',
    klass: 'kinds: a module replaced by a gitlink',
    codes: NOT_REGULAR,
    policy: 'error',
    file: CURRENCY_PATH,
    build: () => oneEntry('160000', CURRENCY_PATH, (_, base) => base),
  },
  {
    id: 'mode-change',
    klass: 'kinds: a module made executable',
    codes: ['audit/mode-changed'],
    policy: 'warning',
    file: CURRENCY_PATH,
    build: () => oneEntry('100755', CURRENCY_PATH, onMain(CURRENCY_PATH)),
  },
  {
    id: 'case-collision-module',
    klass: 'kinds: an edited copy of a module at a path differing only in case',
    codes: ['audit/path-case-collision'],
    policy: 'error',
    file: `${PKG}/money/Currency.gc`,
    build: () =>
      oneCommit(T.ledger, (pkg) => writeFileSync(join(pkg, 'money/Currency.gc'), readFileSync(join(pkg, CURRENCY), 'utf8').replace('"CHF"', '"Fr."'))),
  },
  {
    id: 'case-collision-manifest',
    klass: 'kinds: a Package.toml without the obligation next to package.toml',
    codes: ['audit/path-case-collision'],
    policy: 'error',
    build: () =>
      oneCommit(T.obligation, (pkg) => {
        const text = readFileSync(manifestOf(pkg), 'utf8');
        writeFileSync(join(pkg, 'Package.toml'), text.replace(`obligations = [${JSON.stringify(OBLIGATION)}]`, 'obligations = []'));
      }),
  },
  // crafted merges
  {
    id: 'merge-old-main-drops-obligation',
    klass: 'merges: second parent an old main commit without the obligation; the merge drops it',
    codes: WEAKENED,
    policy: 'error',
    via: 'action',
    build: () => {
      const { repo, pkg, base } = start(T.obligation);
      dropObligation(pkg);
      return { repo, base, head: commitTree(repo, stageTree(repo), [base, git(repo, 'rev-parse', 'main~1')], 'Merge an old main') };
    },
  },
  {
    id: 'merge-old-main-first-parent-drops-obligation',
    klass: 'merges: first parent an old main commit without the obligation (judged against the merge base too)',
    codes: WEAKENED,
    policy: 'error',
    build: () => {
      const { repo, pkg, base } = start(T.obligation);
      dropObligation(pkg);
      return { repo, base, head: commitTree(repo, stageTree(repo), [git(repo, 'rev-parse', 'main~1'), base], 'Merge main into an old main') };
    },
  },
  {
    id: 'merge-old-main-drops-test-suite',
    klass: 'merges: second parent an old main commit without a test suite; the merge drops it',
    codes: WEAKENED,
    policy: 'error',
    build: () => {
      const repo = scratch.copy(T.ledger);
      const manifest = manifestOf(join(repo, PKG));
      const main0 = git(repo, 'rev-parse', 'HEAD');
      edit(manifest, TEST_SUITE_LINE, `${TEST_SUITE_LINE}    "ledger/tests::extra-suite",\n`);
      const main1 = commitAll(repo, 'a test suite');
      edit(manifest, '    "ledger/tests::extra-suite",\n', '');
      return { repo, base: main1, head: commitTree(repo, stageTree(repo), [main1, main0], 'Merge an old main') };
    },
  },
  {
    id: 'octopus-reverts-main-fix',
    klass: 'merges: an octopus puts a module main fixed back to its old version',
    codes: MODULE_CHANGE,
    policy: 'warning',
    build: () => octopusRevert(CURRENCY),
  },
  {
    id: 'octopus-reverts-refactored-module',
    klass: 'merges: an octopus puts a module the PR’s evidence changed back to an old version',
    codes: MODULE_CHANGE,
    policy: 'error',
    build: () => octopusRevert('core/pair.gc'),
  },
  {
    id: 'merge-unrelated-root',
    klass: 'merges: a merge with an unrelated root commit carrying a hand edit (a verdict, never internal)',
    codes: MODULE_CHANGE,
    policy: 'warning',
    via: 'cli',
    build: () => {
      const repo = scratch.copy(T.ledger);
      const base = git(repo, 'rev-parse', 'HEAD');
      editCurrency(join(repo, PKG));
      pack(join(repo, PKG));
      const tree = stageTree(repo);
      const root = commitTree(repo, tree, [], 'an unrelated history');
      return { repo, base, head: commitTree(repo, tree, [base, root], 'Merge an unrelated history') };
    },
  },
  {
    id: 'evil-merge-into-refactored-module',
    klass: 'merges: a merge from main that slips a hand edit into a module the PR refactored',
    codes: MODULE_CHANGE,
    policy: 'error',
    build: () => {
      const { repo, pkg, base } = mainMovesOn();
      if (!tryMerge(repo, '--no-commit', 'main')) throw new Error('main does not merge cleanly');
      editPair(pkg);
      pack(pkg);
      commitAll(repo, 'Merge main');
      return pr(repo, base);
    },
  },
  // policy files
  {
    id: 'caps-widened',
    klass: 'policy: caps.toml widened from allow = [] to network and filesystem capabilities',
    codes: ['audit/caps-widened'],
    policy: 'error',
    file: `${PKG}/caps.toml`,
    via: 'action',
    build: () => oneCommit(T.ledger, (pkg) => writeFileSync(join(pkg, 'caps.toml'), CAPS_WIDE)),
  },
  {
    id: 'caps-policy-repointed',
    klass: 'policy: caps_policy pointed at a new permissive file',
    codes: ['audit/caps-widened'],
    policy: 'error',
    build: () =>
      oneCommit(T.ledger, (pkg) => {
        writeFileSync(join(pkg, 'caps-open.toml'), CAPS_WIDE);
        edit(manifestOf(pkg), 'caps_policy = "caps.toml"', 'caps_policy = "caps-open.toml"');
      }),
  },
  {
    id: 'caps-policy-repointed-existing',
    klass: 'policy: caps_policy pointed at another policy file the package already has, which allows more',
    codes: ['audit/caps-widened'],
    policy: 'error',
    build: () => manifestEdit('caps_policy = "caps.toml"', 'caps_policy = "toolcaps.toml"'),
  },
  {
    id: 'caps-repoint-and-widen-old',
    klass: 'policy: caps_policy repointed by evidence to a strict new file while the old caps.toml (still in the package) is widened by hand',
    codes: ['audit/caps-widened'],
    policy: 'error',
    file: `${PKG}/caps.toml`,
    build: () =>
      oneCommit(T.ledger, (pkg) => {
        writeFileSync(join(pkg, 'caps-strict.toml'), CAPS_NONE);
        applyPatchText(scratch, pkg, onePatch('a policy file of its own', '{:op :update-manifest :caps-policy "caps-strict.toml"}'));
        writeFileSync(join(pkg, 'caps.toml'), CAPS_WIDE);
      }),
  },
  {
    id: 'attributes-not-utf8',
    klass: 'kinds: a .gitattributes with a byte that is not UTF-8 before `*.gc ident` (git reads it anyway)',
    codes: ['audit/checkout-attributes'],
    policy: 'error',
    file: '.gitattributes',
    build: () => oneCommit(T.ledger, (_pkg, repo) => writeFileSync(join(repo, '.gitattributes'), Buffer.from('# \xff\n*.gc ident\n', 'latin1'))),
  },
  {
    id: 'attributes-text',
    klass: 'kinds: `*.gc text` (with core.eol=crlf, native on Windows, a checkout rewrites line ends inside string literals)',
    codes: ['audit/checkout-attributes'],
    policy: 'error',
    file: '.gitattributes',
    build: () => oneCommit(T.ledger, (_pkg, repo) => writeFileSync(join(repo, '.gitattributes'), '*.gc text\n')),
  },
  {
    id: 'package-moved-weakened',
    klass: 'moved: the package moved to another directory, its obligation dropped on the way',
    codes: WEAKENED,
    policy: 'error',
    build: () =>
      movedPackage(T.obligation, (pkg) => {
        edit(manifestOf(pkg), `obligations = [${JSON.stringify(OBLIGATION)}]`, 'obligations = []');
      }),
  },
  {
    id: 'package-moved-caps-widened',
    klass: 'moved: the package moved to another directory, its caps.toml widened on the way',
    codes: ['audit/caps-widened'],
    policy: 'error',
    build: () =>
      movedPackage(T.ledger, (pkg) => {
        writeFileSync(join(pkg, 'caps.toml'), CAPS_WIDE);
      }),
  },
  {
    id: 'manifest-case-variant',
    klass: 'kinds: package.toml replaced by Package.toml without the obligation (a case-insensitive checkout reads it as the manifest)',
    codes: ['audit/package-unreadable', 'audit/path-case-collision'],
    policy: 'error',
    build: () =>
      oneCommit(T.obligation, (pkg) => {
        const text = readFileSync(manifestOf(pkg), 'utf8').replace(`obligations = [${JSON.stringify(OBLIGATION)}]`, 'obligations = []');
        rmSync(manifestOf(pkg));
        writeFileSync(join(pkg, 'Package.toml'), text);
      }),
  },
  {
    id: 'case-fold-unicode',
    klass: 'kinds: an edited copy of a module under teſts/ (U+017F folds to s: one directory to APFS and NTFS)',
    codes: ['audit/path-case-collision'],
    policy: 'error',
    build: () =>
      oneCommit(T.ledger, (pkg) => {
        mkdirSync(join(pkg, 'te\u017Fts'));
        writeFileSync(join(pkg, 'te\u017Fts/amount-test.gc'), readFileSync(join(pkg, 'tests/amount-test.gc'), 'utf8') + '\n(def ledger/tests::extra 1)\n');
      }),
  },
  {
    id: 'merge-conflict-reverts-limit',
    klass: 'merges: a merge whose manifest conflicts on one key (a comment) reverts main\u2019s tightened step_limit on another',
    codes: ['audit/limits-raised'],
    policy: 'error',
    build: () => {
      const { repo, pkg, base } = start(T.ledger);
      edit(manifestOf(pkg), 'version = "0.3.1"', 'version = "0.3.2"');
      edit(manifestOf(pkg), 'step_limit = 1000000', 'step_limit = 500000');
      const m1 = commitAll(repo, 'main: release 0.3.2, tighten step_limit');
      git(repo, 'checkout', '-q', '-b', 'side', base);
      edit(manifestOf(pkg), 'version = "0.3.1"', 'version = "0.3.1"\n# branch cut');
      const p1 = commitAll(repo, 'note the branch cut');
      writeFileSync(manifestOf(pkg), git(repo, 'show', `${m1}:${MANIFEST_PATH}`).replace('step_limit = 500000', 'step_limit = 1000000') + '\n');
      git(repo, 'add', '-A');
      const head = commitTree(repo, git(repo, 'write-tree'), [p1, m1], "Merge branch 'main'");
      git(repo, 'reset', '-q', '--hard', head);
      return pr(repo, m1);
    },
  },
  {
    id: 'merge-conflict-reverts-caps-narrowing',
    klass: 'merges: main narrows caps.toml; the PR adds a comment to the old text and resolves the conflict to it',
    codes: ['audit/caps-widened'],
    policy: 'error',
    build: () => {
      const { repo, pkg } = start(T.ledger);
      writeFileSync(join(pkg, 'caps.toml'), 'allow = ["io/net::http-request"]\n');
      const m0 = commitAll(repo, 'main: caps allows net');
      writeFileSync(join(pkg, 'caps.toml'), 'allow = []\n');
      const m1 = commitAll(repo, 'main: revoke net');
      git(repo, 'checkout', '-q', '-b', 'side', m0);
      writeFileSync(join(pkg, 'caps.toml'), '# reviewed\nallow = ["io/net::http-request"]\n');
      const p1 = commitAll(repo, 'comment caps.toml');
      const head = commitTree(repo, git(repo, 'write-tree'), [p1, m1], "Merge branch 'main'");
      git(repo, 'reset', '-q', '--hard', head);
      return pr(repo, m1);
    },
  },
  {
    id: 'genesis-nested-manifest',
    klass: 'membership: a package.toml under .genesis/ tries to take the store away (a tampered entry, a symlink entry)',
    codes: ['audit/store-entry-modified', 'audit/not-a-regular-file'],
    policy: 'error',
    build: () =>
      oneCommit(T.ledger, (pkg) => {
        const store = join(pkg, '.genesis/store');
        const entry = readdirSync(store).find((n) => /^[0-9a-f]{64}$/.test(n))!;
        writeFileSync(join(store, entry), readFileSync(join(store, entry), 'utf8') + 'tampered\n');
        writeFileSync(
          join(pkg, '.genesis/package.toml'),
          'dependencies = []\nname = "x"\nobligations = []\nschema = 1\ntests = []\nversion = "0.0.1"\nmodules = []\n',
        );
      }),
  },
  {
    id: 'package-moved-and-renamed',
    klass: 'moved: the package moved and renamed (a new name), its limit raised on the way',
    codes: ['audit/limits-raised'],
    policy: 'error',
    build: () =>
      movedPackage(T.ledger, (pkg) => {
        edit(manifestOf(pkg), 'name = "ledger"', 'name = "ledger-two"');
        edit(manifestOf(pkg), 'step_limit = 1000000', 'step_limit = 999999999');
      }),
  },
  {
    id: 'package-moved-out-of-selection',
    klass: 'selection: the package moved into a directory the selection excludes, its limit raised on the way',
    codes: ['audit/limits-raised'],
    policy: 'error',
    build: () =>
      movedPackage(T.ledger, (pkg) => edit(manifestOf(pkg), 'step_limit = 1000000', 'step_limit = 999999999'), 'vendor/ledger', { packages: ['!vendor/**'] }),
  },
  {
    id: 'limit-nan',
    klass: 'keys: step_limit set to nan (it bounds nothing)',
    codes: ['audit/limits-raised'],
    policy: 'error',
    build: () => manifestEdit('step_limit = 1000000', 'step_limit = nan'),
  },
  {
    id: 'toolcaps-widened',
    klass: 'policy: toolcaps.toml widened',
    codes: ['audit/caps-widened'],
    policy: 'error',
    file: `${PKG}/toolcaps.toml`,
    build: () => oneCommit(T.ledger, (pkg) => writeFileSync(join(pkg, 'toolcaps.toml'), CAPS_WIDE)),
  },
  {
    id: 'caps-changed',
    klass: 'policy: a policy file changed without allowing more (toolcaps.toml narrowed)',
    codes: ['audit/caps-changed'],
    policy: 'warning',
    file: `${PKG}/toolcaps.toml`,
    build: () => oneCommit(T.ledger, (pkg) => writeFileSync(join(pkg, 'toolcaps.toml'), CAPS_NONE)),
  },
  // manifest keys
  {
    id: 'limits-step-raised',
    klass: 'keys: [limits] step_limit raised',
    codes: ['audit/limits-raised'],
    policy: 'error',
    file: MANIFEST_PATH,
    build: () => manifestEdit('step_limit = 1000000', 'step_limit = 1000000000'),
  },
  {
    id: 'limits-raised-inline-table',
    klass: 'keys: [limits] respelled as an inline table with step_limit raised',
    codes: ['audit/limits-raised'],
    policy: 'error',
    build: () =>
      oneCommit(T.ledger, (pkg) => {
        edit(manifestOf(pkg), '[limits]\nallow_unlimited = false\nmax_alloc_units = 1000000\nstep_limit = 1000000\n\n', '');
        edit(manifestOf(pkg), 'schema = 1\n', 'limits = { allow_unlimited = false, max_alloc_units = 1000000, step_limit = 1000000000 }\nschema = 1\n');
      }),
  },
  {
    id: 'limits-unlimited',
    klass: 'keys: [limits] allow_unlimited turned on',
    codes: ['audit/limits-raised'],
    policy: 'error',
    build: () => manifestEdit('allow_unlimited = false', 'allow_unlimited = true'),
  },
  {
    id: 'limits-removed',
    klass: 'keys: the [limits] table removed',
    codes: ['audit/limits-raised'],
    policy: 'error',
    build: () => manifestEdit('[limits]\nallow_unlimited = false\nmax_alloc_units = 1000000\nstep_limit = 1000000\n\n', ''),
  },
  {
    id: 'property-cases-lowered',
    klass: 'keys: [property] cases_per_test lowered',
    codes: ['audit/limits-raised'],
    policy: 'error',
    build: () => manifestEdit('cases_per_test = 100', 'cases_per_test = 1'),
  },
  {
    id: 'dependency-hand-pin',
    klass: 'keys: a dependency added with a hand-written pin',
    codes: ['audit/manifest-key-changed'],
    policy: 'error',
    file: MANIFEST_PATH,
    build: () => manifestEdit('dependencies = []', `dependencies = [{ name = "evil", path = "vendor/evil", hash = "${'ab'.repeat(32)}" }]`),
  },
  {
    id: 'name-changed',
    klass: 'keys: the package name changed by hand',
    codes: ['audit/manifest-key-changed'],
    policy: 'error',
    build: () => manifestEdit('name = "ledger"', 'name = "ledger-next"'),
  },
  {
    id: 'checkout-attributes-ident',
    klass: 'kinds: a .gitattributes in the package turns on ident, so the checkout the toolchain reads differs from the verified blobs',
    codes: ['audit/checkout-attributes'],
    policy: 'error',
    file: 'ledger/.gitattributes',
    build: () => oneCommit(T.ledger, (pkg) => writeFileSync(join(pkg, '.gitattributes'), '*.gc ident\n')),
  },
  {
    id: 'checkout-attributes-root-eol',
    klass: 'kinds: the root .gitattributes gains eol=crlf for .gc files (a checkout rewrites every module)',
    codes: ['audit/checkout-attributes'],
    policy: 'error',
    file: '.gitattributes',
    build: () => oneCommit(T.ledger, (_pkg, repo) => writeFileSync(join(repo, '.gitattributes'), '*.gc text eol=crlf\n')),
  },
  {
    id: 'unknown-key-added',
    klass: 'keys: an unknown manifest key added',
    codes: ['audit/manifest-key-changed'],
    policy: 'error',
    build: () => manifestEdit('schema = 1\n', 'schema = 1\ntrusted = true\n'),
  },
  {
    id: 'modules-reordered',
    klass: 'keys: the [[modules]] list reordered by hand',
    codes: ['audit/unexplained-change'],
    policy: 'warning',
    build: () =>
      oneCommit(T.ledger, (pkg) => {
        const blocks = readFileSync(manifestOf(pkg), 'utf8').split('\n\n[[modules]]\n');
        [blocks[1], blocks[2]] = [blocks[2]!, blocks[1]!];
        writeFileSync(manifestOf(pkg), blocks.join('\n\n[[modules]]\n'));
      }),
  },
  {
    id: 'module-moved-by-hand',
    klass: 'keys: a module moved (file renamed, [[modules]] path edited) by hand',
    codes: ['audit/unexplained-change'],
    policy: 'warning',
    build: () =>
      oneCommit(T.ledger, (pkg) => {
        cpSync(join(pkg, CURRENCY), join(pkg, 'money/currencies.gc'));
        rmSync(join(pkg, CURRENCY));
        edit(manifestOf(pkg), 'path = "money/currency.gc"', 'path = "money/currencies.gc"');
      }),
  },
  {
    id: 'package-moved-with-edit',
    klass: 'deleted: the package moved to another directory with a hand edit on the way',
    codes: ['audit/package-deleted', 'audit/unexplained-change'],
    policy: 'warning',
    build: () =>
      movedPackage(T.ledger, (pkg) => {
        editCurrency(pkg);
        pack(pkg);
      }),
  },
  // obligations and tests
  {
    id: 'obligation-dropped',
    klass: 'obligations: a declared obligation removed by hand',
    codes: WEAKENED,
    policy: 'error',
    file: MANIFEST_PATH,
    build: () => oneCommit(T.obligation, dropObligation),
  },
  {
    id: 'obligation-replaced',
    klass: 'obligations: a declared obligation replaced by another name',
    codes: WEAKENED,
    policy: 'error',
    build: () => oneCommit(T.obligation, (pkg) => edit(manifestOf(pkg), OBLIGATION, 'ledger/tests::trivial')),
  },
  {
    id: 'test-suite-dropped',
    klass: 'obligations: a test suite removed by hand',
    codes: WEAKENED,
    policy: 'error',
    build: () => manifestEdit(TEST_SUITE_LINE, ''),
  },
  {
    id: 'property-tests-dropped',
    klass: 'obligations: a property_tests entry removed by hand',
    codes: WEAKENED,
    policy: 'error',
    build: () => manifestEdit('property_tests = ["ledger/tests::amount-properties"]', 'property_tests = []'),
  },
  // a package that cannot be read in the middle of the PR does not restart the chain
  ...Object.keys(breakers).flatMap((breaker): Attack[] => [
    {
      id: `unreadable-middle-${breaker.replace(/ /g, '-').toLowerCase()}-then-obligation-drop`,
      klass: `unreadable middle: package.toml ${breaker}, then restored without the obligation`,
      codes: WEAKENED,
      policy: 'error',
      build: () => brokenThenDrop(breaker),
    },
    {
      id: `unreadable-middle-${breaker.replace(/ /g, '-').toLowerCase()}-then-hidden-edit`,
      klass: `unreadable middle: package.toml ${breaker}, then a hand edit of the module a refactor changed earlier`,
      codes: MODULE_CHANGE,
      policy: 'error',
      build: () => hiddenEditAfterRefactor(breakers[breaker]),
    },
  ]),
  // replay: false keeps every static check
  {
    id: 'no-replay-obligation-drop',
    klass: 'replay off: an obligation dropped (--no-replay)',
    codes: WEAKENED,
    policy: 'error',
    via: 'cli',
    build: () => oneCommit(T.obligation, dropObligation, { replay: false }),
  },
  {
    id: 'no-replay-test-suite-drop',
    klass: 'replay off: a test suite dropped',
    codes: WEAKENED,
    policy: 'error',
    build: () => manifestEdit(TEST_SUITE_LINE, '', { replay: false }),
  },
  {
    id: 'no-replay-hidden-edit',
    klass: 'replay off: a hand edit of the module a refactor changed earlier in the PR',
    codes: MODULE_CHANGE,
    policy: 'error',
    build: () => hiddenEditAfterRefactor(undefined, { replay: false }),
  },
  {
    id: 'no-replay-symlink-module',
    klass: 'replay off: a module replaced by a symlink',
    codes: NOT_REGULAR,
    policy: 'error',
    build: () => oneEntry('120000', CURRENCY_PATH, onMain(CURRENCY_PATH), { replay: false }),
  },
  {
    id: 'no-replay-caps-widened',
    klass: 'replay off: caps.toml widened',
    codes: ['audit/caps-widened'],
    policy: 'error',
    build: () => oneCommit(T.ledger, (pkg) => writeFileSync(join(pkg, 'caps.toml'), CAPS_WIDE), { replay: false }),
  },
  // evidence from another copy
  {
    id: 'evidence-from-copy-without-obligations',
    klass: 'evidence: a rename made in a scratch copy with obligations = [], copied into the package that declares one',
    codes: ['audit/evidence-foreign'],
    policy: 'error',
    build: () => evidenceFromCopy(T.obligation, dropObligation),
  },
  {
    id: 'evidence-from-copy-other-obligation',
    klass: 'evidence: a rename accepted in a scratch copy that declares a weaker obligation instead, copied into the package',
    codes: ['audit/evidence-foreign'],
    policy: 'error',
    build: () => evidenceFromCopy(T.obligation, (copy) => edit(manifestOf(copy), OBLIGATION, 'ledger/tests::trivial'), runner),
  },
  // the selection
  {
    id: 'selection-comma-cli',
    klass: 'selection: --packages "a/package.toml,b/package.toml" selects both (stale pin in b)',
    codes: ['audit/pin-mismatch'],
    policy: 'error',
    file: 'pkgs/b/package.toml',
    via: 'cli',
    build: () => twoPackageEdit({ packages: 'pkgs/a/package.toml,pkgs/b/package.toml' }),
  },
  {
    id: 'selection-newline',
    klass: 'selection: a newline-separated packages input selects both (stale pin in b)',
    codes: ['audit/pin-mismatch'],
    policy: 'error',
    build: () => twoPackageEdit({ packages: 'pkgs/a/package.toml\npkgs/b/package.toml' }),
  },
  {
    id: 'selection-exclusion-alone',
    klass: 'selection: ["!pkgs/other/**"] alone excludes from the default (stale pin in b)',
    codes: ['audit/pin-mismatch'],
    policy: 'error',
    build: () => twoPackageEdit({ packages: ['!pkgs/other/**'] }),
  },
  {
    id: 'selection-empty',
    klass: 'selection: a selection that selects none of the changed packages',
    codes: ['audit/selection-empty'],
    policy: 'error',
    build: () => twoPackageEdit({ packages: 'pkgs/nothing/package.toml' }),
  },
  // stale references
  {
    id: 'dangling-after-main-rename',
    klass: 'references: main renames with evidence, the PR adds a use of the old name and merges main',
    codes: ['audit/dangling-reference'],
    policy: 'error',
    file: `${PKG}/core/list.gc`,
    build: () => {
      const { repo, pkg } = start(T.ledger);
      const list = join(pkg, 'core/list.gc');
      writeFileSync(list, `${readFileSync(list, 'utf8')}\n(def ledger/list::first-of (fn (p) (ledger/pair::first p)))\n`);
      pack(pkg);
      commitAll(repo, 'a use of ledger/pair::first');
      git(repo, 'checkout', '-q', 'main');
      renameFirst(pkg);
      const base = commitAll(repo, 'rename pair first (main)');
      git(repo, 'checkout', '-q', 'pr');
      if (!tryMerge(repo, '--no-edit', 'main')) throw new Error('main does not merge cleanly');
      if (
        !readFileSync(list, 'utf8').includes('(ledger/pair::first p)') ||
        readFileSync(join(pkg, 'core/pair.gc'), 'utf8').includes('(def ledger/pair::first')
      ) {
        throw new Error('the merge does not hold a use of a name no module defines');
      }
      return pr(repo, base);
    },
  },
  {
    id: 'dangling-after-hand-removal',
    klass: 'references: a definition another module uses removed by hand',
    codes: ['audit/dangling-reference'],
    policy: 'error',
    file: `${PKG}/money/format.gc`,
    build: () =>
      oneCommit(T.ledger, (pkg) => {
        const file = join(pkg, CURRENCY);
        const text = readFileSync(file, 'utf8');
        const kept = text.slice(0, text.indexOf('(def ledger/currency::info')) + text.slice(text.indexOf('(def ledger/currency::same?'));
        writeFileSync(file, kept.replace('[ledger/currency::info ledger/currency::same?]', '[ledger/currency::same?]'));
        pack(pkg);
      }),
  },
  // a head that cannot be read
  {
    id: 'head-manifest-invalid-toml',
    klass: 'unreadable head: package.toml is not TOML',
    codes: ['audit/package-unreadable'],
    policy: 'error',
    build: () => manifestEdit('[[modules]]', '[[modules]'),
  },
  {
    id: 'head-module-path-escapes',
    klass: 'unreadable head: a module path that leaves the package directory',
    codes: ['audit/package-unreadable'],
    policy: 'error',
    build: () => manifestEdit('path = "money/currency.gc"', 'path = "money/../../evil/currency.gc"'),
  },
  {
    id: 'head-module-unparsable',
    klass: 'unreadable head: a module that does not parse',
    codes: ['audit/package-unreadable'],
    policy: 'error',
    file: CURRENCY_PATH,
    build: () =>
      oneCommit(T.ledger, (pkg) => writeFileSync(join(pkg, CURRENCY), `${readFileSync(join(pkg, CURRENCY), 'utf8')}\n(def ledger/currency::broken\n`)),
  },
  {
    id: 'head-module-missing',
    klass: 'unreadable head: a listed module deleted',
    codes: ['audit/package-unreadable'],
    policy: 'error',
    build: () => oneCommit(T.ledger, (pkg) => rmSync(join(pkg, CURRENCY))),
  },
  {
    id: 'head-manifest-directory',
    klass: 'unreadable head: package.toml is a directory',
    codes: ['audit/package-unreadable', ...NOT_REGULAR],
    policy: 'error',
    build: () => {
      const { repo, pkg, base } = start(T.ledger);
      breakers['a directory']!(repo, pkg);
      return pr(repo, base);
    },
  },
  // the store
  {
    id: 'store-entry-modified',
    klass: 'store: an entry main holds rewritten',
    codes: ['audit/store-entry-modified'],
    policy: 'error',
    build: () => oneCommit(T.ledger, (_, repo) => writeFileSync(mainStoreEntry(repo), `${readFileSync(mainStoreEntry(repo), 'utf8')} `)),
  },
  {
    id: 'store-hash-mismatch',
    klass: 'store: a new entry that does not hash to its name',
    codes: ['audit/store-hash-mismatch'],
    policy: 'error',
    build: () => oneCommit(T.ledger, (pkg) => writeFileSync(join(pkg, '.genesis/store', '0'.repeat(64)), '{:kind "genesis/acceptance-v0.2" :ok true}')),
  },
  {
    id: 'store-entry-removed',
    klass: 'store: an entry main holds deleted',
    codes: ['audit/store-entry-removed'],
    policy: 'warning',
    build: () => oneCommit(T.ledger, (_, repo) => rmSync(mainStoreEntry(repo))),
  },
  // modules
  {
    id: 'hand-edit-stale-pin',
    klass: 'modules: a hand edit with the old pin',
    codes: ['audit/pin-mismatch'],
    policy: 'error',
    file: MANIFEST_PATH,
    build: () => oneCommit(T.ledger, editCurrency),
  },
  {
    id: 'hand-edit-repacked',
    klass: 'modules: a hand edit, re-packed, no evidence',
    codes: ['audit/unexplained-change'],
    policy: 'warning',
    file: CURRENCY_PATH,
    build: () =>
      oneCommit(T.ledger, (pkg) => {
        editCurrency(pkg);
        pack(pkg);
      }),
  },
  {
    id: 'hand-edit-under-refactor',
    klass: 'modules: a hand edit made before a refactor in the same commit (the evidence was made on the edited state)',
    codes: MODULE_CHANGE,
    policy: 'error',
    file: `${PKG}/core/pair.gc`,
    build: () =>
      oneCommit(T.ledger, (pkg) => {
        editPair(pkg);
        pack(pkg);
        renameFirst(pkg);
      }),
  },
  {
    id: 'hidden-edit-after-refactor',
    klass: 'modules: a hand edit of the module a refactor changed earlier in the PR',
    codes: MODULE_CHANGE,
    policy: 'error',
    file: `${PKG}/core/pair.gc`,
    build: () => hiddenEditAfterRefactor(),
  },
  {
    id: 'hidden-edit-with-refactor',
    klass: 'modules: a hand edit in the refactor’s own commit',
    codes: ['audit/replay-module-mismatch'],
    policy: 'error',
    build: () =>
      oneCommit(T.ledger, (pkg) => {
        renameFirst(pkg);
        editPair(pkg);
        pack(pkg);
      }),
  },
  // the net change (docs/security.md "The construction"): no history shape excuses a difference
  {
    id: 'orphan-first-parent-limits',
    klass: 'net change: an orphan snapshot with step_limit raised, merged as the first parent',
    codes: ['audit/limits-raised'],
    policy: 'error',
    via: 'action',
    build: () => orphanMerge(T.ledger, (pkg) => edit(manifestOf(pkg), 'step_limit = 1000000', 'step_limit = 1000000000'), 'orphan-first'),
  },
  {
    id: 'orphan-second-parent-op-table',
    klass: 'net change: an orphan snapshot that adds an empty [op."X"] table, merged as the second parent',
    codes: ['audit/caps-widened'],
    policy: 'error',
    build: () => orphanMerge(T.ledger, (pkg) => writeFileSync(join(pkg, 'caps.toml'), `${CAPS_NONE}\n[op."io/net::http-request"]\n`), 'orphan-second'),
  },
  {
    id: 'orphan-hand-edit-refactored-module',
    klass: 'net change: an orphan snapshot with a hand edit of the module the evidence renamed, merged as the first parent',
    codes: ['audit/replay-module-mismatch'],
    policy: 'error',
    file: `${PKG}/core/pair.gc`,
    build: () => orphanMerge(T.ledger, editPair, 'orphan-first'),
  },
  {
    id: 'orphan-drops-obligation',
    klass: 'net change: an orphan snapshot without the declared obligation, merged as the first parent',
    codes: WEAKENED,
    policy: 'error',
    build: () => orphanMerge(T.obligation, dropObligation, 'orphan-first'),
  },
  {
    id: 'pre-package-history-merged',
    klass: 'net change: a side history whose root has no package (a merge base before the package) adds it with raised limits and an op table, merged in',
    codes: ['audit/limits-raised', 'audit/caps-widened'],
    policy: 'error',
    build: () => {
      const { repo, pkg, base } = start(T.ledger);
      renameFirst(pkg);
      const p1 = commitAll(repo, 'rename pair first');
      const readme = commitTree(
        repo,
        gitWithInput(repo, `100644 blob ${writeBlob(repo, '# ledger\n')}\tREADME.md\n`, 'mktree'),
        [],
        'a history before the package',
      );
      edit(manifestOf(pkg), 'step_limit = 1000000', 'step_limit = 1000000000');
      writeFileSync(join(pkg, 'caps.toml'), `${CAPS_NONE}\n[op."io/fs::write"]\ntimeout_ms = 5\n`);
      const tree = stageTree(repo);
      const side = commitTree(repo, tree, [readme], 'add the package');
      return { repo, base, head: commitTree(repo, tree, [p1, side], 'Merge the side history') };
    },
  },
  {
    id: 'parallel-hand-edit-refactored-module',
    klass: 'net change: a hand edit of the renamed module made on a branch parallel to the evidence, then merged',
    codes: ['audit/replay-module-mismatch'],
    policy: 'error',
    file: `${PKG}/core/pair.gc`,
    build: () => parallelEdit(editPair, 'evidence-first'),
  },
  {
    id: 'parallel-hand-edit-first-parent-swap',
    klass: 'net change: the parallel hand edit merged with the parents swapped (the edit first)',
    codes: ['audit/replay-module-mismatch'],
    policy: 'error',
    file: `${PKG}/core/pair.gc`,
    build: () => parallelEdit(editPair, 'edit-first'),
  },
  {
    id: 'stale-hand-edit-then-refactor-merge-main',
    klass: 'net change: a hand edit of a stale module (main edited it after the fork point), then the refactor of it, then main merged',
    codes: ['audit/replay-module-mismatch'],
    policy: 'error',
    file: `${PKG}/core/pair.gc`,
    build: () => staleModuleMerge(editPair, 'merge-main'),
  },
  {
    id: 'stale-side-hand-edit-evidence-first',
    klass: 'net change: a hand edit on a side branch from the stale fork point, merged with the refactor made on main (evidence first)',
    codes: ['audit/replay-module-mismatch'],
    policy: 'error',
    file: `${PKG}/core/pair.gc`,
    build: () => staleModuleMerge(editPair, 'parallel-evidence-first'),
  },
  {
    id: 'stale-side-hand-edit-edit-first',
    klass: 'net change: the stale side branch hand edit merged with the parents swapped (the edit first)',
    codes: ['audit/replay-module-mismatch'],
    policy: 'error',
    file: `${PKG}/core/pair.gc`,
    build: () => staleModuleMerge(editPair, 'parallel-edit-first'),
  },
  {
    id: 'unreadable-merge-drops-main-edit',
    klass:
      "net change: an unreadable merge of an old and the new main (the old first), a refactor on the old state, main merged again: main's edit of the refactored module dropped",
    codes: ['audit/replay-module-mismatch'],
    policy: 'error',
    file: `${PKG}/core/pair.gc`,
    build: () => unreadableMergeDropsMainEdit(),
  },
  {
    id: 'op-table-added-empty',
    klass: 'policy: an empty [op."X"] table added (the loader grants X: allow defaults to true)',
    codes: ['audit/caps-widened'],
    policy: 'error',
    file: `${PKG}/caps.toml`,
    via: 'action',
    build: () => oneCommit(T.ledger, (pkg) => writeFileSync(join(pkg, 'caps.toml'), `${CAPS_NONE}\n[op."io/net::http-request"]\n`)),
  },
  {
    id: 'op-table-with-timeout',
    klass: 'policy: an [op."X"] table with a timeout added',
    codes: ['audit/caps-widened'],
    policy: 'error',
    file: `${PKG}/caps.toml`,
    build: () => oneCommit(T.ledger, (pkg) => writeFileSync(join(pkg, 'caps.toml'), `${CAPS_NONE}\n[op."io/fs::write"]\ntimeout_ms = 5\n`)),
  },
  {
    id: 'gfx-golden-emptied',
    klass: 'keys: [gfx] golden_tests emptied',
    codes: WEAKENED,
    policy: 'error',
    file: MANIFEST_PATH,
    build: () => oneCommit(T.gfx, (pkg) => edit(manifestOf(pkg), `golden_tests = ["${GFX_SUITE}"]`, 'golden_tests = []')),
  },
  {
    id: 'gfx-frame-budget-tests-removed',
    klass: 'keys: [gfx] frame_budget_tests removed',
    codes: WEAKENED,
    policy: 'error',
    file: MANIFEST_PATH,
    build: () => oneCommit(T.gfx, (pkg) => edit(manifestOf(pkg), `frame_budget_tests = ["${GFX_SUITE}"]\n`, '')),
  },
  {
    id: 'gfx-frame-budget-raised',
    klass: 'keys: a [gfx] frame budget raised',
    codes: ['audit/limits-raised'],
    policy: 'error',
    file: MANIFEST_PATH,
    build: () => oneCommit(T.gfx, (pkg) => edit(manifestOf(pkg), 'max_draw_commands_per_frame = 100', 'max_draw_commands_per_frame = 100000')),
  },
  {
    id: 'limits-unknown-field',
    klass: 'keys: a field [limits] does not have, added by hand',
    codes: ['audit/manifest-key-changed'],
    policy: 'error',
    file: MANIFEST_PATH,
    build: () => manifestEdit('step_limit = 1000000\n', 'step_limit = 1000000\nunchecked = true\n'),
  },
  {
    id: 'attributes-nested-unspecified-text',
    klass: 'attributes by effect: a nested .gitattributes with `*.gc !text` under a root `*.gc -text` (core.autocrlf applies again)',
    codes: ['audit/checkout-attributes'],
    policy: 'error',
    file: `${PKG}/account/balance.gc`,
    build: () => oneCommit(T.attr, (pkg) => writeFileSync(join(pkg, '.gitattributes'), '*.gc !text\n')),
  },
  {
    id: 'attributes-macro',
    klass: 'attributes by effect: a root macro that turns text on, used for *.gc (spelled without the word text on the line that names the files)',
    codes: ['audit/checkout-attributes'],
    policy: 'error',
    build: () => oneCommit(T.attr, (_pkg, repo) => writeFileSync(join(repo, '.gitattributes'), '[attr]lf eol=lf\n*.gc -text\nledger/**/*.gc lf\n')),
  },
  {
    id: 'package-replaced-wide-caps',
    klass:
      'new package: the package deleted and added again under another name and other module paths (not a move), with a policy granting network and file access',
    codes: ['audit/caps-widened'],
    policy: 'error',
    file: 'books/caps.toml',
    build: () =>
      oneCommit(T.ledger, (pkg, repo) => {
        const to = join(repo, 'books');
        cpSync(pkg, to, { recursive: true });
        rmSync(pkg, { recursive: true });
        let text = readFileSync(manifestOf(to), 'utf8').replace('name = "ledger"', 'name = "books"');
        for (const [, p] of text.matchAll(/^path = "([^"]+)"$/gm)) {
          mkdirSync(dirname(join(to, 'v2', p!)), { recursive: true });
          renameSync(join(to, p!), join(to, 'v2', p!));
        }
        text = text.replace(/^path = "([^"]+)"$/gm, 'path = "v2/$1"');
        writeFileSync(manifestOf(to), text);
        writeFileSync(join(to, 'caps.toml'), CAPS_WIDE);
        pack(to);
      }),
  },
  {
    id: 'attributes-case-variant',
    klass: 'attributes: a .GitAttributes (another letter case) that a case-insensitive checkout may read, turning eol=crlf on',
    codes: ['audit/checkout-attributes'],
    policy: 'error',
    file: `${PKG}/.GitAttributes`,
    build: () => oneCommit(T.ledger, (pkg) => writeFileSync(join(pkg, '.GitAttributes'), '*.gc text eol=crlf\n')),
  },
  {
    id: 'unreadable-fork-point-drops-obligation',
    klass: 'unreadable: the PR forks from a main commit whose package.toml does not parse, and drops the declared obligation',
    codes: WEAKENED,
    policy: 'error',
    build: () => {
      const repo = scratch.copy(T.obligation);
      const pkg = join(repo, PKG);
      const good = readFileSync(manifestOf(pkg), 'utf8');
      writeFileSync(manifestOf(pkg), good.replace('[[modules]]', '[[modules]'));
      const base = commitAll(repo, 'a broken manifest on main');
      git(repo, 'checkout', '-q', '-b', 'pr');
      writeFileSync(manifestOf(pkg), good);
      dropObligation(pkg);
      commitAll(repo, 'fix the manifest');
      return pr(repo, base);
    },
  },
  // red-team round 5: what an absent or zero value means to the reference
  {
    id: 'property-cases-added-below-default',
    klass: 'keys: [property] cases_per_test added below the default its absence means (the reference runs 64 cases)',
    codes: ['audit/limits-raised'],
    policy: 'error',
    file: MANIFEST_PATH,
    via: 'cli',
    build: () => oneCommit(withoutProperty(), (pkg) => edit(manifestOf(pkg), '[[modules]]', '[property]\ncases_per_test = 1\n\n[[modules]]')),
  },
  {
    id: 'op-timeout-zeroed',
    klass: 'policy: an op timeout lowered to 0 (the runner reads 0 as no timeout)',
    codes: ['audit/caps-widened'],
    policy: 'error',
    file: `${PKG}/toolcaps.toml`,
    via: 'cli',
    build: () => oneCommit(withOpTimeout(), (pkg) => writeFileSync(join(pkg, 'toolcaps.toml'), `${TOOLCAPS}\n[op."sys/time::now"]\ntimeout_ms = 0\n`)),
  },
  {
    id: 'op-timeout-negative',
    klass: 'policy: an op timeout set negative (clamped to 0 by the loader: no timeout)',
    codes: ['audit/caps-widened'],
    policy: 'error',
    file: `${PKG}/toolcaps.toml`,
    build: () => oneCommit(withOpTimeout(), (pkg) => writeFileSync(join(pkg, 'toolcaps.toml'), `${TOOLCAPS}\n[op."sys/time::now"]\ntimeout_ms = -1\n`)),
  },
  {
    id: 'subdirectory-policy-widened',
    klass: 'policy: a *caps*.toml in a package subdirectory (ci/caps.ci.toml, passed with --caps) widened',
    codes: ['audit/caps-widened'],
    policy: 'error',
    file: `${PKG}/ci/caps.ci.toml`,
    via: 'cli',
    build: () => oneCommit(withCiPolicy(), (pkg) => writeFileSync(join(pkg, 'ci/caps.ci.toml'), CAPS_WIDE)),
  },
  // red-team round 6: what a checkout resolves through, defaults that are not "unbounded", history shapes
  {
    id: 'symlink-policy-directory',
    klass: 'kinds: a directory of policy files (ci/, passed with --caps) replaced by a symlink to a wide policy outside every package',
    codes: NOT_REGULAR,
    policy: 'error',
    file: `${PKG}/ci`,
    via: 'cli',
    build: () => oneCommit(withCiPolicy(), symlinkCiDirectory),
  },
  {
    id: 'gitlink-policy-directory',
    klass: 'kinds: a directory of policy files replaced by a gitlink (a recursive checkout fills it from another repository)',
    codes: NOT_REGULAR,
    policy: 'error',
    file: `${PKG}/ci`,
    build: () => {
      const repo = withCiPolicy();
      git(repo, 'checkout', '-q', '-b', 'pr');
      const base = git(repo, 'rev-parse', 'main');
      setIndexEntry(repo, '160000', base, `${PKG}/ci`);
      commitIndex(repo, 'ci as a submodule');
      return pr(repo, base);
    },
  },
  {
    id: 'symlink-added-in-package',
    klass: 'kinds: a symlink added in a package directory (a checkout reads through it; no content check can)',
    codes: NOT_REGULAR,
    policy: 'error',
    file: `${PKG}/vendor`,
    build: () => oneCommit(T.ledger, (pkg) => symlinkSync('../shared', join(pkg, 'vendor'))),
  },
  {
    id: 'policy-default-workers-raised-from-default',
    klass: 'policy: [task] default_workers added (absent, the loader uses the machine\u2019s parallelism, not "unbounded")',
    codes: ['audit/caps-widened'],
    policy: 'error',
    file: `${PKG}/toolcaps.toml`,
    via: 'cli',
    build: () => oneCommit(T.ledger, (pkg) => writeFileSync(join(pkg, 'toolcaps.toml'), `${TOOLCAPS}\n[task]\ndefault_workers = 1000\n`)),
  },
  {
    id: 'caps-directory-policy-widened',
    klass: 'policy: a policy in a directory named caps/ (caps/ci.toml: the file name has no caps) widened',
    codes: ['audit/caps-widened'],
    policy: 'error',
    file: `${PKG}/caps/ci.toml`,
    build: () => oneCommit(withCapsDirectory(), (pkg) => writeFileSync(join(pkg, 'caps/ci.toml'), CAPS_WIDE)),
  },
  {
    id: 'policy-by-content-widened',
    klass: 'policy: a policy whose path names no caps (ci/policy.toml, passed with --caps) widened',
    codes: ['audit/caps-widened'],
    policy: 'error',
    file: `${PKG}/ci/policy.toml`,
    build: () => oneCommit(withPlainPolicy(), (pkg) => writeFileSync(join(pkg, 'ci/policy.toml'), CAPS_WIDE)),
  },
  {
    id: 'workspace-profile-repointed',
    klass: 'workspace: genesis.workspace.toml beside the manifest repoints profile ci at the wider toolcaps.toml',
    codes: ['audit/caps-widened'],
    policy: 'error',
    file: WORKSPACE_PATH,
    via: 'cli',
    build: () =>
      oneCommit(withWorkspace(), (pkg) =>
        edit(join(pkg, 'genesis.workspace.toml'), '[profiles."ci"]\ncaps_policy = "caps.toml"', '[profiles."ci"]\ncaps_policy = "toolcaps.toml"'),
      ),
  },
  {
    id: 'workspace-profile-added-wide',
    klass: 'workspace: a profile added whose policy (a new file) grants network access',
    codes: ['audit/caps-widened'],
    policy: 'error',
    build: () =>
      oneCommit(withWorkspace(), (pkg) => {
        writeFileSync(join(pkg, 'release.toml'), CAPS_WIDE);
        writeFileSync(
          join(pkg, 'genesis.workspace.toml'),
          `${readFileSync(join(pkg, 'genesis.workspace.toml'), 'utf8')}\n[profiles."release"]\ncaps_policy = "release.toml"\n`,
        );
      }),
  },
  {
    id: 'workspace-toolchain-changed',
    klass: 'workspace: the default toolchain file changed (what the profiles run is chosen by it)',
    codes: ['audit/manifest-key-changed'],
    policy: 'error',
    file: WORKSPACE_PATH,
    build: () =>
      oneCommit(withWorkspace(), (pkg) => edit(join(pkg, 'genesis.workspace.toml'), 'toolchain = "toolchain.toml"', 'toolchain = "../evil/toolchain.toml"')),
  },
  {
    id: 'nested-manifest-directory-hides-policy',
    klass: 'membership: a directory named package.toml added in ci/ (a nested package to the policy walk) while ci/caps.ci.toml is widened',
    codes: ['audit/caps-widened', ...NOT_REGULAR, 'audit/package-unreadable'],
    policy: 'error',
    build: () =>
      oneCommit(withCiPolicy(), (pkg) => {
        mkdirSync(join(pkg, 'ci/package.toml'), { recursive: true });
        writeFileSync(join(pkg, 'ci/package.toml/README'), 'not a manifest\n');
        writeFileSync(join(pkg, 'ci/caps.ci.toml'), CAPS_WIDE);
      }),
  },
  {
    id: 'delete-then-readd-wide',
    klass: 'history: the package deleted in one commit and added again in the next with a wide caps.toml',
    codes: ['audit/caps-widened'],
    policy: 'error',
    build: () => {
      const { repo, pkg, base } = start(T.ledger);
      rmSync(pkg, { recursive: true });
      commitAll(repo, 'remove the ledger');
      git(repo, 'checkout', '-q', base, '--', PKG);
      writeFileSync(join(pkg, 'caps.toml'), CAPS_WIDE);
      commitAll(repo, 'the ledger again');
      return pr(repo, base);
    },
  },
  {
    id: 'revert-main-limit-tightening',
    klass: 'history: git revert of the main commit that tightened step_limit',
    codes: ['audit/limits-raised'],
    policy: 'error',
    build: () => {
      const repo = scratch.copy(T.ledger);
      edit(manifestOf(join(repo, PKG)), 'step_limit = 1000000', 'step_limit = 500000');
      const base = commitAll(repo, 'main: tighten step_limit');
      git(repo, 'checkout', '-q', '-b', 'pr');
      git(repo, 'revert', '--no-edit', base);
      return pr(repo, base);
    },
  },
  {
    id: 'revert-merge-of-main-drops-obligation',
    klass: 'history: the PR merges main (which declared an obligation), then reverts the merge (git revert -m 1)',
    codes: WEAKENED,
    policy: 'error',
    build: () => {
      const repo = scratch.copy(T.ledger);
      const fork = git(repo, 'rev-parse', 'main');
      const base = declareObligation(repo);
      git(repo, 'checkout', '-q', '-b', 'pr', fork);
      editComment(join(repo, PKG));
      commitAll(repo, 'a comment');
      if (!tryMerge(repo, '--no-edit', 'main')) throw new Error('main does not merge cleanly');
      git(repo, 'revert', '--no-edit', '-m', '1', 'HEAD');
      return pr(repo, base);
    },
  },
  {
    id: 'caps-policy-dot-segment',
    klass: 'policy: caps_policy respelled ci/../toolcaps.toml (a wider policy the package has) so that path-equality misses it',
    codes: ['audit/caps-widened', 'audit/package-unreadable'],
    policy: 'error',
    build: () => oneCommit(withCiPolicy(), (pkg) => edit(manifestOf(pkg), 'caps_policy = "caps.toml"', 'caps_policy = "ci/../toolcaps.toml"')),
  },
  {
    id: 'caps-policy-into-genesis',
    klass: 'policy: caps_policy pointed at a wide policy under .genesis/ (where the policy walk does not look)',
    codes: ['audit/caps-widened'],
    policy: 'error',
    build: () =>
      oneCommit(T.ledger, (pkg) => {
        writeFileSync(join(pkg, '.genesis/open.toml'), CAPS_WIDE);
        edit(manifestOf(pkg), 'caps_policy = "caps.toml"', 'caps_policy = ".genesis/open.toml"');
      }),
  },
  {
    id: 'attributes-symlink',
    klass: 'attributes: .gitattributes committed as a symlink to a file that turns eol=crlf on',
    codes: ['audit/checkout-attributes'],
    policy: 'error',
    file: '.gitattributes',
    build: () =>
      oneCommit(T.ledger, (_pkg, repo) => {
        writeFileSync(join(repo, 'attributes.txt'), '*.gc text eol=crlf\n');
        symlinkSync('attributes.txt', join(repo, '.gitattributes'));
      }),
  },
];

// ---------------------------------------------------------------------------------------------
// Honest controls

const controls: Control[] = [
  { id: 'comment-only', what: 'a comment-only change', build: () => oneCommit(T.ledger, editComment) },
  {
    id: 'merge-attributes',
    what: 'a .gitattributes that names the merge drivers (gcpatch driver install) and marks files binary',
    build: () =>
      oneCommit(T.ledger, (_pkg, repo) =>
        writeFileSync(join(repo, '.gitattributes'), '*.gc merge=gcpatch\npackage.toml merge=gcpatch-manifest\n*.png binary -text\n'),
      ),
  },
  { id: 'honest-rename', what: 'an honest rename (refactor plan + apply)', via: 'action', build: () => oneCommit(T.ledger, (pkg) => renameFirst(pkg)) },
  { id: 'honest-patch', what: 'an honest patch (apply --patch)', build: () => oneCommit(T.ledger, patchName) },
  {
    id: 'merge-from-main',
    what: 'a refactor PR that merges main (another refactor)',
    via: 'action',
    build: () => {
      const { repo, base } = mainMovesOn();
      if (!tryMerge(repo, '--no-edit', 'main')) throw new Error('main does not merge cleanly');
      return pr(repo, base);
    },
  },
  {
    id: 'rebase',
    what: 'a refactor PR rebased onto main',
    build: () => {
      const { repo, base } = mainMovesOn();
      git(repo, 'rebase', '-q', 'main');
      return pr(repo, base);
    },
  },
  {
    id: 'squash',
    what: 'a refactor and a patch squashed onto main after main moved on',
    build: () => {
      const { repo, pkg, base } = mainMovesOn();
      patchName(pkg);
      commitAll(repo, 'rename the product');
      git(repo, 'checkout', '-q', 'main');
      git(repo, 'merge', '-q', '--squash', 'pr');
      git(repo, 'commit', '-q', '-m', 'feature (squashed)');
      return pr(repo, base);
    },
  },
  {
    id: 'cherry-pick',
    what: 'an apply commit cherry-picked onto a release branch at another version (its evidence made on another state)',
    build: () => {
      const repo = scratch.copy(T.ledger);
      const pkg = join(repo, PKG);
      git(repo, 'checkout', '-q', '-b', 'feature');
      patchName(pkg);
      const applyCommit = commitAll(repo, 'rename the product');
      git(repo, 'checkout', '-q', '-b', 'release', 'main');
      edit(manifestOf(pkg), 'version = "0.3.1"', 'version = "0.3.2"');
      const base = commitAll(repo, 'release 0.3.2');
      git(repo, 'checkout', '-q', '-b', 'pr');
      git(repo, 'cherry-pick', applyCommit);
      return pr(repo, base);
    },
  },
  {
    id: 'manifest-respelled',
    what: 'package.toml respelled with the same TOML values (an escaped name, a comment)',
    build: () => manifestEdit('name = "ledger"\n', 'name = "\\u006cedger" # the same name\n'),
  },
  {
    id: 'new-sibling-package',
    what: 'a new sibling package',
    build: () => oneCommit(T.ledger, (_, repo) => cpSync(join(ROOT, 'fixtures/action/shop'), join(repo, 'shop'), { recursive: true })),
  },
  { id: 'version-bump', what: 'a version bump by hand (warning only)', build: () => manifestEdit('version = "0.3.1"', 'version = "0.4.0"') },
  {
    id: 'octopus-honest',
    what: 'an octopus merge of three honest branches',
    build: () => {
      const { repo, pkg, base } = start(T.ledger);
      const branches: [string, (pkg: string) => unknown][] = [
        ['b1', renameFirst],
        ['b2', renameEmoji],
        ['b3', patchName],
      ];
      for (const [branch, change] of branches) {
        git(repo, 'checkout', '-q', '-b', branch, 'main');
        change(pkg);
        commitAll(repo, branch);
      }
      git(repo, 'checkout', '-q', 'pr');
      if (!tryMerge(repo, '--no-edit', 'b1', 'b2', 'b3')) throw new Error('the octopus does not merge cleanly');
      if (git(repo, 'rev-list', '--parents', '-n', '1', 'HEAD').split(' ').length !== 4) throw new Error('not an octopus');
      return pr(repo, base);
    },
  },
  {
    id: 'package-deleted',
    what: 'a package deleted on purpose (warning only)',
    warns: ['audit/package-deleted'],
    build: () => oneCommit(T.ledger, (pkg) => rmSync(pkg, { recursive: true })),
  },
  {
    id: 'formatting-only',
    what: 'a formatting-only change',
    build: () =>
      oneCommit(T.ledger, (pkg) => edit(join(pkg, CURRENCY), '\n   :usd {:symbol "$" :digits 2}\n   :chf', ' :usd {:symbol "$" :digits 2}\n       :chf')),
  },
  {
    id: 'update-manifest-obligation-removed',
    what: 'an update-manifest patch that removes an obligation, with evidence',
    build: () =>
      oneCommit(T.obligation, (pkg) =>
        applyPatchText(
          scratch,
          pkg,
          onePatch('retire the balanced obligation', `{:op :update-manifest :obligations-remove [${JSON.stringify(OBLIGATION)}]}`),
          runner,
        ),
      ),
  },
  {
    id: 'update-manifest-limit-raised',
    what: 'an update-manifest :set patch that raises a limit, with evidence',
    build: () =>
      oneCommit(T.ledger, (pkg) => {
        applyPatchText(
          scratch,
          pkg,
          onePatch('more steps', '{:op :update-manifest :set {"limits" {"allow_unlimited" false "max_alloc_units" 1000000 "step_limit" 5000000}}}'),
        );
        if (!readFileSync(manifestOf(pkg), 'utf8').includes('step_limit = 5000000')) throw new Error('the patch did not raise the limit');
      }),
  },
  {
    id: 'update-manifest-caps-policy',
    what: 'an update-manifest :caps-policy patch that points at an equally strict new policy',
    build: () =>
      oneCommit(T.ledger, (pkg) => {
        writeFileSync(join(pkg, 'caps-strict.toml'), CAPS_NONE);
        applyPatchText(scratch, pkg, onePatch('a policy file of its own', '{:op :update-manifest :caps-policy "caps-strict.toml"}'));
      }),
  },
  {
    id: 'rename-with-obligation',
    what: 'an honest rename in a package that declares an obligation (runner accepts)',
    build: () => oneCommit(T.obligation, (pkg) => renameFirst(pkg, runner)),
  },
  {
    id: 'rename-no-replay',
    what: 'an honest rename checked with replay: false',
    build: () => oneCommit(T.ledger, (pkg) => renameFirst(pkg), { replay: false }),
  },
  {
    id: 'parallel-unrelated-edit',
    what: 'a hand edit of a module no evidence touches, on a branch parallel to a rename, merged',
    warns: ['audit/unexplained-change'],
    build: () => parallelEdit(editCurrency, 'evidence-first'),
  },
  {
    id: 'orphan-snapshot-of-the-pr',
    what: "an orphan snapshot of the PR's own honest state merged as the first parent (it changes nothing the evidence did not)",
    warns: ['audit/unexplained-change'],
    via: 'action',
    build: () => orphanMerge(T.ledger, () => {}, 'orphan-first'),
  },
  {
    id: 'stale-refactor-merge-main',
    what: "a refactor made on a stale fork point, merged with main's edit of the renamed definition",
    build: () => staleModuleMerge(() => {}, 'merge-main'),
  },
  {
    id: 'stale-side-merged-with-refactor',
    what: 'a side branch from the stale fork point with no change of the module, merged with the refactor made on main',
    build: () => staleModuleMerge(() => {}, 'parallel-edit-first'),
  },
  {
    id: 'op-timeout-added',
    what: 'a timeout added to an op the policy grants (a proven narrowing)',
    warns: ['audit/caps-changed'],
    build: () => oneCommit(T.ledger, (pkg) => writeFileSync(join(pkg, 'toolcaps.toml'), `${TOOLCAPS}\n[op."sys/time::now"]\ntimeout_ms = 100\n`)),
  },
  {
    id: 'limit-lowered',
    what: 'a limit lowered by hand (a proven narrowing: a notice)',
    build: () => manifestEdit('step_limit = 1000000', 'step_limit = 500000'),
  },
  {
    id: 'gfx-golden-added',
    what: 'a [gfx] golden test suite added by hand (a narrowing)',
    build: () => oneCommit(T.gfx, (pkg) => edit(manifestOf(pkg), `golden_tests = ["${GFX_SUITE}"]`, `golden_tests = ["${GFX_SUITE}", "ledger/tests::more"]`)),
  },
  {
    id: 'unreadable-fork-point-fixed',
    what: 'a PR forking from a main commit whose package.toml does not parse, fixing it (judged against the nearest readable ancestor)',
    warns: ['audit/package-unreadable'],
    build: () => {
      const repo = scratch.copy(T.obligation);
      const pkg = join(repo, PKG);
      const good = readFileSync(manifestOf(pkg), 'utf8');
      writeFileSync(manifestOf(pkg), good.replace('[[modules]]', '[[modules]'));
      const base = commitAll(repo, 'a broken manifest on main');
      git(repo, 'checkout', '-q', '-b', 'pr');
      writeFileSync(manifestOf(pkg), good);
      commitAll(repo, 'fix the manifest');
      return pr(repo, base);
    },
  },
  {
    id: 'attributes-nested-same-effect',
    what: 'a nested .gitattributes that restates `*.gc -text` and adds a diff driver (no checkout attribute changes)',
    build: () => oneCommit(T.attr, (pkg) => writeFileSync(join(pkg, '.gitattributes'), '*.gc -text diff=gc\n')),
  },
  {
    id: 'outside-only',
    what: 'a change outside every package (README)',
    build: () => oneCommit(T.ledger, (_, repo) => writeFileSync(join(repo, 'README.md'), '# ledger\n\nA longer README.\n')),
  },
  // red-team round 5
  {
    id: 'property-cases-added-above-default',
    what: '[property] cases_per_test added above the default of 64 (more cases: a notice)',
    via: 'cli',
    build: () => oneCommit(withoutProperty(), (pkg) => edit(manifestOf(pkg), '[[modules]]', '[property]\ncases_per_test = 100\n\n[[modules]]')),
  },
  {
    id: 'op-timeout-lowered',
    what: 'an op timeout lowered, still above 0 (a proven narrowing)',
    warns: ['audit/caps-changed'],
    via: 'cli',
    build: () => oneCommit(withOpTimeout(), (pkg) => writeFileSync(join(pkg, 'toolcaps.toml'), `${TOOLCAPS}\n[op."sys/time::now"]\ntimeout_ms = 10\n`)),
  },
  {
    id: 'subdirectory-policy-narrowed',
    what: 'a policy file in a package subdirectory narrowed (ci/caps.ci.toml grants nothing)',
    warns: ['audit/caps-changed'],
    build: () => oneCommit(withCiPolicy(), (pkg) => writeFileSync(join(pkg, 'ci/caps.ci.toml'), CAPS_NONE)),
  },
  {
    id: 'subdirectory-policy-added-empty',
    what: 'a policy file that grants nothing added in a package subdirectory',
    build: () =>
      oneCommit(T.ledger, (pkg) => {
        mkdirSync(join(pkg, 'ci'), { recursive: true });
        writeFileSync(join(pkg, 'ci/caps.ci.toml'), CAPS_NONE);
      }),
  },
  // red-team round 6
  {
    id: 'symlink-outside-package',
    what: 'a symlink outside every package (docs/ledger-caps.toml pointing at the ledger policy)',
    build: () =>
      oneCommit(T.ledger, (_pkg, repo) => {
        mkdirSync(join(repo, 'docs'), { recursive: true });
        symlinkSync('../ledger/caps.toml', join(repo, 'docs/ledger-caps.toml'));
      }),
  },
  {
    id: 'regular-file-added-in-package',
    what: 'a regular non-module file added in a package directory (notes)',
    build: () =>
      oneCommit(T.ledger, (pkg) => {
        mkdirSync(join(pkg, 'docs'), { recursive: true });
        writeFileSync(join(pkg, 'docs/notes.md'), '# notes\n');
      }),
  },
  {
    id: 'policy-default-workers-lowered',
    what: '[task] default_workers lowered (a proven narrowing)',
    warns: ['audit/caps-changed'],
    build: () => oneCommit(withDefaultWorkers(), (pkg) => writeFileSync(join(pkg, 'toolcaps.toml'), `${TOOLCAPS}\n[task]\ndefault_workers = 1\n`)),
  },
  {
    id: 'policy-default-workers-one-added',
    what: '[task] default_workers = 1 added (no machine runs fewer than one worker: a proven narrowing)',
    warns: ['audit/caps-changed'],
    build: () => oneCommit(T.ledger, (pkg) => writeFileSync(join(pkg, 'toolcaps.toml'), `${TOOLCAPS}\n[task]\ndefault_workers = 1\n`)),
  },
  {
    id: 'caps-directory-policy-narrowed',
    what: 'a policy in a caps/ directory narrowed',
    warns: ['audit/caps-changed'],
    build: () => oneCommit(withCapsDirectory(), (pkg) => writeFileSync(join(pkg, 'caps/ci.toml'), CAPS_NONE)),
  },
  {
    id: 'plain-toml-changed',
    what: 'a TOML file in the package that is no policy (no allow, no op) changed',
    build: () => oneCommit(withPlainPolicy(), (pkg) => writeFileSync(join(pkg, 'tools/fmt.toml'), '[format]\nwidth = 100\n')),
  },
  {
    id: 'policy-by-content-narrowed',
    what: 'a policy whose path names no caps narrowed',
    warns: ['audit/caps-changed'],
    build: () => oneCommit(withPlainPolicy(), (pkg) => writeFileSync(join(pkg, 'ci/policy.toml'), CAPS_NONE)),
  },
  {
    id: 'workspace-profile-repointed-strict',
    what: 'a workspace profile repointed at a new policy that grants nothing',
    build: () =>
      oneCommit(withWorkspace(), (pkg) => {
        writeFileSync(join(pkg, 'caps.ci.toml'), CAPS_NONE);
        edit(join(pkg, 'genesis.workspace.toml'), '[profiles."ci"]\ncaps_policy = "caps.toml"', '[profiles."ci"]\ncaps_policy = "caps.ci.toml"');
      }),
  },
  {
    id: 'workspace-unchanged-module-renamed',
    what: 'an honest rename in a package with a workspace file',
    build: () => oneCommit(withWorkspace(), (pkg) => renameFirst(pkg)),
  },
  {
    id: 'revert-own-commit',
    what: 'a PR that reverts its own earlier hand edit (nothing changes net)',
    build: () => {
      const { repo, pkg, base } = start(T.ledger);
      editCurrency(pkg);
      pack(pkg);
      commitAll(repo, 'a hand edit');
      git(repo, 'revert', '--no-edit', 'HEAD');
      editComment(pkg);
      commitAll(repo, 'a comment');
      return pr(repo, base);
    },
  },
];

// ---------------------------------------------------------------------------------------------

/** The environment variables beforeAll sets (git isolated for the CLI and the Action too), to restore afterwards. */
const savedEnv: Record<string, string | undefined> = {};

beforeAll(() => {
  for (const key of ['GIT_CONFIG_GLOBAL', 'GIT_CONFIG_NOSYSTEM']) {
    savedEnv[key] = process.env[key];
    process.env[key] = GIT_ENV[key];
  }
  for (const bundle of ['dist/cli/main.js', 'action/dist/index.js']) {
    readFileSync(join(ROOT, bundle)); // throws when missing: run npm run build and npm run build:action
  }
  runner = acceptingRunner(scratch);
  T.ledger = ledgerTemplate(scratch);

  T.obligation = scratch.copy(T.ledger);
  declareObligation(T.obligation);

  T.gfx = scratch.copy(T.ledger);
  edit(
    join(T.gfx, PKG, 'package.toml'),
    '[[modules]]',
    `[gfx]\nframe_budget_tests = ["${GFX_SUITE}"]\ngolden_tests = ["${GFX_SUITE}"]\nmax_draw_commands_per_frame = 100\n\n[[modules]]`,
  );
  commitAll(T.gfx, 'golden and frame-budget checks');

  T.attr = scratch.copy(T.ledger);
  writeFileSync(join(T.attr, '.gitattributes'), '*.gc -text\n');
  commitAll(T.attr, 'modules are checked out byte for byte');

  T.nested = scratch.copy(T.ledger);
  writeInnerPackage(join(T.nested, PKG));
  commitAll(T.nested, 'a money package inside the ledger');

  T.two = join(scratch.dir('gcpatch-attack-template-'), 'repo');
  git(join(T.two, '..'), 'init', '-q', '-b', 'main', 'repo');
  for (const name of ['a', 'b']) cpSync(join(ROOT, 'fixtures/refactor/ledger'), join(T.two, 'pkgs', name), { recursive: true });
  edit(join(T.two, 'pkgs/b/package.toml'), 'name = "ledger"', 'name = "ledger-b"');
  commitAll(T.two, 'two ledgers');
});

afterAll(() => {
  const attacksRun = results.filter((r) => r.kind === 'attack');
  const controlsRun = results.filter((r) => r.kind === 'control');
  const lines = results.filter((r) => !r.passed).map((r) => `  ${r.kind === 'attack' ? 'NOT CAUGHT' : 'FAILED'} ${r.id}: expected ${r.expected}, got ${r.got}`);
  for (const r of controlsRun) if (r.passed && !r.got.endsWith('warnings=[]')) lines.push(`  (passed, with warnings) ${r.id}: ${r.got}`);
  process.stdout.write(
    `\nattacks: ${attacksRun.filter((r) => r.passed).length}/${attacksRun.length} dishonest PRs failed, ` +
      `${controlsRun.filter((r) => r.passed).length}/${controlsRun.length} honest controls passed\n${lines.join('\n')}${lines.length ? '\n' : ''}`,
  );
  scratch.cleanup();
  for (const [key, value] of Object.entries(savedEnv)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
});

describe('dishonest pull requests fail with the code of their class', () => {
  for (const a of attacks) attackTest(a);
});

describe('honest controls pass under the default policy', () => {
  for (const c of controls) controlTest(c);
});

// ---------------------------------------------------------------------------------------------
// Closed accounting (not scored): every path git reports between base and head is in report.paths
// with its change, kinds and modes, packages and role.

interface GitChange {
  path: string;
  change: 'added' | 'deleted' | 'modified';
  from?: { kind: string; mode: string };
  to?: { kind: string; mode: string };
}

const KIND_OF_MODE: Record<string, string> = { '100644': 'blob', '100755': 'executable', '120000': 'symlink', '160000': 'gitlink', '40000': 'tree' };
const bareMode = (mode: string) => mode.replace(/^0+/, '');

/** `git diff --raw` between base and head (no rename detection), as path accounts. */
function gitChanges(p: PullRequest): GitChange[] {
  const fields = git(p.repo, 'diff', '--raw', '--no-renames', '--no-abbrev', '-z', p.base, p.head)
    .split('\0')
    .filter((f) => f !== '');
  const out: GitChange[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const [fromMode, toMode] = fields[i]!.slice(1).split(' ') as [string, string];
    const side = (mode: string) => (/^0+$/.test(mode) ? undefined : { kind: KIND_OF_MODE[bareMode(mode)] ?? 'blob', mode: bareMode(mode) });
    const from = side(fromMode);
    const to = side(toMode);
    out.push({
      path: fields[i + 1]!,
      change: from === undefined ? 'added' : to === undefined ? 'deleted' : 'modified',
      ...(from ? { from } : {}),
      ...(to ? { to } : {}),
    });
  }
  return out;
}

function byId(id: string): Attack | Control {
  const found = [...attacks, ...controls].find((x) => x.id === id);
  if (found === undefined) throw new Error(`no case ${id}`);
  return found;
}

describe('closed accounting: every changed path is in report.paths', () => {
  const expectations: { id: string; path: string; packages: string[]; role: string; finding?: string }[] = [
    { id: 'symlink-module', path: `${PKG}/${CURRENCY}`, packages: [PKG], role: 'module', finding: 'audit/not-a-regular-file' },
    { id: 'symlink-store-entry', path: '', packages: [PKG], role: 'store-entry', finding: 'audit/not-a-regular-file' },
    { id: 'gitlink-package-dir', path: PKG, packages: [PKG], role: 'package-dir', finding: 'audit/not-a-regular-file' },
    { id: 'mode-change', path: `${PKG}/${CURRENCY}`, packages: [PKG], role: 'module', finding: 'audit/mode-changed' },
    { id: 'case-collision-module', path: `${PKG}/money/Currency.gc`, packages: [PKG], role: 'unlisted-module', finding: 'audit/path-case-collision' },
    { id: 'outside-package', path: 'tools/gen.gc', packages: [], role: 'outside', finding: 'audit/outside-package' },
    { id: 'nested-package-on-main', path: `${PKG}/${CURRENCY}`, packages: [PKG, `${PKG}/money`], role: 'module', finding: 'audit/unexplained-change' },
    { id: 'honest-rename', path: `${PKG}/core/pair.gc`, packages: [PKG], role: 'module' },
  ];
  for (const e of expectations) {
    it(`${e.id}: ${e.path || 'the new store entry'} is accounted for (${e.role}${e.finding ? `, ${e.finding}` : ''}), with every other changed path`, async () => {
      const p = built.get(e.id) ?? byId(e.id).build();
      const report = await auditPullRequest({ dir: p.repo, base: p.base, head: p.head, ...p.options });
      const paths = report.paths ?? [];
      const changes = gitChanges(p);
      expect(changes.length).toBeGreaterThan(0);
      for (const c of changes) {
        const account = paths.find((a) => a.path === c.path);
        expect(account, `${c.path} is not in report.paths`).toBeDefined();
        const norm = (side: { kind: string; mode: string } | undefined) => (side === undefined ? undefined : { kind: side.kind, mode: bareMode(side.mode) });
        const got = { path: account!.path, change: account!.change, from: norm(account!.from), to: norm(account!.to) };
        // git lists a directory replaced by a file as an added file (and its files deleted); the
        // report may list the same path as modified from a tree.
        if (c.change === 'added' && got.change === 'modified' && got.from?.kind === 'tree') Object.assign(got, { change: 'added', from: undefined });
        if (c.change === 'deleted' && got.change === 'modified' && got.to?.kind === 'tree') Object.assign(got, { change: 'deleted', to: undefined });
        expect(got).toEqual({ from: undefined, to: undefined, ...c });
      }
      const path = e.path !== '' ? e.path : changes.find((c) => c.path.includes('/.genesis/store/'))!.path;
      const account = paths.find((a) => a.path === path)!;
      expect([...account.packages].sort()).toEqual([...e.packages].sort());
      expect(account.role).toBe(e.role);
      expect(account.explanation).not.toBe('');
      // The row's finding is among the account's; a row without one: the account has none.
      const none: string[] = [];
      const withFinding = expect.arrayContaining([e.finding]);
      expect(account.findings).toEqual(e.finding === undefined ? none : withFinding);
    });
  }

  it('a changed package the selection leaves out is listed (notice), and the selected one is still checked', async () => {
    const p = twoPackageEdit({ packages: 'pkgs/a/package.toml' });
    const report = await auditPullRequest({ dir: p.repo, base: p.base, head: p.head, ...p.options });
    expect(report.notSelected).toEqual(['pkgs/b/package.toml']);
    expect(report.findings.filter((f) => f.code === 'audit/package-not-selected').map((f) => f.severity)).toEqual(['notice']);
    expect(report.packages.map((x) => x.dir)).toEqual(['pkgs/a']);
    expect(report.ok).toBe(true);
  });
});
