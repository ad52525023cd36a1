// The generated-history property of docs/security.md ("The construction"): random pull request
// histories on the ledger package (fixtures/refactor/ledger) — linear, a merge from main, a parallel
// branch, a first-parent swap, an octopus, a criss-cross, an orphan (root) snapshot merged as either
// parent — built with real git. Every history starts with verified evidence (an `apply --patch` of
// meta/profile.gc) and carries honest steps (comment edits, a hand edit of a module no evidence
// touches, a limit lowered); a dishonest one also carries exactly one weakening from the change-class
// table, on a random branch at a random position (or in the orphan snapshot). Each dishonest history
// must fail under the default policy, each honest one must pass. The file prints both scores.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditPullRequest } from '../../src/verify-pr/verify-pr.js';
import { applyPatchText, commitAll, commitTree, edit, git, GIT_ENV, ledgerTemplate, onePatch, pack, PKG, Scratch, stageTree } from '../e2e/attack-helpers.js';

const scratch = new Scratch();
let template = '';
const savedEnv: Record<string, string | undefined> = {};

beforeAll(() => {
  for (const key of ['GIT_CONFIG_GLOBAL', 'GIT_CONFIG_NOSYSTEM']) {
    savedEnv[key] = process.env[key];
    process.env[key] = GIT_ENV[key];
  }
  template = ledgerTemplate(scratch);
});

const scores = { dishonest: { failed: 0, run: 0, missed: [] as string[] }, honest: { passed: 0, run: 0, failedOnes: [] as string[] } };

afterAll(() => {
  process.stdout.write(
    `\ngenerated histories: ${scores.dishonest.failed}/${scores.dishonest.run} dishonest failed, ${scores.honest.passed}/${scores.honest.run} honest passed\n` +
      [...scores.dishonest.missed.map((m) => `  NOT CAUGHT ${m}`), ...scores.honest.failedOnes.map((m) => `  FAILED ${m}`)].join('\n') +
      '\n',
  );
  scratch.cleanup();
  for (const [key, value] of Object.entries(savedEnv)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
});

type Shape = 'linear' | 'merge-main' | 'parallel' | 'swap' | 'octopus' | 'criss-cross' | 'orphan-first' | 'orphan-second';
const SHAPES: Shape[] = ['linear', 'merge-main', 'parallel', 'swap', 'octopus', 'criss-cross', 'orphan-first', 'orphan-second'];
/**
 * Where a weakening may go in each shape: a branch (`A` is the PR branch, which starts with the
 * evidence; `B`, `C` branches from main), `O` the orphan snapshot, `M` the final merge commit itself.
 */
const BRANCHES: Record<Shape, string[]> = {
  linear: ['A'],
  'merge-main': ['A', 'M'],
  parallel: ['A', 'B', 'M'],
  swap: ['A', 'B', 'M'],
  octopus: ['A', 'B', 'C', 'M'],
  'criss-cross': ['A', 'B', 'M'],
  'orphan-first': ['A', 'O', 'M'],
  'orphan-second': ['A', 'O', 'M'],
};
/** Modules each branch edits comments in (distinct, so branches merge without conflicts). */
const POOLS: Record<string, string[]> = {
  A: ['core/int.gc', 'core/list.gc'],
  B: ['account/open.gc', 'account/close.gc'],
  C: ['journal/entry.gc', 'journal/post.gc'],
  main: ['report/summary.gc'],
};

type Weakening =
  'step-limit-raised' | 'allow-unlimited' | 'op-table-added' | 'property-test-dropped' | 'fewer-cases' | 'evidence-module-edited' | 'toolcaps-widened';
const WEAKENINGS: Weakening[] = [
  'step-limit-raised',
  'allow-unlimited',
  'op-table-added',
  'property-test-dropped',
  'fewer-cases',
  'evidence-module-edited',
  'toolcaps-widened',
];

/** An honest step: a comment in the branch's pool (`i` picks the module), a hand edit of currency.gc, or a limit lowered. */
type Step = { kind: 'comment'; i: number } | { kind: 'currency' } | { kind: 'lower-limit' };

interface Plan {
  shape: Shape;
  /** Honest steps per branch. */
  steps: Record<string, Step[]>;
  weakening?: { kind: Weakening; branch: string; at: number };
}

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('comment' as const), i: fc.nat(1) }),
  fc.constant({ kind: 'currency' as const }),
  fc.constant({ kind: 'lower-limit' as const }),
);

function planArb(dishonest: boolean): fc.Arbitrary<Plan> {
  return fc.constantFrom(...SHAPES).chain((shape) => {
    const branches = BRANCHES[shape].filter((b) => b !== 'O' && b !== 'M');
    const steps = fc.record(
      Object.fromEntries(branches.map((b) => [b, fc.array(stepArb, { minLength: 0, maxLength: 2 })])) as Record<string, fc.Arbitrary<Step[]>>,
    );
    const weakening = fc.record({ kind: fc.constantFrom(...WEAKENINGS), branch: fc.constantFrom(...BRANCHES[shape]), at: fc.nat(2) });
    return dishonest ? fc.record({ shape: fc.constant(shape), steps, weakening }) : fc.record({ shape: fc.constant(shape), steps });
  });
}

const manifest = (repo: string) => join(repo, PKG, 'package.toml');
let counter = 0;

/** Makes one honest step in the work tree (`used` keeps the one-off steps to one branch each). */
function honest(repo: string, branch: string, step: Step, used: Set<string>): void {
  const pkg = join(repo, PKG);
  if (step.kind === 'comment') {
    const file = join(pkg, POOLS[branch]![step.i % POOLS[branch]!.length]!);
    writeFileSync(file, `; note ${++counter}\n${readFileSync(file, 'utf8')}`);
  } else if (step.kind === 'currency' && !used.has('currency')) {
    used.add('currency');
    edit(join(pkg, 'money/currency.gc'), '"CHF"', '"Fr."');
    pack(pkg);
  } else if (step.kind === 'lower-limit' && !used.has('limit')) {
    used.add('limit');
    edit(manifest(repo), 'max_alloc_units = 1000000', 'max_alloc_units = 900000');
  }
}

/** Makes the weakening in the work tree. */
function weaken(repo: string, kind: Weakening): void {
  const pkg = join(repo, PKG);
  switch (kind) {
    case 'step-limit-raised':
      return edit(manifest(repo), 'step_limit = 1000000', 'step_limit = 1000000000');
    case 'allow-unlimited':
      return edit(manifest(repo), 'allow_unlimited = false', 'allow_unlimited = true');
    case 'op-table-added':
      return writeFileSync(join(pkg, 'caps.toml'), `${readFileSync(join(pkg, 'caps.toml'), 'utf8')}\n[op."io/net::http-request"]\n`);
    case 'property-test-dropped':
      return edit(manifest(repo), 'property_tests = ["ledger/tests::amount-properties"]', 'property_tests = []');
    case 'fewer-cases':
      return edit(manifest(repo), 'cases_per_test = 100', 'cases_per_test = 1');
    case 'toolcaps-widened':
      return writeFileSync(join(pkg, 'toolcaps.toml'), 'allow = ["sys/time::now", "io/fs::write"]\n');
    case 'evidence-module-edited':
      edit(join(pkg, 'meta/profile.gc'), '[:eur :usd :chf :jpy]', '[:eur]');
      return pack(pkg);
  }
}

/** The evidence every history starts with: `gcpatch apply --patch` of the product name (meta/profile.gc form 1). */
function evidence(repo: string): void {
  applyPatchText(
    scratch,
    join(repo, PKG),
    onePatch(
      'rename the product',
      '{:op :replace-node :module-path "meta/profile.gc" :path [[:form 1] [:pair-cdr] [:pair-cdr] [:pair-car]] :new "ledger-pro"}',
    ),
  );
}

/** `git merge --no-commit` of `others` into the checked-out branch; a conflict in package.toml only (pins) is resolved by re-packing. Returns the merged tree. */
function mergeTree(repo: string, others: string[]): string {
  for (const other of others) {
    const r = tryMergeNoCommit(repo, other);
    if (!r) {
      const conflicted = git(repo, 'diff', '--name-only', '--diff-filter=U')
        .split('\n')
        .filter((p) => p !== '');
      if (conflicted.some((p) => p !== `${PKG}/package.toml`)) throw new Error(`the generator made a conflict in ${conflicted.join(', ')}`);
      git(repo, 'checkout', '--ours', '--', `${PKG}/package.toml`);
      pack(join(repo, PKG));
    }
    if (others.length > 1) {
      git(repo, 'add', '-A');
      git(repo, 'commit', '-q', '--allow-empty', '-m', `step merge ${other}`);
    }
  }
  return stageTree(repo);
}

function tryMergeNoCommit(repo: string, other: string): boolean {
  try {
    git(repo, 'merge', '-q', '--no-ff', '--no-commit', other);
    return true;
  } catch {
    return false;
  }
}

/** Builds the plan's history on a fresh copy of the template; returns the repository, the base (main) and the head. */
function build(plan: Plan): { repo: string; base: string; head: string } {
  const repo = scratch.copy(template);
  const used = new Set<string>();
  const w = plan.weakening;
  const fork = git(repo, 'rev-parse', 'main');
  /** Runs the branch's steps, the weakening at its position; one commit each. */
  const runBranch = (branch: string, first?: () => void): string => {
    if (first !== undefined) {
      first();
      commitAll(repo, `${branch}: evidence`);
    }
    const steps = plan.steps[branch] ?? [];
    for (let i = 0; i <= steps.length; i++) {
      if (w !== undefined && w.branch === branch && Math.min(w.at, steps.length) === i) {
        weaken(repo, w.kind);
        commitAll(repo, `${branch}: ${w.kind}`);
      }
      if (i < steps.length) {
        honest(repo, branch, steps[i]!, used);
        commitAll(repo, `${branch}: step ${i}`);
      }
    }
    return git(repo, 'rev-parse', 'HEAD');
  };
  const branchFrom = (name: string, from: string) => git(repo, 'checkout', '-q', '-b', name, from);
  branchFrom('A', fork);
  let a = runBranch('A', () => evidence(repo));
  let base = fork;
  let head = a;
  /** The tree of the final merge: `tree`, or with the weakening made in the merge commit itself. */
  const final = (tree: string): string => {
    if (w?.branch !== 'M') return tree;
    weaken(repo, w.kind);
    return stageTree(repo);
  };
  const side = (name: string): string => {
    branchFrom(name, fork);
    const tip = runBranch(name);
    git(repo, 'checkout', '-q', 'A');
    return tip;
  };
  switch (plan.shape) {
    case 'linear':
      break;
    case 'merge-main': {
      git(repo, 'checkout', '-q', 'main');
      const file = join(repo, PKG, POOLS.main![0]!);
      writeFileSync(file, `; main ${++counter}\n${readFileSync(file, 'utf8')}`);
      base = commitAll(repo, 'main moves on');
      git(repo, 'checkout', '-q', 'A');
      head = commitTree(repo, final(mergeTree(repo, ['main'])), [a, base], 'Merge main');
      break;
    }
    case 'parallel':
    case 'swap': {
      const b = side('B');
      const tree = final(mergeTree(repo, ['B']));
      head = commitTree(repo, tree, plan.shape === 'parallel' ? [a, b] : [b, a], 'Merge B');
      break;
    }
    case 'octopus': {
      const b = side('B');
      const c = side('C');
      const tree = final(mergeTree(repo, ['B', 'C']));
      head = commitTree(repo, tree, [a, b, c], 'Merge B and C');
      break;
    }
    case 'criss-cross': {
      const b = side('B');
      const tree = mergeTree(repo, ['B']);
      git(repo, 'reset', '-q', '--hard', a);
      const m1 = commitTree(repo, tree, [a, b], 'Merge B into A');
      const m2 = commitTree(repo, tree, [b, a], 'Merge A into B');
      git(repo, 'reset', '-q', '--hard', m1);
      const file = join(repo, PKG, POOLS.A![1]!);
      writeFileSync(file, `; after the criss-cross ${++counter}\n${readFileSync(file, 'utf8')}`);
      a = commitAll(repo, 'A after the criss-cross');
      head = commitTree(repo, final(stageTree(repo)), [a, m2], 'Merge the criss-cross');
      break;
    }
    case 'orphan-first':
    case 'orphan-second': {
      if (w?.branch === 'O') weaken(repo, w.kind);
      const tree = stageTree(repo);
      const orphan = commitTree(repo, tree, [], 'a snapshot');
      head = commitTree(repo, final(tree), plan.shape === 'orphan-first' ? [orphan, a] : [a, orphan], 'Merge a snapshot');
      break;
    }
  }
  return { repo, base, head };
}

const describePlan = (p: Plan): string => JSON.stringify(p);
/** A fixed seed and run counts (GCPATCH_HISTORY_SEED / GCPATCH_HISTORY_RUNS widen the search, e.g. for a red-team round). */
const SEED = Number(process.env.GCPATCH_HISTORY_SEED ?? 20261204);
const RUNS =
  process.env.GCPATCH_HISTORY_RUNS !== undefined
    ? { dishonest: Number(process.env.GCPATCH_HISTORY_RUNS), honest: Number(process.env.GCPATCH_HISTORY_RUNS) }
    : { dishonest: 16, honest: 10 };

describe('generated pull request histories (fast-check)', () => {
  it('every history carrying one weakening fails under the default policy, whatever its shape', async () => {
    await fc.assert(
      fc.asyncProperty(planArb(true), async (plan) => {
        const { repo, base, head } = build(plan);
        const report = await auditPullRequest({ dir: repo, base, head });
        scores.dishonest.run++;
        if (!report.ok) scores.dishonest.failed++;
        else scores.dishonest.missed.push(`${describePlan(plan)} → ${report.findings.map((f) => `${f.severity}:${f.code}`).join(' ')}`);
        expect(report.ok, describePlan(plan)).toBe(false);
      }),
      { numRuns: RUNS.dishonest, endOnFailure: true, seed: SEED },
    );
  }, 600_000);

  it('the same histories with honest steps only pass', async () => {
    await fc.assert(
      fc.asyncProperty(planArb(false), async (plan) => {
        const { repo, base, head } = build(plan);
        const report = await auditPullRequest({ dir: repo, base, head });
        scores.honest.run++;
        if (report.ok) scores.honest.passed++;
        else
          scores.honest.failedOnes.push(
            `${describePlan(plan)} → ${report.findings
              .filter((f) => f.severity === 'error')
              .map((f) => `${f.code} ${f.message}`)
              .join(' | ')}`,
          );
        expect(report.ok, describePlan(plan)).toBe(true);
      }),
      { numRuns: RUNS.honest, endOnFailure: true, seed: SEED },
    );
  }, 600_000);
});
