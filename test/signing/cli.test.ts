// The signing commands in-process (test/helpers/run-cli.ts): keygen, sign, verify-signatures and
// transparency verify on a small package whose acceptance `gcpatch accept` records; the files
// and terms they write, their exit codes and their --json errors.
import { chmodSync, mkdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cli.js';
import { runCli } from '../helpers/run-cli.js';
import { EvidenceStore } from '../../src/store/store.js';
import { parseSignatureTerm, parseTransparencyEntry, readKeyFile, walkChain, storeReader } from '../../src/signing/index.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A one-module package with obligations = [], packed and accepted; returns its directory and keys directory. */
async function acceptedPackage(): Promise<{ pkg: string; keys: string }> {
  const root = tempDir('gcpatch-sign-');
  dirs.push(root);
  const pkg = join(root, 'pkg');
  mkdirSync(join(pkg, 'app'), { recursive: true });
  writeFileSync(join(pkg, 'app/main.gc'), '(def app/main::answer 42)\n');
  writeFileSync(
    join(pkg, 'package.toml'),
    'dependencies = []\nname = "demo"\nobligations = []\nschema = 1\ntests = []\nversion = "1.0.0"\n\n[[modules]]\nhash = ""\npath = "app/main.gc"\n',
  );
  const accept = await runCli(['accept', '--pkg', pkg]);
  expect(accept.stderr).toBe('');
  expect(accept.status).toBe(0);
  return { pkg, keys: join(root, 'keys') };
}

const lastAcceptance = (pkg: string): string => readFileSync(join(pkg, '.genesis/last_acceptance'), 'utf8').trim();

describe('gcpatch keygen / sign / verify-signatures / transparency verify', () => {
  it('signs twice with two keys; the set, the chain and a two-signature policy verify', async () => {
    const { pkg, keys } = await acceptedPackage();
    const k1 = await runCli(['keygen', '--out', join(keys, 'alice.toml'), '--json']);
    expect(k1.status).toBe(0);
    const alice = JSON.parse(k1.stdout).data.pk_b64 as string;
    expect(statSync(join(keys, 'alice.toml')).mode & 0o777).toBe(0o600);
    const k2 = await runCli(['keygen', '--out', join(keys, 'bob.toml')]);
    expect(k2.stdout).toBe(`${join(keys, 'bob.toml')}\n`);
    const bob = readKeyFile(join(keys, 'bob.toml')).publicKeyB64;

    const s1 = await runCli(['sign', '--pkg', pkg, '--key', join(keys, 'alice.toml'), '--json']);
    expect(s1.stderr).toBe('');
    const d1 = JSON.parse(s1.stdout).data;
    expect(d1.acceptance_artifact).toBe(lastAcceptance(pkg));
    expect(d1.pk_b64).toBe(alice);
    expect(readFileSync(join(pkg, '.genesis/last_signature'), 'utf8')).toBe(`${d1.signature_artifact}\n`);
    expect(readFileSync(join(pkg, '.genesis/transparency_head'), 'utf8')).toBe(`${d1.transparency_entry}\n`);
    expect(readFileSync(join(pkg, '.genesis/signatures.gc'), 'utf8')).toBe(`["${d1.signature_artifact}"]`);

    const s2 = await runCli(['sign', '--pkg', pkg, '--key', join(keys, 'bob.toml')]);
    expect(s2.status).toBe(0);
    const sig2 = s2.stdout.trim();
    const [lo, hi] = [d1.signature_artifact as string, sig2].sort();
    expect(readFileSync(join(pkg, '.genesis/signatures.gc'), 'utf8')).toBe(`[\n  "${lo}"\n  "${hi}"]`);
    // Signing the same acceptance with the same key again stores nothing new in the set, but logs it again.
    const again = await runCli(['sign', '--pkg', pkg, '--key', join(keys, 'bob.toml')]);
    expect(again.stdout.trim()).toBe(sig2);
    expect(readFileSync(join(pkg, '.genesis/signatures.gc'), 'utf8')).toBe(`[\n  "${lo}"\n  "${hi}"]`);

    const store = EvidenceStore.forPackage(pkg);
    const chain = walkChain(storeReader(store), readFileSync(join(pkg, '.genesis/transparency_head'), 'utf8').trim());
    expect(chain.entries.map((e) => e.signatureArtifact)).toEqual([sig2, sig2, d1.signature_artifact]);
    expect(chain.entries[2]!.prev).toBeUndefined();
    expect(parseTransparencyEntry(store.getTerm(d1.transparency_entry)).ok).toBe(true);
    expect(parseSignatureTerm(store.getTerm(sig2)).ok).toBe(true);

    const tv = await runCli(['transparency', 'verify', '--pkg', pkg, '--json']);
    expect(tv.status).toBe(0);
    expect(JSON.parse(tv.stdout)).toMatchObject({ ok: true, entries: 3 });

    const policy = join(keys, 'policy.toml');
    writeFileSync(policy, `version = 1\nmin_signatures = 2\nallowed_public_keys = ["${alice}", "${bob}"]\n`);
    const ok = await runCli(['verify-signatures', '--pkg', pkg, '--policy', policy]);
    expect(ok.stderr).toBe('');
    expect(ok.stdout).toContain(`ok: 2 valid signatures by allowed keys over acceptance ${lastAcceptance(pkg)}; the policy requires 2\n`);
    expect(ok.status).toBe(0);

    // Control: one allowed key only → 1 valid, bob's is by an unknown key: exit 50.
    writeFileSync(policy, `version = 1\nmin_signatures = 2\nallowed_public_keys = ["${alice}"]\n`);
    const short = await runCli(['verify-signatures', '--pkg', pkg, '--policy', policy, '--json']);
    expect(short.status).toBe(50);
    const j = JSON.parse(short.stdout);
    expect(j).toMatchObject({ ok: false, required: 2, valid: 1, signers: [alice] });
    expect(j.checks.map((c: { status: string }) => c.status).sort()).toEqual(['unknown-key', 'valid']);
  });

  it('keygen never overwrites; sign refuses a loose, symlinked or mismatched key and malformed state before writing', async () => {
    const { pkg, keys } = await acceptedPackage();
    const key = join(keys, 'k.toml');
    expect((await runCli(['keygen', '--out', key])).status).toBe(0);
    const before = readFileSync(key, 'utf8');
    const again = await runCli(['keygen', '--out', key, '--json']);
    expect(again.status).toBe(10);
    expect(JSON.parse(again.stdout).error.code).toBe('signing/key-exists');
    expect(readFileSync(key, 'utf8')).toBe(before);

    chmodSync(key, 0o644);
    const loose = await runCli(['sign', '--pkg', pkg, '--key', key]);
    expect(loose.status).toBe(10);
    expect(loose.stderr).toContain('signing/key');
    expect(loose.stderr).toContain('must deny group and other access');
    chmodSync(key, 0o600);
    symlinkSync(key, join(keys, 'link.toml'));
    expect((await runCli(['sign', '--pkg', pkg, '--key', join(keys, 'link.toml')])).stderr).toContain('not a symlink');

    writeFileSync(join(pkg, '.genesis/transparency_head'), 'not a hash\n');
    const badHead = await runCli(['sign', '--pkg', pkg, '--key', key, '--json']);
    expect(badHead.status).toBe(10);
    expect(JSON.parse(badHead.stdout).error.code).toBe('signing/transparency-head');
    const tv = await runCli(['transparency', 'verify', '--pkg', pkg]);
    expect(tv.status).toBe(10);
    rmSync(join(pkg, '.genesis/transparency_head'));
    writeFileSync(join(pkg, '.genesis/signatures.gc'), '{}');
    const badSet = await runCli(['sign', '--pkg', pkg, '--key', key, '--json']);
    expect(badSet.status).toBe(10);
    expect(JSON.parse(badSet.stdout).error.code).toBe('signing/signature-set');
    // Nothing was written: no last_signature, no head.
    expect(() => statSync(join(pkg, '.genesis/last_signature'))).toThrow();
    expect(() => statSync(join(pkg, '.genesis/transparency_head'))).toThrow();
    const badAcc = await runCli(['sign', '--pkg', pkg, '--key', key, '--acceptance', 'ABC']);
    expect(badAcc.status).toBe(10);
    expect(badAcc.stderr).toContain('signing/acceptance');
  });

  it('transparency verify fails closed on a truncated chain (exit 50), and an absent head is an empty log', async () => {
    const { pkg, keys } = await acceptedPackage();
    const empty = await runCli(['transparency', 'verify', '--pkg', pkg]);
    expect(empty.stdout).toBe('ok: 0 transparency entries (no head: an empty log)\n');
    const key = join(keys, 'k.toml');
    await runCli(['keygen', '--out', key]);
    const first = JSON.parse((await runCli(['sign', '--pkg', pkg, '--key', key, '--json'])).stdout).data;
    await runCli(['sign', '--pkg', pkg, '--key', key]);
    rmSync(join(pkg, '.genesis/store', first.transparency_entry), { force: true });
    const broken = await runCli(['transparency', 'verify', '--pkg', pkg, '--json']);
    expect(broken.status).toBe(50);
    expect(JSON.parse(broken.stdout).error.code).toBe('transparency/entry-missing');
  });
});

describe('log and blame show a signed acceptance beside the commit that logged it', () => {
  it('a commit that applies, signs and commits shows its signer in log and blame; a later unsigned commit shows none', async () => {
    const { pkg } = await acceptedPackage();
    const repo = dirname(pkg);
    const keys = tempDir('gcpatch-keys-'); // never inside the repository
    dirs.push(keys);
    const { git } = await import('../helpers/git.js');
    git(repo, 'init', '-q', '-b', 'main');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'the package, accepted');
    const key = join(keys, 'alice.toml');
    const alice = JSON.parse((await runCli(['keygen', '--out', key, '--json'])).stdout).data.pk_b64 as string;
    const patchFile = join(keys, 'p.gcpatch');
    writeFileSync(
      patchFile,
      '{:version 1 :intent "the answer" :provenance {} :ops [{:op :replace-node :module-path "app/main.gc" :path [[:form 0] [:pair-cdr] [:pair-cdr] [:pair-car]] :new 43}]}\n',
    );
    expect((await runCli(['apply', '--pkg', pkg, '--patch', patchFile])).status).toBe(0);
    const signed = JSON.parse((await runCli(['sign', '--pkg', pkg, '--key', key, '--json'])).stdout).data;
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'the answer is 43, signed');
    const signedCommit = git(repo, 'rev-parse', 'HEAD');
    writeFileSync(join(repo, 'README.md'), 'x\n');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'outside the package');

    const log = await runCli(['log', '--pkg', pkg, '--json'], { cwd: repo });
    expect(log.status, log.stderr).toBe(0);
    const commits = JSON.parse(log.stdout).commits as { commit: string; signed: unknown[] }[];
    const entry = commits.find((c) => c.commit === signedCommit)!;
    expect(entry.signed).toEqual([
      {
        entry: signed.transparency_entry,
        acceptance: signed.acceptance_artifact,
        signature: signed.signature_artifact,
        packageArtifact: signed.package_artifact,
        signer: alice,
        verified: true,
      },
    ]);
    expect(commits.filter((c) => c.commit !== signedCommit).every((c) => c.signed.length === 0)).toBe(true);
    const text = await runCli(['log', '--pkg', pkg], { cwd: repo });
    expect(text.stdout).toContain(
      `    signed: acceptance ${signed.acceptance_artifact.slice(0, 12)} by ${alice} (transparency entry ${signed.transparency_entry.slice(0, 12)}, package record ${signed.package_artifact.slice(0, 12)})\n`,
    );

    const blame = await runCli(['blame', join(pkg, 'app/main.gc'), '--json'], { cwd: repo });
    expect(blame.status, blame.stderr).toBe(0);
    const form = JSON.parse(blame.stdout).forms[0];
    expect(form.commit).toBe(signedCommit);
    expect(form.signed).toHaveLength(1);
    expect(form.signed[0].signer).toBe(alice);
  });
});

describe('gcpatch audit reports the signers and checks the chain', () => {
  it('names each signer of the last acceptance; a damaged chain or signature set is a finding (exit 50)', async () => {
    const { pkg, keys } = await acceptedPackage();
    const k1 = join(keys, 'a.toml');
    const k2 = join(keys, 'b.toml');
    const a = JSON.parse((await runCli(['keygen', '--out', k1, '--json'])).stdout).data.pk_b64 as string;
    const b = JSON.parse((await runCli(['keygen', '--out', k2, '--json'])).stdout).data.pk_b64 as string;
    const s1 = JSON.parse((await runCli(['sign', '--pkg', pkg, '--key', k1, '--json'])).stdout).data;
    await runCli(['sign', '--pkg', pkg, '--key', k2]);
    const audit = await runCli(['audit', '--pkg', pkg, '--json']);
    expect(audit.status, audit.stdout).toBe(0);
    const j = JSON.parse(audit.stdout);
    expect(j.signing).toMatchObject({ entries: 2, chainOk: true });
    expect(
      j.signing.signers.map((g: { signer: string; verified: boolean; current: boolean; listed: boolean }) => [g.signer, g.verified, g.current, g.listed]),
    ).toEqual([
      [a, true, true, true],
      [b, true, true, true],
    ]);
    const text = await runCli(['audit', '--pkg', pkg]);
    expect(text.stdout).toContain('transparency log: 2 entries, chain verified\n');
    expect(text.stdout).toContain(`signed by ${a}: signature ${s1.signature_artifact.slice(0, 12)}, entry ${s1.transparency_entry.slice(0, 12)}\n`);

    rmSync(join(pkg, '.genesis/store', s1.transparency_entry), { force: true });
    const broken = await runCli(['audit', '--pkg', pkg, '--json']);
    expect(broken.status).toBe(50);
    expect(JSON.parse(broken.stdout).findings.map((f: { code: string }) => f.code)).toContain('audit/transparency-chain');
    writeFileSync(join(pkg, '.genesis/signatures.gc'), '["x"]');
    const badSet = await runCli(['audit', '--pkg', pkg, '--json']);
    expect(JSON.parse(badSet.stdout).findings.map((f: { code: string }) => f.code)).toContain('audit/signature-set');
  });
});
