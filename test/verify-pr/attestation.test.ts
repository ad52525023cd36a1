// `verify-pr --attestation`: the verdict as an in-toto Statement v1 (docs/action.md "The verdict as
// an attestation"). The CLI runs in-process on a real repository: a one-module package whose pull
// request applies a patch; the statement's shape, its subjects' digests (the head commit; the
// package record, compared with the record the apply stored) and its predicate (the --json report).
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { blake3 } from '@noble/hashes/blake3.js';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cli.js';
import { git } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';

function repoWithPackage(): { repo: string; pkg: string } {
  const repo = join(tempDir('gcpatch-attest-'), 'repo');
  const pkg = join(repo, 'pkg');
  mkdirSync(join(pkg, 'app'), { recursive: true });
  writeFileSync(join(pkg, 'app/main.gc'), '(def app/main::answer 42)\n');
  writeFileSync(
    join(pkg, 'package.toml'),
    'dependencies = []\nname = "demo"\nobligations = []\nschema = 1\ntests = []\nversion = "1.0.0"\n\n[[modules]]\nhash = ""\npath = "app/main.gc"\n',
  );
  git(join(repo, '..'), 'init', '-q', '-b', 'main', 'repo');
  return { repo, pkg };
}

describe('verify-pr --attestation', () => {
  it('writes an in-toto Statement v1: the head commit and the verified package record as subjects, the report as predicate', async () => {
    const { repo, pkg } = repoWithPackage();
    expect((await runCli(['accept', '--pkg', pkg])).status).toBe(0);
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'base');
    const base = git(repo, 'rev-parse', 'HEAD');
    const patchFile = join(repo, '..', 'p.gcpatch');
    writeFileSync(
      patchFile,
      '{:version 1 :intent "the answer" :provenance {} :ops [{:op :replace-node :module-path "app/main.gc" :path [[:form 0] [:pair-cdr] [:pair-cdr] [:pair-car]] :new 43}]}\n',
    );
    const applied = await runCli(['apply', '--pkg', pkg, '--patch', patchFile, '--json']);
    expect(applied.status, applied.stderr).toBe(0);
    const record = JSON.parse(applied.stdout).data.package_artifact as string;
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'the answer is 43');
    const head = git(repo, 'rev-parse', 'HEAD');

    const out = join(repo, '..', 'statement.json');
    const r = await runCli(['verify-pr', '--base', base, '--head', head, '--attestation', out, '--json'], { cwd: repo });
    expect(r.status, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout);
    const statement = JSON.parse(readFileSync(out, 'utf8'));
    expect(Object.keys(statement)).toEqual(['_type', 'subject', 'predicateType', 'predicate']);
    expect(statement._type).toBe('https://in-toto.io/Statement/v1');
    expect(statement.predicateType).toBe('https://gcpatch.dev/attestation/pr-audit/v1');
    const recordBytes = readFileSync(join(pkg, '.genesis/store', record));
    expect(Buffer.from(blake3(recordBytes)).toString('hex')).toBe(record);
    expect(statement.subject).toEqual([
      { name: `git:${head}`, digest: { gitCommit: head } },
      { name: 'pkg/package.toml', digest: { sha256: createHash('sha256').update(recordBytes).digest('hex'), blake3: record } },
    ]);
    expect(statement.predicate).toEqual(report);
    expect(statement.predicate.kind).toBe('gcpatch/pr-audit-v1');
    expect(statement.predicate.ok).toBe(true);

    // A failing verdict is attested too, without the failing package as a subject.
    writeFileSync(join(pkg, 'app/main.gc'), '(def app/main::answer 44)\n');
    git(repo, 'commit', '-q', '-am', 'a hand edit no evidence explains');
    const bad = git(repo, 'rev-parse', 'HEAD');
    const failed = await runCli(['verify-pr', '--base', base, '--head', bad, '--attestation', out, '--fail-on', 'warning'], { cwd: repo });
    expect(failed.status).toBe(50);
    const s2 = JSON.parse(readFileSync(out, 'utf8'));
    expect(s2.predicate.ok).toBe(false);
    expect(s2.subject).toEqual([{ name: `git:${bad}`, digest: { gitCommit: bad } }]);
  });
});
