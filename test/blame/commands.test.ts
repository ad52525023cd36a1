// gcpatch blame / why / log in-process on a generated git history (test/blame/history.ts): exact
// human output and --json, with commit ids and evidence addresses replaced by names.
import { cpSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { FIXTURES } from '../action/helpers.js';
import { git } from '../helpers/git.js';
import { clockedRepo, edit, patch, shopHistory, type ShopHistory } from './history.js';

let h: ShopHistory;
let shallow: string;
const cwd = process.cwd();

beforeAll(() => {
  h = shopHistory();
  shallow = `${h.repo.dir}-shallow`;
  // depth 3 from the merge: the merge, both its parents, and the move commit as the boundary
  git(h.repo.dir, 'clone', '-q', '--depth', '3', '--no-local', `file://${h.repo.dir}`, shallow);
});

afterAll(() => {
  process.chdir(cwd);
  h.cleanup();
  rmSync(shallow, { recursive: true, force: true });
});

/** Runs the CLI in `dir`; commit ids become `<name>`, evidence addresses `<evN>` in order of appearance. */
async function run(dir: string, ...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  process.chdir(dir);
  const code = await main(['node', 'gcpatch', ...args], { stdout: (s) => (out += s), stderr: (s) => (err += s) });
  process.chdir(cwd);
  const named = (text: string): string => {
    for (const [k, v] of Object.entries(h)) {
      if (typeof v === 'string' && /^[0-9a-f]{40}$/.test(v)) text = text.replaceAll(v, `<${k}>`).replaceAll(v.slice(0, 12), `<${k}>`);
    }
    const evidence = new Map<string, string>();
    return text.replace(/\b[0-9a-f]{12}(?:[0-9a-f]{52})?\b/g, (m) => {
      if (!evidence.has(m.slice(0, 12))) evidence.set(m.slice(0, 12), `<ev${evidence.size + 1}>`);
      return evidence.get(m.slice(0, 12))!;
    });
  };
  return { code, out: named(out), err: named(err) };
}

const lines = (...xs: string[]): string => xs.join('\n') + '\n';

describe('gcpatch blame', () => {
  it('names the patch for a definition changed by a refactor, then a patch, then reformatted', async () => {
    const r = await run(h.repo.dir, 'blame', 'pkgs/shop/lib/price.gc', '--rev', h.reformat);
    expect(r.code).toBe(0);
    expect(r.out).toBe(
      lines(
        ' <renameTaxRate> (Ada Author 2026-01-03 2) (def ::meta …)  — changed: refactor rename shop/price::tax-rate → shop/price::rate (plan <ev1>, apply <ev2>), verified',
        ' <renameTaxRate> (Ada Author 2026-01-03 4) (def shop/price::rate …)  — renamed from shop/price::tax-rate: refactor rename shop/price::tax-rate → shop/price::rate (plan <ev1>, apply <ev2>), verified',
        ' <patchTotal> (Ada Author 2026-01-04 6) (def shop/price::total …)  — changed: patch "halve the tax base" {:ticket "SHOP-7"} (apply <ev3>), verified',
      ),
    );
  });

  it('passes a change that arrived by a merge to the branch commit that made it', async () => {
    const r = await run(h.repo.dir, 'blame', 'pkgs/shop/app/report.gc');
    expect(r.out).toBe(
      lines(
        ' <renameTotal> (Ada Author 2026-01-06 2) (def ::meta …)  — changed: refactor rename shop/price::total → shop/price::gross (plan <ev1>, apply <ev2>), verified',
        ' <renameTotal> (Ada Author 2026-01-06 4) (def shop/report::line …)  — changed: refactor rename shop/price::total → shop/price::gross (plan <ev1>, apply <ev2>), verified',
        ' <branchPatch> (Ada Author 2026-01-09 7) (def shop/report::greeting …)  — changed: patch "weekly reports" (apply <ev3>), verified (via merge <merge>)',
      ),
    );
  });

  it('shows an unexplained hand edit as such, and --json has the documented shape', async () => {
    const r = await run(h.repo.dir, 'blame', 'app/cart.gc', '--pkg', 'pkgs/shop');
    expect(r.out).toBe(
      lines(
        ' <renameTotal> (Ada Author 2026-01-06 2) (def ::meta …)  — changed: refactor rename shop/price::total → shop/price::gross (plan <ev1>, apply <ev2>), verified',
        ' <handEdit> (Ada Author 2026-01-10 4) (def shop/cart::checkout …)  — changed: hand edit, not explained by evidence',
        ' <root> (Ada Author 2026-01-02 7) (shop/cart::checkout 100)  — added: introduced with the package (no earlier version to explain it against)',
      ),
    );
    const json = JSON.parse((await run(h.repo.dir, 'blame', 'pkgs/shop/app/cart.gc', '--json')).out);
    expect(json.kind).toBe('gcpatch/blame-v1');
    expect(json).toMatchObject({
      package: { dir: 'pkgs/shop', name: 'shop' },
      module: 'app/cart.gc',
      file: 'pkgs/shop/app/cart.gc',
      head: '<merge>',
      since: null,
      shallow: [],
    });
    expect(json.forms[1]).toEqual({
      index: 1,
      line: 4,
      key: 'def:shop/cart::checkout',
      symbol: 'shop/cart::checkout',
      commit: '<handEdit>',
      boundary: null,
      author: { name: 'Ada Author', email: 'ada@example.invalid', time: Date.UTC(2026, 0, 10, 12) / 1000, tz: 0 },
      subject: 'bill in dollars',
      change: 'changed',
      explanation: { how: 'hand-edit', route: 'unexplained', verified: false, evidence: [], unexplained: ['app/cart.gc'], mismatched: [], problems: [] },
      signed: [],
      via: null,
    });
    expect(json.forms[0].explanation).toMatchObject({ how: 'refactor', route: 'evidence', verified: true });
    expect(json.forms[0].explanation.evidence).toEqual([
      {
        kind: 'refactor-plan',
        address: '<ev1>',
        refactorKind: 'rename',
        from: 'shop/price::total',
        to: 'shop/price::gross',
        target: '',
        route: 'recorded-state',
      },
      {
        kind: 'apply-report',
        address: '<ev2>',
        intent: expect.stringContaining('rename'),
        provenance: expect.any(String),
        plan: '<ev1>',
        route: 'recorded-state',
      },
    ]);
  });

  it('with --since, marks forms older than the revision as boundaries (^)', async () => {
    const r = await run(h.repo.dir, 'blame', 'pkgs/shop/app/cart.gc', '--since', h.handRename);
    expect(r.out).toBe(
      lines(
        '^<handRename> (Ada Author 2026-01-07 2) (def ::meta …)  — not changed since --since',
        ' <handEdit> (Ada Author 2026-01-10 4) (def shop/cart::checkout …)  — changed: hand edit, not explained by evidence',
        '^<handRename> (Ada Author 2026-01-07 7) (shop/cart::checkout 100)  — not changed since --since',
      ),
    );
  });

  it('in a shallow clone, stops at the boundary and says so', async () => {
    const r = await run(shallow, 'blame', 'pkgs/shop/lib/price.gc');
    expect(r.code).toBe(0);
    expect(r.out).toBe(
      lines(
        '^<moveRate> (Ada Author 2026-01-08 2) (def ::meta …)  — history stops here (shallow clone): older changes are not in this clone',
        '^<moveRate> (Ada Author 2026-01-08 4) (def shop/price::gross …)  — history stops here (shallow clone): older changes are not in this clone',
        'history stops at <moveRate>: this clone is shallow (git fetch --unshallow for the rest)',
      ),
    );
    const json = JSON.parse((await run(shallow, 'blame', 'pkgs/shop/app/report.gc', '--json')).out);
    expect(json.shallow).toEqual(['<moveRate>']);
    expect(json.forms.map((f: { commit: string; boundary: string | null }) => [f.commit, f.boundary])).toEqual([
      ['<moveRate>', 'shallow'],
      ['<moveRate>', 'shallow'],
      ['<branchPatch>', null],
    ]);
  });
});

const header = (name: string, date: string, subject: string, merge?: string): string[] => [
  `commit <${name}>`,
  ...(merge === undefined ? [] : [merge]),
  'Author: Ada Author <ada@example.invalid>',
  `Date:   ${date} 12:00:00 +0000`,
  '',
  `    ${subject}`,
  '',
];

describe('gcpatch why', () => {
  it('follows renames made by evidence back to the commit that introduced the definition', async () => {
    const r = await run(h.repo.dir, 'why', 'shop/price::gross', '--pkg', 'pkgs/shop');
    expect(r.out).toBe(
      lines(
        'shop/price::gross (lib/price.gc), newest first:',
        '',
        ...header('moveRate', '2026-01-08', 'move the rate to lib/tax.gc'),
        '    changed: shop/price::gross (lib/price.gc)',
        '    explained: refactor move shop/price::rate → shop/tax::rate into lib/tax.gc (plan <ev1>, apply <ev2>), verified',
        '',
        ...header('renameTotal', '2026-01-06', 'rename total to gross'),
        '    renamed from shop/price::total: shop/price::gross (lib/price.gc)',
        '    explained: refactor rename shop/price::total → shop/price::gross (plan <ev3>, apply <ev4>), verified',
        '',
        ...header('patchTotal', '2026-01-04', 'halve the tax base'),
        '    changed: shop/price::total (lib/price.gc)',
        '    explained: patch "halve the tax base" {:ticket "SHOP-7"} (apply <ev5>), verified',
        '',
        ...header('renameTaxRate', '2026-01-03', 'rename the tax rate'),
        '    changed: shop/price::total (lib/price.gc)',
        '    explained: refactor rename shop/price::tax-rate → shop/price::rate (plan <ev6>, apply <ev7>), verified',
        '',
        ...header('root', '2026-01-02', 'shop package'),
        '    added: shop/price::total (lib/price.gc)',
        '    explained: introduced with the package (no earlier version to explain it against)',
        '',
        'The trail ends at <root>, which introduced the package.',
      ),
    );
  });

  it('follows a move between modules made by evidence', async () => {
    const json = JSON.parse((await run(h.repo.dir, 'why', 'shop/tax::rate', '--pkg', 'pkgs/shop', '--json')).out);
    expect(json).toMatchObject({
      kind: 'gcpatch/why-v1',
      symbol: 'shop/tax::rate',
      module: 'lib/tax.gc',
      end: { reason: 'introduced', commit: '<root>', removed: [] },
    });
    expect(
      json.trail.map((e: { commit: string; change: string; symbol: string; module: string; from?: unknown }) => [
        e.commit,
        e.change,
        e.symbol,
        e.module,
        e.from ?? null,
      ]),
    ).toEqual([
      ['<moveRate>', 'moved', 'shop/tax::rate', 'lib/tax.gc', { symbol: 'shop/price::rate', module: 'lib/price.gc' }],
      ['<renameTaxRate>', 'renamed', 'shop/price::rate', 'lib/price.gc', { symbol: 'shop/price::tax-rate', module: 'lib/price.gc' }],
      ['<root>', 'added', 'shop/price::tax-rate', 'lib/price.gc', null],
    ]);
  });

  it('says the trail ends at a rename made by hand', async () => {
    const r = await run(h.repo.dir, 'why', 'shop/text::welcome', '--pkg', 'pkgs/shop');
    expect(r.out).toBe(
      lines(
        'shop/text::welcome (util/text.gc), newest first:',
        '',
        ...header('handRename', '2026-01-07', 'rename banner to welcome by hand'),
        '    added: shop/text::welcome (util/text.gc)',
        '    explained: hand edit, not explained by evidence',
        '',
        'The trail ends at <handRename>, which added the definition and removed shop/text::banner.',
        'If it was renamed from one of those, the rename was made by hand: it is a removal and an addition that no evidence',
        'links (gcpatch refactor plan/apply records a rename as evidence, and why follows it).',
      ),
    );
  });

  it('in a shallow clone, stops at the boundary', async () => {
    const json = JSON.parse((await run(shallow, 'why', 'shop/price::gross', '--json')).out);
    expect(json.end).toEqual({ reason: 'shallow', commit: '<moveRate>', removed: [] });
    expect(json.trail.map((e: { commit: string; boundary: string | null }) => [e.commit, e.boundary])).toEqual([['<moveRate>', 'shallow']]);
    const r = await run(shallow, 'why', 'shop/price::gross');
    expect(r.out.split('\n').slice(-2)).toEqual([
      'The trail stops at <moveRate>: this clone is shallow; the definition is older (git fetch --unshallow for the rest).',
      '',
    ]);
  });
});

describe('gcpatch log', () => {
  it('lists every commit that changed the package with its semantic changes and explanation', async () => {
    const r = await run(h.repo.dir, 'log', '--pkg', 'pkgs/shop');
    expect(r.out).toBe(
      lines(
        ...header('merge', '2026-01-11', 'merge weekly reports', 'Merge: <handEdit> <branchPatch>'),
        '    explained: structural merge of the parents, verified',
        '    changed   shop/report::greeting (app/report.gc)',
        '',
        ...header('branchPatch', '2026-01-09', 'weekly reports'),
        '    explained: patch "weekly reports" (apply <ev1>), verified',
        '    changed   shop/report::greeting (app/report.gc)',
        '',
        ...header('handEdit', '2026-01-10', 'bill in dollars'),
        '    explained: hand edit, not explained by evidence',
        '    changed   shop/cart::checkout (app/cart.gc)',
        '',
        ...header('moveRate', '2026-01-08', 'move the rate to lib/tax.gc'),
        '    explained: refactor move shop/price::rate → shop/tax::rate into lib/tax.gc (plan <ev2>, apply <ev3>), verified',
        '    added     module lib/tax.gc (1 definition)',
        '    manifest  modules',
        '    exports   lib/price.gc: +shop/tax::rate -shop/price::rate',
        '    changed   shop/price::gross (lib/price.gc)',
        '    moved     shop/price::rate → shop/tax::rate (lib/price.gc → lib/tax.gc), by evidence',
        '',
        ...header('handRename', '2026-01-07', 'rename banner to welcome by hand'),
        '    explained: hand edit, not explained by evidence',
        '    exports   util/text.gc: +shop/text::welcome -shop/text::banner',
        '    removed   shop/text::banner (util/text.gc)',
        '    added     shop/text::welcome (util/text.gc)',
        '',
        ...header('renameTotal', '2026-01-06', 'rename total to gross'),
        '    explained: refactor rename shop/price::total → shop/price::gross (plan <ev4>, apply <ev5>), verified',
        '    imports   app/cart.gc: +shop/price::gross -shop/price::total',
        '    changed   shop/cart::checkout (app/cart.gc)',
        '    imports   app/report.gc: +shop/price::gross -shop/price::total',
        '    changed   shop/report::line (app/report.gc)',
        '    exports   lib/price.gc: +shop/price::gross -shop/price::total',
        '    renamed   shop/price::total → shop/price::gross (lib/price.gc), by evidence',
        '',
        ...header('reformat', '2026-01-05', 'reformat price.gc'),
        '    explained: no change that needs evidence (formatting, comments or manifest values)',
        '    no semantic change (formatting, comments, evidence or other files)',
        '',
        ...header('patchTotal', '2026-01-04', 'halve the tax base'),
        '    explained: patch "halve the tax base" {:ticket "SHOP-7"} (apply <ev6>), verified',
        '    changed   shop/price::total (lib/price.gc)',
        '',
        ...header('renameTaxRate', '2026-01-03', 'rename the tax rate'),
        '    explained: refactor rename shop/price::tax-rate → shop/price::rate (plan <ev7>, apply <ev8>), verified',
        '    exports   lib/price.gc: +shop/price::rate -shop/price::tax-rate',
        '    renamed   shop/price::tax-rate → shop/price::rate (lib/price.gc), by evidence',
        '    changed   shop/price::total (lib/price.gc)',
        '',
        // the root commit introduced the package: it is listed, as why lists it
        ...header('root', '2026-01-02', 'shop package'),
        '    explained: introduced with the package (no earlier version to explain it against)',
        '    added     module app/cart.gc (1 definition)',
        '    added     module app/report.gc (2 definitions)',
        '    added     module lib/price.gc (2 definitions)',
        '    added     module util/text.gc (1 definition)',
        '    manifest  dependencies, modules, name, obligations, schema, tests, version',
        '',
      ),
    );
  });

  it('limits to a module or a definition, honours --max-count and --since', async () => {
    const mod = JSON.parse((await run(h.repo.dir, 'log', 'pkgs/shop/lib/tax.gc', '--json')).out);
    expect(mod).toMatchObject({ kind: 'gcpatch/log-v1', filter: { module: 'lib/tax.gc' }, truncated: false, maxCount: null });
    expect(mod.commits.map((c: { commit: string }) => c.commit)).toEqual(['<moveRate>']);
    expect(mod.commits[0].changes).toEqual([
      { kind: 'module-added', module: 'lib/tax.gc', symbols: ['shop/tax::rate'] },
      { kind: 'moved', module: 'lib/tax.gc', symbol: 'shop/tax::rate', from: { symbol: 'shop/price::rate', module: 'lib/price.gc' }, byEvidence: true },
    ]);
    const sym = JSON.parse((await run(h.repo.dir, 'log', 'shop/price::total', '--pkg', 'pkgs/shop', '--max-count', '2', '--json')).out);
    expect(sym.commits.map((c: { commit: string }) => c.commit)).toEqual(['<renameTotal>', '<patchTotal>']);
    expect(sym.truncated).toBe(true);
    const text = await run(h.repo.dir, 'log', 'shop/price::total', '--pkg', 'pkgs/shop', '--max-count', '2');
    expect(text.out.split('\n').slice(-2)).toEqual(['(--max-count 2: older commits not shown)', '']);
    const since = JSON.parse((await run(h.repo.dir, 'log', '--pkg', 'pkgs/shop', '--since', h.handRename, '--json')).out);
    expect(since.commits.map((c: { commit: string }) => c.commit)).toEqual(['<merge>', '<branchPatch>', '<handEdit>', '<moveRate>']);
  });

  it('in a shallow clone, lists what the clone has and says where history stops', async () => {
    const r = await run(shallow, 'log');
    expect(r.out.split('\n').filter((l) => l.startsWith('commit ') || l.startsWith('history'))).toEqual([
      'commit <merge>',
      'commit <branchPatch>',
      'commit <handEdit>',
      'history stops at <moveRate>: this clone is shallow (git fetch --unshallow for the rest)',
    ]);
  });
});

describe('errors name the revision, path or symbol (exit 10), with --json', () => {
  it('an unknown module, symbol, revision or --max-count', async () => {
    const mod = await run(h.repo.dir, 'blame', 'pkgs/shop/lib/nope.gc');
    expect(mod.code).toBe(10);
    expect(mod.err).toBe(
      'pkgs/shop/lib/nope.gc: blame/unknown-module: pkgs/shop/lib/nope.gc is not a module of package shop at HEAD (pkgs/shop/package.toml lists lib/tax.gc, lib/price.gc, app/cart.gc, app/report.gc, util/text.gc)\n',
    );
    const sym = await run(h.repo.dir, 'why', 'gross', '--pkg', 'pkgs/shop', '--json');
    expect(sym.code).toBe(10);
    expect(JSON.parse(sym.out).error).toMatchObject({
      code: 'blame/unknown-symbol',
      message: 'no module of package shop defines gross at <merge> (did you mean shop/price::gross?)',
    });
    const rev = await run(h.repo.dir, 'log', '--pkg', 'pkgs/shop', '--rev', 'no-such-branch');
    expect([rev.code, rev.err]).toEqual([10, 'git/unknown-revision: unknown revision "no-such-branch": no ref, tag or object of that name\n']);
    const count = await run(h.repo.dir, 'log', '--pkg', 'pkgs/shop', '--max-count', '0');
    expect([count.code, count.err]).toEqual([10, 'usage/invalid-option: log: --max-count must be a positive integer, got "0"\n']);
    const pkg = await run(h.repo.dir, 'why', 'shop/price::gross');
    expect(pkg.code).toBe(0);
  });
});

describe('a form both sides of a merge changed', () => {
  it('is blamed on the merge commit, explained by the structural merge', async () => {
    const repo = clockedRepo();
    try {
      const pkg = join(repo.dir, 'shop');
      cpSync(join(FIXTURES, 'shop'), pkg, { recursive: true });
      const price = join(pkg, 'lib/price.gc');
      edit(
        price,
        /\(def shop\/price::total\n.*\n/,
        '(def shop/price::total\n  (fn (net)\n    (prim int/add\n      net\n      (prim int/div (prim int/mul net shop/price::tax-rate) 100))))\n',
      );
      repo.commit('shop, total on several lines');
      repo.git('checkout', '-q', '-b', 'half');
      edit(price, ' 100))))', ' 50))))');
      repo.commit('halve the divisor');
      repo.git('checkout', '-q', 'main');
      edit(price, '(prim int/add\n', '(prim int/sub\n');
      repo.commit('subtract');
      const merge = repo.merge('half', 'merge half');
      writeFileSync(join(repo.dir, 'README.md'), 'after the merge\n');
      repo.commit('readme');
      const r = await run(repo.dir, 'blame', 'shop/lib/price.gc', '--json');
      const total = JSON.parse(r.out).forms.find((f: { key: string }) => f.key === 'def:shop/price::total');
      expect(total.commit).toBe(merge);
      expect(total.change).toBe('changed');
      expect(total.explanation).toMatchObject({ how: 'merge', route: 'merge', verified: true });
    } finally {
      rmSync(repo.dir, { recursive: true, force: true });
    }
  });
});

describe('evidence that does not verify', () => {
  it('is named: a patch whose stored apply report was edited is a hand edit, with the failed check', async () => {
    const repo = clockedRepo();
    try {
      const pkg = join(repo.dir, 'shop');
      cpSync(join(FIXTURES, 'shop'), pkg, { recursive: true });
      repo.commit('shop');
      patch(
        pkg,
        `{:version 1 :intent "raise the rate" :provenance {} :ops [{:op :replace-node :module-path "lib/price.gc" :path [[:form 1] [:pair-cdr] [:pair-cdr] [:pair-car]] :new 25}]}`,
      );
      const store = join(pkg, '.genesis/store');
      const report = readdirSync(store).find((f) => readFileSync(join(store, f), 'utf8').includes('genesis/patch-apply-v0.3'))!;
      writeFileSync(join(store, report), readFileSync(join(store, report), 'utf8').replace('raise the rate', 'raise the tax'));
      const tampered = repo.commit('raise the rate, with an edited report');
      const r = await run(repo.dir, 'blame', 'shop/lib/price.gc', '--json');
      const rate = JSON.parse(r.out).forms.find((f: { key: string }) => f.key === 'def:shop/price::tax-rate');
      expect(rate.commit).toBe(tampered);
      expect(rate.explanation).toMatchObject({ how: 'hand-edit', verified: false });
      expect(report).toMatch(/^[0-9a-f]{64}$/); // the run helper names it <ev1>
      expect(rate.explanation.problems).toEqual([
        `evidence-store entry <ev1> does not hash to its name (BLAKE3 of its bytes differs): the entry was edited or corrupted`,
      ]);
      const text = await run(repo.dir, 'blame', 'shop/lib/price.gc');
      // (this history's commits are not named: commit ids and addresses both print as <evN>)
      expect(text.out).toMatch(
        /\(def shop\/price::tax-rate …\) {2}— changed: hand edit, not explained by evidence; its evidence did not verify: evidence-store entry <ev\d> does not hash to its name \(BLAKE3/,
      );
    } finally {
      rmSync(repo.dir, { recursive: true, force: true });
    }
  });
});
