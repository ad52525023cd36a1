#!/usr/bin/env node
// `npm run demo`: the driver's main job in one run. Builds two throw-away git repositories from
// fixtures/demo/ (a package.toml and two .gc modules), makes the same two branches in each
// (adjacent definitions edited; a definition added on one side while its neighbour is edited on the
// other; both sides re-pinning package.toml), merges once with plain git and once with the gcpatch
// drivers (driver/dist/index.js, built by `npm run build:driver`), and prints both outcomes.
// Exit 0 when plain git conflicts and the driver merges cleanly with both sides' edits, else 1.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const FIXTURE = join(ROOT, 'fixtures/demo');
const DRIVER = join(ROOT, 'driver/dist/index.js');
const quote = (s) => `'${s.replace(/'/g, `'\\''`)}'`;

if (!existsSync(DRIVER)) {
  console.error(`driver bundle missing: ${DRIVER}\nrun \`npm run build:driver\` first`);
  process.exit(1);
}

const work = mkdtempSync(join(tmpdir(), 'gcpatch-demo-'));
const env = { ...process.env, HOME: work, XDG_CONFIG_HOME: join(work, '.config'), GIT_CONFIG_NOSYSTEM: '1' };

function git(cwd, ...args) {
  const r = spawnSync('git', args, { cwd, env, encoding: 'utf8' });
  return { status: r.status ?? -1, out: `${r.stdout}${r.stderr}` };
}

function must(cwd, ...args) {
  const r = git(cwd, ...args);
  if (r.status !== 0) throw new Error(`git ${args.join(' ')} failed:\n${r.out}`);
  return r.out;
}

/** A repository with the base package on main, `theirs` on branch feature and `ours` on main. */
function makeRepo(name, withDriver) {
  const repo = join(work, name);
  cpSync(join(FIXTURE, 'base'), repo, { recursive: true });
  must(repo, 'init', '-q', '-b', 'main');
  must(repo, 'config', 'user.name', 'Demo');
  must(repo, 'config', 'user.email', 'demo@example.com');
  must(repo, 'config', 'core.autocrlf', 'false');
  if (withDriver) {
    // What `gcpatch driver install` writes.
    must(repo, 'config', 'merge.gcpatch.name', 'gcpatch: GenesisCode .gc modules merged by top-level form');
    must(repo, 'config', 'merge.gcpatch.driver', `node ${quote(DRIVER)} %O %A %B %L %P %S %X %Y`);
    must(repo, 'config', 'merge.gcpatch-manifest.name', 'gcpatch: package.toml merged by key and module path');
    must(repo, 'config', 'merge.gcpatch-manifest.driver', `node ${quote(DRIVER)} --manifest %O %A %B %L %P %S %X %Y`);
    writeFileSync(join(repo, '.gitattributes'), '*.gc merge=gcpatch\npackage.toml merge=gcpatch-manifest\n');
  }
  must(repo, 'add', '-A');
  must(repo, 'commit', '-q', '-m', 'base package');
  must(repo, 'checkout', '-q', '-b', 'feature');
  cpSync(join(FIXTURE, 'theirs'), repo, { recursive: true });
  must(repo, 'commit', '-q', '-am', 'feature: farewell "See you", separator ": ", add trim, re-pin');
  must(repo, 'checkout', '-q', 'main');
  cpSync(join(FIXTURE, 'ours'), repo, { recursive: true });
  must(repo, 'commit', '-q', '-am', 'main: greeting "Hi", add exclaim and whisper, re-pin');
  return repo;
}

function merge(repo) {
  const r = git(repo, 'merge', '--no-edit', 'feature');
  const conflicted = git(repo, 'diff', '--name-only', '--diff-filter=U').out.trim().split('\n').filter(Boolean);
  return { ...r, conflicted };
}

const indent = (text) => text.replace(/^/gm, '    ');

console.log('gcpatch demo: one package, two branches, the same merge twice\n');
console.log('  main:    greet.gc: greeting "Hello" → "Hi", adds exclaim after separator;  strings.gc: adds whisper;  re-pins both');
console.log('  feature: greet.gc: farewell "Goodbye" → "See you", separator ", " → ": ";  strings.gc: adds trim;  re-pins both\n');

const plain = merge(makeRepo('plain', false));
console.log(`1. plain git merge: exit ${plain.status}, conflicts in ${plain.conflicted.join(', ') || 'nothing'}`);
console.log(indent(plain.out.trim()));

const repo = makeRepo('gcpatch', true);
const driver = merge(repo);
console.log(`\n2. git merge with the gcpatch drivers: exit ${driver.status}, conflicts in ${driver.conflicted.join(', ') || 'nothing'}`);
console.log(indent(driver.out.trim()));
const greet = readFileSync(join(repo, 'greet.gc'), 'utf8');
const strings = readFileSync(join(repo, 'strings.gc'), 'utf8');
const manifest = readFileSync(join(repo, 'package.toml'), 'utf8');
console.log('\n  merged greet.gc (definitions table):');
console.log(
  indent(
    greet
      .split('\n')
      .filter((l) => /^\(def app\/greet::\w+ "/.test(l))
      .join('\n'),
  ),
);
console.log('\n  merged strings.gc:');
console.log(indent(strings.trim()));
console.log('\n  merged package.toml:');
console.log(indent(manifest.trim()));

const ok =
  plain.status !== 0 &&
  plain.conflicted.length === 3 &&
  driver.status === 0 &&
  driver.conflicted.length === 0 &&
  greet.includes('(def app/greet::greeting "Hi")') &&
  greet.includes('(def app/greet::farewell "See you")\n(def app/greet::separator ": ")\n(def app/greet::exclaim "!")') &&
  strings.includes('(def app/strings::whisper') &&
  strings.includes('(def app/strings::trim') &&
  manifest.includes('hash = ""');
console.log(
  ok
    ? '\nResult: plain git stops with 3 conflicted files; the gcpatch drivers merge all of them cleanly, keep both\n' +
        'sides\' edits and formatting, and leave the conflicting pins empty ("") so that verification fails\n' +
        'until `gcpatch pack` re-pins the merged modules.'
    : '\nResult: UNEXPECTED outcome (see above)',
);
if (process.env.GCPATCH_DEMO_KEEP) console.log(`\nrepositories kept in ${work}`);
else rmSync(work, { recursive: true, force: true });
process.exitCode = ok ? 0 : 1;
