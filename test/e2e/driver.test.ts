// End-to-end: real git repositories with the merge drivers installed (driver/dist/index.js):
// merge, rebase, cherry-pick, criss-cross, renames, CRLF, missing final newline, add/add, emptied
// files, fallbacks (syntax error, existing markers, binary), package.toml pins, diff3 style.
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { installDriver } from '../../src/driver-setup/install.js';
import { mergeModuleText } from '../../src/textmerge/module.js';
import { gcpatch, ROOT, type RunResult } from '../helpers/cli.js';
import { runCli } from '../helpers/run-cli.js';
import { commit, git, initRepo } from '../driver/helpers.js';
import { useTempHome } from '../helpers/home.js';

useTempHome();

const A = (v: string): string => `;; first\n(def app/m::a\n  (fn (x)\n    (prim int/add x ${v})))\n`;
const B = (v: string): string => `(def app/m::b\n  "${v} ; not a comment ) (")\n`;
const C = (v: string): string => `(def app/m::c ${v})\n`;
const mod = (...forms: string[]): string => `; app/m: test module\n\n${forms.join('\n')}\napp/m::a\n`;

/** A repository with the drivers installed and `m.gc` committed on main. */
function repoWith(files: Record<string, string | Uint8Array>): string {
  const repo = initRepo();
  installDriver({ cwd: repo });
  commit(repo, files, 'base');
  return repo;
}

/** Makes branch `feature` with `theirs` and commits `ours` on main. */
function branches(repo: string, ours: Record<string, string | Uint8Array>, theirs: Record<string, string | Uint8Array>): void {
  git(repo, ['checkout', '-q', '-b', 'feature']);
  commit(repo, theirs, 'theirs');
  git(repo, ['checkout', '-q', 'main']);
  commit(repo, ours, 'ours');
}

const read = (repo: string, p: string): string => readFileSync(join(repo, p), 'utf8');

describe('git merge with the gcpatch driver', () => {
  it('merges a large module by its changed windows: edits far apart, one real conflict, the same bytes as the whole merge', () => {
    // 3,000 definitions (≈250 KB): the driver's reduced merge (segmentReduced) keeps the untouched
    // stretches whole; its output must be the whole merge's, byte for byte, markers and lines included.
    const big = (edit: (i: number) => string | undefined): string =>
      `; app/m: large\n\n${Array.from({ length: 3000 }, (_, i) => `;; Step ${i}.\n(def app/m::s${i}\n  (fn (x)\n    ${edit(i) ?? `(prim int/add x ${i})`}))\n`).join('\n')}\napp/m::s0\n`;
    const base = big(() => undefined);
    const ours = big((i) => (i === 3 ? '(prim int/mul x 3)' : i === 1500 ? '(prim int/mul x 1500)' : i === 2000 ? '(prim int/mul x 2000)' : undefined));
    const theirs = big((i) => (i === 2990 ? '(prim int/sub x 1)' : i === 1500 ? '(prim int/sub x 1500)' : undefined));
    const repo = repoWith({ 'm.gc': base });
    branches(repo, { 'm.gc': ours }, { 'm.gc': theirs });
    const r = git(repo, ['merge', '--no-edit', 'feature']);
    expect(r.status).toBe(1);
    const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
    const markers = { markerSize: 7, style: 'merge' as const, oursLabel: 'ours', baseLabel: 'base', theirsLabel: 'theirs' };
    const whole = mergeModuleText(enc(base), enc(ours), enc(theirs), { markers, reduce: 'never' });
    expect(mergeModuleText(enc(base), enc(ours), enc(theirs), { markers }).stats.reduced).toBe(true);
    const merged = read(repo, 'm.gc');
    expect(merged).toBe(new TextDecoder().decode(whole.text));
    expect(merged.match(/^<<<<<<< /gm)).toHaveLength(1);
    for (const edit of ['(prim int/mul x 3)', '(prim int/mul x 2000)', '(prim int/sub x 1)', '(prim int/mul x 1500)', '(prim int/sub x 1500)'])
      expect(merged).toContain(edit);
    const line = whole.conflicts[0]!.line;
    expect(merged.split('\n')[line - 1]).toMatch(/^<<<<<<< /);
    expect(r.stderr).toContain(`(def app/m::s1500 …) at line ${line}`);
  });

  it('merges adjacent edits that plain git reports as a conflict', () => {
    // The last line of b and the line of c are neighbours: git's line merge conflicts.
    const files = { 'm.gc': mod(A('1'), B('b'), C('1')).replace('")\n\n(def app/m::c', '")\n(def app/m::c') };
    const ours = { 'm.gc': files['m.gc'].replace('"b ;', '"B ;') };
    const theirs = { 'm.gc': files['m.gc'].replace('c 1)', 'c 2)') };
    const plain = initRepo();
    commit(plain, files, 'base');
    branches(plain, ours, theirs);
    expect(git(plain, ['merge', '-q', '--no-edit', 'feature']).status).toBe(1);
    const repo = repoWith(files);
    branches(repo, ours, theirs);
    const r = git(repo, ['merge', '--no-edit', 'feature']);
    expect(r.status).toBe(0);
    expect(read(repo, 'm.gc')).toBe(files['m.gc'].replace('"b ;', '"B ;').replace('c 1)', 'c 2)'));
  });

  it('rebase and cherry-pick use the driver too', () => {
    const repo = repoWith({ 'm.gc': mod(A('1'), B('b'), C('1')) });
    branches(repo, { 'm.gc': mod(A('2'), B('b'), C('1')) }, { 'm.gc': mod(A('1'), B('B'), C('1')) });
    git(repo, ['checkout', '-q', '-b', 'pick', 'main']);
    const tip = git(repo, ['rev-parse', 'feature']).stdout.trim();
    expect(git(repo, ['cherry-pick', tip]).status).toBe(0);
    expect(read(repo, 'm.gc')).toBe(mod(A('2'), B('B'), C('1')));
    git(repo, ['checkout', '-q', 'feature']);
    const r = git(repo, ['rebase', 'main']);
    expect(r.status, r.stderr).toBe(0);
    expect(read(repo, 'm.gc')).toBe(mod(A('2'), B('B'), C('1')));
  });

  it('merges a criss-cross history (recursive merge base)', () => {
    const repo = repoWith({ 'm.gc': mod(A('1'), B('b'), C('1')) });
    branches(repo, { 'm.gc': mod(A('2'), B('b'), C('1')) }, { 'm.gc': mod(A('1'), B('b'), C('2')) });
    // main merges feature; feature merges main's parent: two merge bases.
    expect(git(repo, ['merge', '-q', '--no-edit', 'feature']).status).toBe(0);
    git(repo, ['checkout', '-q', 'feature']);
    expect(git(repo, ['merge', '-q', '--no-edit', 'main~1']).status).toBe(0);
    commit(repo, { 'm.gc': read(repo, 'm.gc').replace('"b ;', '"B ;') }, 'feature edits b');
    git(repo, ['checkout', '-q', 'main']);
    commit(repo, { 'm.gc': read(repo, 'm.gc').replace(';; first', ';; first form') }, 'main edits a comment');
    expect(git(repo, ['merge-base', '--all', 'main', 'feature']).stdout.trim().split('\n').length).toBe(2);
    const r = git(repo, ['merge', '--no-edit', 'feature']);
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(read(repo, 'm.gc')).toBe(mod(A('2').replace(';; first', ';; first form'), B('B'), C('2')));
  });

  it('follows a rename on one side (%P is the new path)', () => {
    const repo = repoWith({ 'm.gc': mod(A('1'), B('b'), C('1')) });
    git(repo, ['checkout', '-q', '-b', 'feature']);
    commit(repo, { 'm.gc': mod(A('3'), B('B'), C('1')) }, 'theirs');
    git(repo, ['checkout', '-q', 'main']);
    mkdirSync(join(repo, 'lib'));
    git(repo, ['mv', 'm.gc', 'lib/m.gc']);
    commit(repo, { 'lib/m.gc': mod(A('2'), B('b'), C('1')) }, 'rename and edit');
    const r = git(repo, ['merge', '--no-edit', 'feature']);
    expect(r.status).toBe(1);
    expect(r.stdout + r.stderr).toContain('gcpatch: lib/m.gc: conflict in (def app/m::a …)');
    const text = read(repo, 'lib/m.gc');
    expect(text).toContain(B('B'));
    // Only the conflicting node's line is marked (docs/driver.md "Inside a form: tree merge"), the rest of the form stays as is.
    expect(text).toMatch(
      /;; first\n\(def app\/m::a\n {2}\(fn \(x\)\n<<<<<<< \S+\n {4}\(prim int\/add x 2\)\)\)\n(\|{7}[^\n]*\n {4}\(prim int\/add x 1\)\)\)\n)?=======\n {4}\(prim int\/add x 3\)\)\)\n>>>>>>> /,
    );
  });

  it('inside forms: both exports merge, a rename is carried over on rebase, a new use of a deleted definition conflicts', () => {
    const meta = (exports: string): string => `(def ::meta\n  '{:caps []\n    :exports [${exports}]\n    :types {}})\n`;
    const old = `(def app/m::old-name\n  (fn (n)\n    (prim int/mul n 2)))\n`;
    const repo = repoWith({ 'm.gc': mod(meta('app/m::a'), A('1'), old) });
    // ours: exports app/m::d and renames old-name; theirs: exports app/m::e and adds a caller of old-name.
    branches(
      repo,
      { 'm.gc': mod(meta('app/m::a app/m::d'), A('1'), old.replace('old-name', 'new-name'), C('4').replace('::c', '::d')) },
      { 'm.gc': mod(meta('app/m::a app/m::e'), A('1'), old, `(def app/m::e\n  (app/m::old-name 5))\n`) },
    );
    const r = git(repo, ['merge', '--no-edit', 'feature']);
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stderr).toContain("carried ours' rename app/m::old-name → app/m::new-name into theirs' new reference in (def app/m::e …)");
    const text = read(repo, 'm.gc');
    expect(text).toContain(':exports [app/m::a app/m::d app/m::e]');
    expect(text).toContain('(def app/m::e\n  (app/m::new-name 5))');
    expect(text).not.toContain('old-name');

    // Delete vs new use, through a rebase: the replayed commit's new caller conflicts.
    const helper = `(def app/m::helper\n  (fn (n)\n    (prim int/add n 1)))\n`;
    const repo2 = repoWith({ 'm.gc': mod(A('1'), helper) });
    branches(repo2, { 'm.gc': mod(A('1')) }, { 'm.gc': mod(A('1'), helper, `(def app/m::caller\n  (app/m::helper 2))\n`) });
    git(repo2, ['checkout', '-q', 'feature']);
    const rb = git(repo2, ['rebase', 'main']);
    expect(rb.status).not.toBe(0);
    expect(rb.stdout + rb.stderr).toMatch(
      /conflict in \(def app\/m::caller …\) at line \d+ \[form\/dangling-reference\]: \S+ deleted \(def app\/m::helper …\)/,
    );
    expect(read(repo2, 'm.gc')).toMatch(/<<<<<<< [^\n]*\n(\|{7}[^\n]*\n)?=======\n\(def app\/m::caller\n {2}\(app\/m::helper 2\)\)\n>>>>>>> /);
    git(repo2, ['rebase', '--abort']);
  });

  it('carries a rename into the other side’s edits: the renamed definition’s edited body, a wrapped use; merge and rebase', () => {
    const price = (name: string, body: string): string => `;; The price of one item, in cents.\n(def ${name}\n  (fn (item)\n    ${body}))\n`;
    const total = (call: string): string => `(def app/m::total\n  (fn (item qty)\n    (prim int/mul ${call} qty)))\n`;
    const base = mod(A('1'), price('app/m::price', '(prim map/get item :cents)'), total('(app/m::price item)'));
    // ours renames app/m::price everywhere; theirs edits its body and wraps its use.
    const ours = mod(A('1'), price('app/m::unit-price', '(prim map/get item :cents)'), total('(app/m::unit-price item)'));
    const theirs = mod(A('1'), price('app/m::price', '(prim int/max (prim map/get item :cents) 0)'), total('(prim int/abs (app/m::price item))'));
    const want = mod(A('1'), price('app/m::unit-price', '(prim int/max (prim map/get item :cents) 0)'), total('(prim int/abs (app/m::unit-price item))'));
    const repo = repoWith({ 'm.gc': base });
    git(repo, ['tag', 'base']);
    branches(repo, { 'm.gc': ours }, { 'm.gc': theirs });
    const r = git(repo, ['merge', '--no-edit', 'feature']);
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stderr).toContain("carried ours' rename app/m::price → app/m::unit-price into theirs' edit of (def app/m::price …)");
    expect(r.stderr).toContain("carried ours' rename app/m::price → app/m::unit-price into theirs' edit of (def app/m::total …)");
    expect(read(repo, 'm.gc')).toBe(want);
    expect(git(repo, ['status', '--porcelain']).stdout).toBe('');
    // The other way round: the rename replayed onto the edits by a rebase (theirs renames).
    git(repo, ['checkout', '-q', '-b', 'renamed', 'base']);
    commit(repo, { 'm.gc': ours }, 'rename');
    const rb = git(repo, ['rebase', 'feature']);
    expect(rb.status, rb.stdout + rb.stderr).toBe(0);
    expect(rb.stdout + rb.stderr).toContain("carried theirs' rename app/m::price → app/m::unit-price into ours' edit of (def app/m::total …)");
    expect(read(repo, 'm.gc')).toBe(want);
    expect(git(repo, ['log', '-1', '--format=%s']).stdout.trim()).toBe('rename');
    rmSync(repo, { recursive: true, force: true });
  });

  it('a `gcpatch refactor` rename merged with an edit of the renamed definition verifies (no stale reference)', async () => {
    // The CLI (in-process; verify-pr through the built CLI): rename ledger/pair::first on a branch, edit its body on main, merge main into
    // the branch through the drivers, re-pin, and `verify-pr` explains the merge and passes.
    const must = (r: RunResult, what: string): RunResult => {
      if (r.status !== 0) throw new Error(`${what} exited ${r.status}: ${r.stderr}${r.stdout}`);
      return r;
    };
    const repo = initRepo();
    cpSync(join(ROOT, 'fixtures/refactor/ledger'), join(repo, 'ledger'), { recursive: true });
    must(await runCli(['driver', 'install'], { cwd: repo }), 'driver install');
    const all = (msg: string): void => {
      git(repo, ['add', '-A']);
      git(repo, ['commit', '-q', '-m', msg]);
    };
    all('ledger, drivers');
    git(repo, ['checkout', '-q', '-b', 'pr']);
    const plan = must(
      await runCli(['refactor', 'plan', '--kind', 'rename', '--from', 'ledger/pair::first', '--to', 'ledger/pair::head', '--pkg', 'ledger', '--json'], {
        cwd: repo,
      }),
      'refactor plan',
    );
    must(
      await runCli(['refactor', 'apply', (JSON.parse(plan.stdout) as { reportAddress: string }).reportAddress, '--pkg', 'ledger'], { cwd: repo }),
      'refactor apply',
    );
    all('rename pair first');
    git(repo, ['checkout', '-q', 'main']);
    const pair = join(repo, 'ledger/core/pair.gc');
    const before = '(def ledger/pair::first (fn (p) (prim vec/get p 0)))';
    expect(read(repo, 'ledger/core/pair.gc')).toContain(before);
    writeFileSync(pair, read(repo, 'ledger/core/pair.gc').replace(before, '(def ledger/pair::first (fn (pair) (prim vec/get pair 0)))'));
    must(await runCli(['pack', '--pkg', 'ledger'], { cwd: repo }), 'pack');
    all('name the pair');
    git(repo, ['checkout', '-q', 'pr']);
    const m = git(repo, ['merge', '--no-edit', 'main']);
    expect(m.status, m.stdout + m.stderr).toBe(0);
    expect(m.stderr).toContain("carried ours' rename ledger/pair::first → ledger/pair::head into theirs' edit of (def ledger/pair::first …)");
    const merged = read(repo, 'ledger/core/pair.gc');
    expect(merged).toContain('(def ledger/pair::head (fn (pair) (prim vec/get pair 0)))');
    expect(merged).not.toContain('ledger/pair::first');
    must(await runCli(['pack', '--pkg', 'ledger'], { cwd: repo }), 'pack after the merge');
    all('re-pin');
    const v = gcpatch(['verify-pr', '--base', 'main', '--json'], { cwd: repo });
    const report = JSON.parse(v.stdout) as { ok: boolean; findings: { code: string; severity: string }[] };
    expect(report.findings.filter((f) => f.severity === 'error').map((f) => f.code)).toEqual([]);
    expect([v.status, report.ok]).toEqual([0, true]);
    rmSync(repo, { recursive: true, force: true });
  });

  it('keeps CRLF line endings and a missing final newline', () => {
    const crlf = (s: string): string => s.replace(/\n/g, '\r\n');
    const repo = repoWith({ 'w.gc': crlf(mod(A('1'), B('b'))), 'n.gc': mod(A('1'), B('b')).trimEnd() });
    branches(
      repo,
      { 'w.gc': crlf(mod(A('2'), B('b'))), 'n.gc': mod(A('2'), B('b')).trimEnd() },
      { 'w.gc': crlf(mod(A('1'), B('B'))), 'n.gc': mod(A('1'), B('B')).trimEnd() },
    );
    expect(git(repo, ['merge', '-q', '--no-edit', 'feature']).status).toBe(0);
    expect(read(repo, 'w.gc')).toBe(crlf(mod(A('2'), B('B'))));
    expect(read(repo, 'n.gc')).toBe(mod(A('2'), B('B')).trimEnd());
  });

  it('add/add with an empty base keeps both sides’ definitions; an emptied side conflicts with an edit', () => {
    const repo = repoWith({ 'm.gc': mod(A('1'), B('b')) });
    branches(repo, { 'new.gc': C('1'), 'm.gc': '' }, { 'new.gc': `(def app/m::d 4)\n`, 'm.gc': mod(A('1'), B('B')) });
    const r = git(repo, ['merge', '--no-edit', 'feature']);
    expect(r.status).toBe(1);
    expect(read(repo, 'new.gc')).toBe(`${C('1')}\n(def app/m::d 4)\n`);
    expect(read(repo, 'm.gc')).toMatch(/^<<<<<<< \S+\n=======\n\(def app\/m::b\n {2}"B ; not a comment \) \("\)\n>>>>>>> \S+\n$/);
    expect(git(repo, ['diff', '--name-only', '--diff-filter=U']).stdout.trim()).toBe('m.gc');
  });

  it('falls back to the line merge for a syntax error or existing markers, keeps ours for binary', () => {
    const repo = repoWith({ 's.gc': mod(A('1'), B('b')), 'k.gc': mod(A('1'), B('b')), 'bin.gc': mod(A('1')) });
    branches(
      repo,
      { 's.gc': mod(A('2'), B('b')), 'k.gc': mod(A('1'), '<<<<<<< x\n' + B('b') + '=======\n>>>>>>> y\n'), 'bin.gc': mod(A('2')) },
      { 's.gc': mod(A('1'), B('b').replace(')\n', '\n')), 'k.gc': mod(A('3'), B('b')), 'bin.gc': Buffer.from('\0binary\0') },
    );
    const r = git(repo, ['merge', '--no-edit', 'feature']);
    const out = r.stdout + r.stderr;
    expect(out).toMatch(/s\.gc: structural merge not used \(core\/parse\//);
    expect(out).toMatch(/k\.gc: structural merge not used \(a side already contains conflict markers\)/);
    expect(out).toMatch(/bin\.gc: a side contains NUL bytes \(binary\); kept ours unmerged/);
    expect(read(repo, 's.gc')).toBe(mod(A('2'), B('b').replace(')\n', '\n')));
    expect(read(repo, 'bin.gc')).toBe(mod(A('2')));
    expect(git(repo, ['diff', '--name-only', '--diff-filter=U']).stdout.trim().split('\n')).toContain('bin.gc');
  });

  it('merges package.toml pins: both re-pinned the same module → "" and a pack hint', () => {
    const h = (c: string): string => c.repeat(64);
    const m = (a: string, b: string): string =>
      `dependencies = []\nname = "demo"\nobligations = []\nschema = 1\nversion = "0.1.0"\n\n[[modules]]\nhash = "${a}"\npath = "a.gc"\n\n[[modules]]\nhash = "${b}"\npath = "b.gc"\n`;
    const repo = repoWith({ 'package.toml': m(h('1'), h('2')) });
    branches(repo, { 'package.toml': m(h('3'), h('2')) }, { 'package.toml': m(h('4'), h('5')) });
    const r = git(repo, ['merge', '--no-edit', 'feature']);
    expect(r.status).toBe(0);
    expect(r.stdout + r.stderr).toMatch(/gcpatch pack/);
    expect(read(repo, 'package.toml')).toBe(m('', h('5')));
  });

  it('writes diff3 markers around the one conflicting form when merge.conflictStyle=diff3', () => {
    const repo = repoWith({ 'm.gc': mod(A('1'), B('b'), C('1')) });
    git(repo, ['config', 'merge.conflictStyle', 'diff3']);
    branches(repo, { 'm.gc': mod(A('1'), B('b'), C('2')) }, { 'm.gc': mod(A('9'), B('b'), C('3')) });
    expect(git(repo, ['merge', '-q', '--no-edit', 'feature']).status).toBe(1);
    // Labels are the branch names on git >= 2.44 and ours/base/theirs before.
    const text = read(repo, 'm.gc').replace(/^(<{7}|\|{7}|>{7}) .*$/gm, '$1 L');
    expect(text).toBe(`; app/m: test module\n\n${A('9')}\n${B('b')}\n<<<<<<< L\n${C('2')}||||||| L\n${C('1')}=======\n${C('3')}>>>>>>> L\n\napp/m::a\n`);
  });
});
