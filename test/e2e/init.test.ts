// `gcpatch init` on a repository whose .gitignore ignores `.genesis/` (as GenesisCode's does): with
// init, a refactor committed with `git add .` carries its evidence and verify-pr passes without a
// warning; without it, refactor apply warns and verify-pr says why the change is unexplained. Init
// is idempotent, --dry-run writes nothing, --undo removes what it added.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gcpatch, GIT_ENV, ROOT, tempDir } from '../helpers/cli.js';

const SHA = 'a'.repeat(40);

function repo(): { dir: string; git: (...args: string[]) => string } {
  const dir = join(tempDir(), 'repo');
  cpSync(join(ROOT, 'fixtures/refactor/ledger'), join(dir, 'ledger'), { recursive: true });
  const git = (...args: string[]): string =>
    execFileSync('git', args, { cwd: dir, encoding: 'utf8', env: { ...process.env, ...GIT_ENV }, stdio: ['ignore', 'pipe', 'pipe'] });
  git('init', '-q', '-b', 'main');
  writeFileSync(join(dir, '.gitignore'), 'node_modules/\n.genesis/\n');
  git('add', '.');
  git('commit', '-qm', 'base');
  return { dir, git };
}

const run = (cwd: string, args: string[]) => gcpatch(args, { cwd, env: GIT_ENV });

/** A rename refactor in ledger, committed with `git add .`; returns refactor apply's stderr. */
function refactorAndCommit(dir: string, git: (...args: string[]) => string): string {
  git('switch', '-qc', 'rename');
  const pkg = join(dir, 'ledger');
  const plan = run(pkg, [
    'refactor',
    'plan',
    '--kind',
    'rename',
    '--from',
    'ledger/money::add-amounts',
    '--to',
    'ledger/money::sum-amounts',
    '--out',
    join(dir, '..', 'rename.plan.gc'),
  ]);
  expect(plan.status).toBe(0);
  const apply = run(pkg, ['refactor', 'apply', join(dir, '..', 'rename.plan.gc')]);
  expect(apply.status).toBe(0);
  git('add', '.');
  git('commit', '-qm', 'rename');
  return apply.stderr;
}

interface Finding {
  code: string;
  severity: string;
  message: string;
  file?: string;
  line?: number;
}

function verify(dir: string): { status: number; findings: Finding[] } {
  const r = run(dir, ['verify-pr', '--base', 'main', '--json']);
  return { status: r.status, findings: (JSON.parse(r.stdout) as { findings: Finding[] }).findings };
}

describe('gcpatch init', () => {
  it('lets the evidence reach the commit: a refactor committed with `git add .` verifies', () => {
    const { dir, git } = repo();
    const dry = run(dir, ['init', '--dry-run', '--action', `o/gcpatch@${SHA}`]);
    expect(dry.status).toBe(0);
    expect(dry.stdout).toContain('would update   gitignore (.gitignore): evidence of 1 package let in (ledger)');
    expect(dry.stdout).toMatch(/^would create {3}drivers: /m);
    expect(dry.stdout.endsWith('nothing written (--dry-run)\n')).toBe(true);
    expect(readFileSync(join(dir, '.gitignore'), 'utf8')).toBe('node_modules/\n.genesis/\n');
    expect(existsSync(join(dir, '.gitattributes'))).toBe(false);

    const init = run(dir, ['init', '--action', `o/gcpatch@${SHA}`, '--json']);
    expect(init.status).toBe(0);
    const report = JSON.parse(init.stdout);
    expect(report.ok).toBe(true);
    expect(report.changes.map((c: { what: string; action: string }) => `${c.what}:${c.action}`)).toEqual([
      'drivers:created',
      'attributes:created',
      'gitignore:updated',
      'workflow:created',
    ]);
    expect(report.evidence).toEqual([
      { package: 'ledger', wasIgnoredBy: { source: '.gitignore', line: 2, pattern: '.genesis/', path: `ledger/.genesis/store/${'0'.repeat(64)}` } },
    ]);
    expect(readFileSync(join(dir, '.gitignore'), 'utf8')).toBe(
      'node_modules/\n.genesis/\n' +
        '# >>> gcpatch init: evidence is committed, transaction files are not (docs/init.md) >>>\n' +
        '.gcpatch/\n*.gcpatch-stage-*\n*.gcpatch-backup-*\n' +
        '!/ledger/.genesis/\n/ledger/.genesis/*\n!/ledger/.genesis/store/\n/ledger/.genesis/store/.tmp-*\n' +
        '!/ledger/.genesis/last_acceptance\n!/ledger/.genesis/last_signature\n!/ledger/.genesis/signatures.gc\n!/ledger/.genesis/transparency_head\n' +
        '# <<< gcpatch init <<<\n',
    );
    expect(readFileSync(join(dir, '.github/workflows/gcpatch.yml'), 'utf8')).toContain(`        uses: o/gcpatch@${SHA}   # gcpatch v`);
    expect(readFileSync(join(dir, '.gitattributes'), 'utf8')).toBe('*.gc merge=gcpatch\npackage.toml merge=gcpatch-manifest\n');

    // Idempotent: the second run changes nothing.
    const again = JSON.parse(run(dir, ['init', '--json']).stdout);
    expect(again.changes.map((c: { action: string }) => c.action)).toEqual(['unchanged', 'unchanged', 'unchanged', 'unchanged']);

    git('add', '.');
    git('commit', '-qm', 'gcpatch init');
    const warned = refactorAndCommit(dir, git);
    expect(warned).not.toContain('warning: git ignores');
    const committed = git('show', '--name-only', '--format=', 'HEAD').split('\n');
    expect(committed.filter((p) => /^ledger\/\.genesis\/store\/[0-9a-f]{64}$/.test(p)).length).toBeGreaterThanOrEqual(5);
    expect(committed).toContain('ledger/.genesis/last_acceptance');
    // Only the evidence: nothing else under .genesis/, no transaction files.
    expect(committed.filter((p) => p.includes('.genesis/') && !/^ledger\/\.genesis\/(store\/[0-9a-f]{64}|last_acceptance)$/.test(p))).toEqual([]);

    const v = verify(dir);
    expect(v.findings.filter((f) => f.severity !== 'notice')).toEqual([]);
    expect(v.status).toBe(0);
  });

  it('without init, refactor apply warns and verify-pr says the evidence is ignored by .gitignore', () => {
    const { dir, git } = repo();
    const warned = refactorAndCommit(dir, git);
    expect(warned).toBe(
      'warning: git ignores ledger/.genesis/ (.gitignore:2: .genesis/): the evidence just written will not reach a commit with `git add .`, ' +
        'and the pull request check will find the change unexplained; run `gcpatch init` (it adds the .gitignore exceptions), then `git add ledger/.genesis`\n',
    );
    expect(git('show', '--name-only', '--format=', 'HEAD')).not.toContain('.genesis');
    const v = verify(dir);
    expect(v.status).toBe(0);
    const ignored = v.findings.filter((f) => f.code === 'audit/evidence-ignored');
    expect(ignored).toHaveLength(1);
    expect(ignored[0]).toMatchObject({ severity: 'warning', file: '.gitignore', line: 2 });
    expect(ignored[0]!.message).toMatch(
      /^ledger\/package\.toml: \d+ changed modules? carry no evidence, and the head's \.gitignore:2 \(\.genesis\/\) ignores ledger\/\.genesis\/, so evidence the gcpatch commands wrote stays on disk and never reaches a commit; run `gcpatch init`/,
    );
    // The control: the unexplained warnings are still there; the hint only says why.
    expect(v.findings.some((f) => f.code === 'audit/unexplained-change')).toBe(true);
  });

  it('--undo removes what init added and keeps what was there before', () => {
    const { dir, git } = repo();
    expect(run(dir, ['driver', 'install']).status).toBe(0);
    git('add', '.');
    git('commit', '-qm', 'drivers');
    expect(run(dir, ['init', '--action', `o/gcpatch@${SHA}`]).status).toBe(0);
    const undo = run(dir, ['init', '--undo']);
    expect(undo.status).toBe(0);
    expect(undo.stdout).toBe(
      "removed   gitignore (.gitignore): gcpatch's block removed\n" +
        'removed   workflow (.github/workflows/gcpatch.yml): deleted (init wrote it)\n' +
        'unchanged drivers: were installed before init: kept\n' +
        "removed   record (.git/gcpatch/init.json): init's record\n" +
        'init undone\n',
    );
    expect(readFileSync(join(dir, '.gitignore'), 'utf8')).toBe('node_modules/\n.genesis/\n');
    expect(git('status', '--porcelain')).toBe('');
    expect(git('config', '--get', 'merge.gcpatch.name')).not.toBe('');
  });

  it('outside a repository: exit 10 with a JSON error', () => {
    const r = run(tempDir(), ['init', '--json']);
    expect(r.status).toBe(10);
    expect(JSON.parse(r.stdout).error.code).toBe('git/not-a-repository');
  });
});
