/**
 * A generated git history of the shop package for the blame/why/log tests: refactors, patches, a
 * reformat, hand edits, a move, a merge; fixed identities and dates so outputs are exact bytes.
 */
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readTerm } from '../../src/coreform/read.js';
import { applyPatch } from '../../src/patch/apply/apply.js';
import { applyRefactorPlan } from '../../src/refactor/apply-plan.js';
import { planRefactor } from '../../src/refactor/plan.js';
import { loadRefactorRequest } from '../../src/refactor/request.js';
import { FIXTURES, tempDir } from '../action/helpers.js';
import { gitWith, initRepo } from '../helpers/git.js';

/** A repository with a clock: every commit is one day after the previous one (UTC). */
export class ClockedRepo {
  private day = 0;
  constructor(readonly dir: string) {}

  /** Runs git (test/helpers/git.ts: isolated, throws with stderr) as Ada Author at the current fake date. */
  git(...args: string[]): string {
    const date = `${new Date(Date.UTC(2026, 0, 1 + this.day, 12)).toISOString().replace('.000Z', '')} +0000`;
    return gitWith(this.dir, args, { date, identity: { name: 'Ada Author', email: 'ada@example.invalid' } });
  }

  /** Stages everything and commits (one day later); returns the commit oid. */
  commit(message: string): string {
    this.day++;
    this.git('add', '-A');
    this.git('commit', '-q', '--allow-empty', '-m', message);
    return this.git('rev-parse', 'HEAD');
  }

  /** `git merge --no-ff` of `branch` (one day later); returns the merge commit oid. */
  merge(branch: string, message: string): string {
    this.day++;
    this.git('merge', '-q', '--no-ff', '-m', message, branch);
    return this.git('rev-parse', 'HEAD');
  }
}

/** A new repository on `main` with commit signing off. */
export function clockedRepo(): ClockedRepo {
  return new ClockedRepo(initRepo(tempDir('gcpatch-blame-')));
}

/** Plans and applies a refactor with the library, as `gcpatch refactor plan` + `apply` do. */
export function refactor(pkg: string, refactorKind: string, fromSymbol: string, toSymbol: string, targetModulePath = ''): void {
  const { request } = loadRefactorRequest(pkg, { refactorKind, fromSymbol, toSymbol, targetModulePath });
  const plan = planRefactor(request);
  if (!plan.safe) throw new Error(`${refactorKind} ${fromSymbol} → ${toSymbol} is not safe`);
  applyRefactorPlan({ pkg, report: plan.report, request });
}

/** Applies a patch (CoreForm source text) with the library, as `gcpatch apply` does. */
export function patch(pkg: string, source: string): void {
  applyPatch({ pkg, patch: readTerm(source) });
}

/** Replaces `from` by `to` in a file (a hand edit). */
export function edit(file: string, from: string | RegExp, to: string): void {
  const text = readFileSync(file, 'utf8');
  const next = text.replace(from, to);
  if (next === text) throw new Error(`${file}: ${String(from)} not found`);
  writeFileSync(file, next);
}

/** The commits of {@link shopHistory}, by what they do. */
export interface ShopHistory {
  repo: ClockedRepo;
  pkg: string;
  root: string;
  renameTaxRate: string;
  patchTotal: string;
  reformat: string;
  renameTotal: string;
  handRename: string;
  moveRate: string;
  branchPatch: string;
  handEdit: string;
  merge: string;
  cleanup: () => void;
}

/**
 * The shop package (fixtures/action/shop) at `pkgs/shop`, then:
 * 1. refactor: rename shop/price::tax-rate → shop/price::rate (changes shop/price::total's body);
 * 2. patch: shop/price::total divides by 50 (intent "halve the tax base");
 * 3. reformat lib/price.gc by hand (canonical forms unchanged);
 * 4. refactor: rename shop/price::total → shop/price::gross;
 * 5. by hand: rename shop/text::banner → shop/text::welcome;
 * 6. refactor: move shop/price::rate → shop/tax::rate into lib/tax.gc;
 * 7. branch `weekly`: patch shop/report::greeting to "weekly report";
 * 8. main: a hand edit of shop/cart::checkout (currency EUR → USD), no evidence;
 * 9. merge `weekly` into main (--no-ff).
 */
export function shopHistory(): ShopHistory {
  const repo = clockedRepo();
  const pkg = join(repo.dir, 'pkgs/shop');
  cpSync(join(FIXTURES, 'shop'), pkg, { recursive: true });
  writeFileSync(join(repo.dir, 'README.md'), '# shop\n');
  const root = repo.commit('shop package');
  refactor(pkg, 'rename', 'shop/price::tax-rate', 'shop/price::rate');
  const renameTaxRate = repo.commit('rename the tax rate');
  patch(
    pkg,
    `{:version 1 :intent "halve the tax base" :provenance {:ticket "SHOP-7"}
      :ops [{:op :replace-node :module-path "lib/price.gc" :path [[:form 2] [:pair-cdr] [:pair-cdr] [:pair-car]]
             :new (fn (net) (prim int/add net (prim int/div (prim int/mul net shop/price::rate) 50)))}]}`,
  );
  const patchTotal = repo.commit('halve the tax base');
  const price = join(pkg, 'lib/price.gc');
  writeFileSync(
    price,
    readFileSync(price, 'utf8')
      .replace(/\(fn \(net\) /, '(fn (net)\n    ')
      .replace(/^; .*\n/, '; shop/price: prices, reformatted.\n'),
  );
  const reformat = repo.commit('reformat price.gc');
  refactor(pkg, 'rename', 'shop/price::total', 'shop/price::gross');
  const renameTotal = repo.commit('rename total to gross');
  const text = join(pkg, 'util/text.gc');
  edit(text, /shop\/text::banner/g, 'shop/text::welcome');
  const handRename = repo.commit('rename banner to welcome by hand');
  refactor(pkg, 'move', 'shop/price::rate', 'shop/tax::rate', 'lib/tax.gc');
  const moveRate = repo.commit('move the rate to lib/tax.gc');
  repo.git('checkout', '-q', '-b', 'weekly');
  patch(
    pkg,
    `{:version 1 :intent "weekly reports" :provenance {}
      :ops [{:op :replace-node :module-path "app/report.gc" :path [[:form 2] [:pair-cdr] [:pair-cdr] [:pair-car]] :new "weekly report"}]}`,
  );
  const branchPatch = repo.commit('weekly reports');
  repo.git('checkout', '-q', 'main');
  edit(join(pkg, 'app/cart.gc'), '"EUR"', '"USD"');
  const handEdit = repo.commit('bill in dollars');
  const merge = repo.merge('weekly', 'merge weekly reports');
  return {
    repo,
    pkg,
    root,
    renameTaxRate,
    patchTotal,
    reformat,
    renameTotal,
    handRename,
    moveRate,
    branchPatch,
    handEdit,
    merge,
    cleanup: () => rmSync(repo.dir, { recursive: true, force: true }),
  };
}
