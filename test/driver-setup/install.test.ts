// `gcpatch driver install | uninstall | doctor` against real git repositories.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ATTRIBUTE_LINES,
  defaultDriverPath,
  doctorDriver,
  driverCommand,
  driverDirExpression,
  entryFromCommand,
  installDriver,
  parseGitVersion,
  shQuote,
  uninstallDriver,
} from '../../driver/install.js';
import { main } from '../../src/cli/main.js';
import { DRIVER, git, initRepo, tmp } from '../driver/helpers.js';

let home: string;
const saved = { HOME: process.env.HOME, XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME, GIT_CONFIG_NOSYSTEM: process.env.GIT_CONFIG_NOSYSTEM };

beforeEach(() => {
  // An empty home so that global config and attributes of the machine do not leak in.
  home = tmp('gcpatch-home-');
  process.env.HOME = home;
  process.env.XDG_CONFIG_HOME = join(home, '.config');
  process.env.GIT_CONFIG_NOSYSTEM = '1';
});
afterEach(() => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

describe('driver install', () => {
  it('quotes for sh and builds the exact driver command lines', () => {
    expect(shQuote("/a b/it's")).toBe(`'/a b/it'\\''s'`);
    const gc = driverCommand(shQuote('/x/100%/d'), 'gc');
    expect(gc.startsWith('d=\'/x/100%%/d\'; p=%P o=%X b=%S t=%Y; case "$o" in %%X) o=ours b=base t=theirs;; esac; ')).toBe(true);
    expect(gc).toContain('node "$d/launch.cjs" --wrapped %O %A %B %L "$p" "$b" "$o" "$t"; ');
    expect(gc).toContain('unset NODE_EXTRA_CA_CERTS; z= g=; v=');
    expect(driverCommand(shQuote('/x/100%/d'), 'gc', false)).toContain('unset NODE_EXTRA_CA_CERTS; if [ -r "$d/launch.cjs" ]');
    expect(gc).toContain('git merge-file --marker-size=%L -L "$o" -L "$b" -L "$t" %A %O %B; ');
    expect(driverCommand(shQuote('/x'), 'manifest')).toContain('node "$d/launch.cjs" --wrapped --manifest %O %A %B %L ');
    expect(entryFromCommand(gc)).toBeUndefined();
    expect(entryFromCommand("node '/a b/it'\\''s/index.js' %O %A %B")).toBe("/a b/it's/index.js");
    expect(defaultDriverPath()).toBe(DRIVER);
    expect(parseGitVersion('git version 2.39.5')).toEqual([2, 39, 5]);
    expect(parseGitVersion('git version 2.44.0.windows.1')).toEqual([2, 44, 0]);
  });

  it('writes config and .gitattributes, idempotently', () => {
    const repo = initRepo();
    const r = installDriver({ cwd: repo });
    expect(r.attributesFile).toBe(join(repo, '.gitattributes'));
    expect(r.attributesAdded).toEqual([...ATTRIBUTE_LINES]);
    const dir = driverDirExpression('local', r.installedTo);
    expect(dir).toBe(
      '"$([ -z "$GIT_DIR$GIT_COMMON_DIR" ] && [ -r .git/gcpatch/driver/launch.cjs ] && echo .git || git rev-parse --git-common-dir)/gcpatch/driver"',
    );
    expect(r.installedTo).toBe(join(repo, '.git/gcpatch/driver'));
    expect(readFileSync(join(r.installedTo, 'index.js'))).toEqual(readFileSync(DRIVER));
    expect(r.check.level).toBe('ok');
    expect(git(repo, ['config', '--get', 'merge.gcpatch.driver']).stdout.trim()).toBe(driverCommand(dir, 'gc'));
    expect(git(repo, ['config', '--get', 'merge.gcpatch-manifest.driver']).stdout.trim()).toBe(driverCommand(dir, 'manifest'));
    expect(git(repo, ['check-attr', 'merge', '--', 'src/x.gc']).stdout.trim()).toBe('src/x.gc: merge: gcpatch');
    expect(git(repo, ['check-attr', 'merge', '--', 'package.toml']).stdout.trim()).toBe('package.toml: merge: gcpatch-manifest');
    writeFileSync(join(repo, '.gitattributes'), '*.png binary\n' + readFileSync(join(repo, '.gitattributes'), 'utf8'));
    expect(installDriver({ cwd: repo }).attributesAdded).toEqual([]);
    expect(readFileSync(join(repo, '.gitattributes'), 'utf8')).toBe(`*.png binary\n${ATTRIBUTE_LINES.join('\n')}\n`);
  });

  it('--no-commit-attributes writes .git/info/attributes; uninstall removes everything it added', () => {
    const repo = initRepo();
    const r = installDriver({ cwd: repo, commitAttributes: false });
    expect(r.attributesFile).toBe(join(repo, '.git/info/attributes'));
    expect(existsSync(join(repo, '.gitattributes'))).toBe(false);
    expect(git(repo, ['check-attr', 'merge', '--', 'x.gc']).stdout.trim()).toBe('x.gc: merge: gcpatch');
    const u = uninstallDriver({ cwd: repo });
    expect(u.removedSections).toEqual(['merge.gcpatch', 'merge.gcpatch-manifest']);
    expect(git(repo, ['config', '--get', 'merge.gcpatch.driver']).status).toBe(1);
    expect(git(repo, ['check-attr', 'merge', '--', 'x.gc']).stdout.trim()).toBe('x.gc: merge: unspecified');
  });

  it('--global writes the user config and the global attributes file', () => {
    const r = installDriver({ global: true, cwd: home });
    expect(r.attributesFile).toBe(join(home, '.config/git/attributes'));
    expect(readFileSync(join(home, '.gitconfig'), 'utf8')).toContain('[merge "gcpatch"]');
    expect(r.installedTo).toBe(join(home, '.local/share/gcpatch/driver'));
    const repo = initRepo();
    expect(git(repo, ['check-attr', 'merge', '--', 'x.gc']).stdout.trim()).toBe('x.gc: merge: gcpatch');
    expect(doctorDriver({ cwd: repo }).healthy).toBe(true);
    uninstallDriver({ global: true, cwd: home });
    expect(readFileSync(join(home, '.config/git/attributes'), 'utf8')).toBe('');
  });

  it('refuses to install a driver bundle that does not exist', () => {
    const repo = initRepo();
    expect(() => installDriver({ cwd: repo, driverPath: join(repo, 'nope.js') })).toThrow(/npm run build:driver/);
  });
});

describe('driver doctor', () => {
  it('is healthy after install (warnings allowed)', () => {
    const repo = initRepo();
    installDriver({ cwd: repo });
    const r = doctorDriver({ cwd: repo });
    expect(r.checks.filter((c) => c.level === 'error')).toEqual([]);
    expect(r.healthy).toBe(true);
    expect(r.checks.find((c) => c.name === 'runs:gcpatch')?.level).toBe('ok');
    expect(r.checks.find((c) => c.name === 'runs:gcpatch-manifest')?.level).toBe('ok');
    const v = parseGitVersion(`git version ${r.gitVersion}`)!;
    const old = v[0]! < 2 || (v[0] === 2 && v[1]! < 44);
    expect(r.checks.find((c) => c.name === 'git-version')?.level).toBe(old ? 'warn' : 'ok');
  });

  it('reports a missing driver binary, missing config and attributes, with fixes', () => {
    const repo = initRepo();
    git(repo, ['config', 'merge.gcpatch.driver', `node '${join(repo, 'gone/index.js')}' %O %A %B %L %P %S %X %Y`]);
    const r = doctorDriver({ cwd: repo });
    expect(r.healthy).toBe(false);
    const entry = r.checks.find((c) => c.name === 'line:gcpatch')!;
    expect(entry.level).toBe('error');
    expect(entry.message).toMatch(/does not exist.*WITHOUT conflict markers/);
    expect(r.checks.find((c) => c.name === 'runs:gcpatch')?.level).toBe('error');
    expect(r.checks.find((c) => c.name === 'config:gcpatch-manifest')?.level).toBe('error');
    expect(r.checks.find((c) => c.name === 'attributes:x.gc')?.fix).toMatch(/gcpatch driver install/);
  });

  it('through the CLI: exit 0 healthy, 50 with problems, --json', async () => {
    const repo = initRepo();
    const cwd = process.cwd();
    process.chdir(repo);
    try {
      let out = '';
      const io = { stdout: (s: string) => void (out += s), stderr: () => undefined };
      expect(await main(['node', 'gcpatch', 'driver', 'doctor'], io)).toBe(50);
      expect(out).toMatch(/fix: gcpatch driver install/);
      out = '';
      expect(await main(['node', 'gcpatch', 'driver', 'install', '--json'], io)).toBe(0);
      expect(JSON.parse(out)).toMatchObject({ ok: true, scope: 'local', attributesAdded: [...ATTRIBUTE_LINES] });
      out = '';
      expect(await main(['node', 'gcpatch', 'driver', 'doctor', '--json'], io)).toBe(0);
      expect(JSON.parse(out)).toMatchObject({ ok: true, healthy: true });
      out = '';
      expect(await main(['node', 'gcpatch', 'driver', 'uninstall'], io)).toBe(0);
      expect(out).toMatch(/removed \[merge "gcpatch"\]/);
    } finally {
      process.chdir(cwd);
    }
  });
});
