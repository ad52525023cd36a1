// The scored attack rows of `verify-pr --policy` (docs/security.md "Signed acceptances"): on a
// repository holding the ledger package (fixtures/refactor/ledger) whose main branch has a registry
// policy (release/policy.toml: two signatures by alice or bob) and one signed release, each
// dishonest pull request must fail with its code and each honest control must pass. Keys are
// fixed (the RFC 8032 test seeds). Every case runs through the library; some also through the
// built CLI (`gcpatch verify-pr --policy --json`, which must agree) and the bundled Action
// (`policy:` input; action/dist must be built from this tree).
import { readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditPullRequest } from '../../src/verify-pr/verify-pr.js';
import { applySigningOptions } from '../../src/verify-pr/report/signed-verdict.js';
import type { AuditReport } from '../../src/verify-pr/report/findings.js';
import { dependencyArtifactOnDisk } from '../../src/patch/apply/host.js';
import { acceptanceMessage, encodeBase64, hexBytes, publicKeyOf, signAcceptance, signatureTerm, signMessage, type KeyPair } from '../../src/signing/index.js';
import { EvidenceStore } from '../../src/store/store.js';
import { gcpatch } from '../helpers/cli.js';
import { FIXTURES as ACTION_FIXTURES, runAction } from '../action/helpers.js';
import { applyPatchText, commitAll, git, ledgerTemplate, onePatch, PKG, Scratch, storeName } from './attack-helpers.js';

const POLICY = 'release/policy.toml';

function keyOf(seedHex: string): KeyPair {
  const seed = new Uint8Array(Buffer.from(seedHex, 'hex'));
  const publicKey = publicKeyOf(seed);
  return { seed, publicKey, publicKeyB64: encodeBase64(publicKey) };
}
const alice = keyOf('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60');
const bob = keyOf('4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb');
const carol = keyOf('c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7');

const policyText = (min: number, keys: KeyPair[]): string =>
  `version = 1\nmin_signatures = ${min}\nallowed_public_keys = [${keys.map((k) => JSON.stringify(k.publicKeyB64)).join(', ')}]\n`;

const scratch = new Scratch();
let template = '';

/** `gcpatch sign` with the library, as the CLI does it. */
function sign(pkg: string, key: KeyPair, acceptance?: string): void {
  signAcceptance({
    packageDir: pkg,
    key,
    packageArtifact: dependencyArtifactOnDisk(pkg, { path: 'package.toml' }),
    ...(acceptance !== undefined ? { acceptance } : {}),
  });
}
const patch = (pkg: string, name: string) =>
  applyPatchText(
    scratch,
    pkg,
    onePatch(
      `name the product ${name}`,
      `{:op :replace-node :module-path "meta/profile.gc" :path [[:form 1] [:pair-cdr] [:pair-cdr] [:pair-car]] :new ${JSON.stringify(name)}}`,
    ),
  );

interface PullRequest {
  repo: string;
  base: string;
  head: string;
}

/** A branch off main with one commit made by `change` (in the package directory). */
function pr(change: (pkg: string, repo: string) => void): PullRequest {
  const repo = scratch.copy(template);
  const base = git(repo, 'rev-parse', 'HEAD');
  git(repo, 'checkout', '-q', '-b', 'pr');
  change(join(repo, PKG), repo);
  const head = commitAll(repo, 'the pull request');
  return { repo, base, head };
}

type Via = 'library' | 'cli' | 'action';
interface Outcome {
  report: AuditReport | undefined;
  status?: number;
  threw?: string;
}

async function library(p: PullRequest, policy = POLICY): Promise<Outcome> {
  try {
    const report = await auditPullRequest({ dir: p.repo, base: p.base, head: p.head });
    return { report: await applySigningOptions(report, { dir: p.repo, policy }) };
  } catch (error) {
    return { report: undefined, threw: String(error) };
  }
}
function cli(p: PullRequest, policy = POLICY): Outcome {
  const r = gcpatch(['verify-pr', '--base', p.base, '--head', p.head, '--policy', policy, '--json'], { cwd: p.repo });
  try {
    return { report: JSON.parse(r.stdout) as AuditReport, status: r.status };
  } catch {
    return { report: undefined, status: r.status, threw: r.stderr.slice(0, 300) };
  }
}
function action(p: PullRequest): Outcome {
  const event = join(scratch.dir('gcpatch-sign-event-'), 'event.json');
  writeFileSync(event, readFileSync(join(ACTION_FIXTURES, 'pull_request.json'), 'utf8').replace('BASE_SHA', p.base).replace('HEAD_SHA', p.head));
  const run = runAction(p.repo, { event, inputs: { policy: POLICY } });
  return { report: run.report, status: run.status === 0 ? 0 : run.status === 1 ? 50 : run.status };
}
const errors = (o: Outcome): string[] => [...new Set((o.report?.findings ?? []).filter((f) => f.severity === 'error').map((f) => f.code))].sort();
const describeOutcome = (o: Outcome): string => (o.report === undefined ? `threw ${o.threw}` : `ok=${o.report.ok} errors=[${errors(o).join(' ')}]`);

const results: { kind: string; id: string; passed: boolean; got: string }[] = [];

interface Row {
  id: string;
  what: string;
  /** Attack: the codes one of which must fail it; control: undefined (must pass). */
  codes?: string[];
  /** Codes that must also be present (warnings or notices) on the report. */
  also?: string[];
  via?: Via[];
  /** The policy path given to the check (default {@link POLICY}). */
  policy?: string;
  build: () => PullRequest;
}

const ROWS: Row[] = [
  {
    id: 'S0',
    what: 'honest: a new acceptance signed by alice and bob, logged on the base chain',
    via: ['library', 'cli', 'action'],
    build: () => pr((pkg) => (patch(pkg, 'ledger-max'), sign(pkg, alice), sign(pkg, bob))),
  },
  {
    id: 'S1',
    what: 'honest: also signed by carol, a key the policy does not list (noted, not counted)',
    also: ['signing/signature-not-counted'],
    build: () => pr((pkg) => (patch(pkg, 'ledger-max'), sign(pkg, alice), sign(pkg, carol), sign(pkg, bob))),
  },
  {
    id: 'S2',
    what: 'honest: a change outside the package needs no signature',
    via: ['library', 'cli'],
    build: () => pr((_pkg, repo) => writeFileSync(join(repo, 'README.md'), '# ledger, signed\n')),
  },
  {
    id: 'S3',
    what: 'honest: the pull request raises min_signatures (judged by the base policy; a notice)',
    also: ['signing/policy-changed'],
    build: () =>
      pr((pkg, repo) => (writeFileSync(join(repo, POLICY), policyText(3, [alice, bob])), patch(pkg, 'ledger-max'), sign(pkg, alice), sign(pkg, bob))),
  },
  {
    id: 'A1',
    what: 'a signature by an unknown key makes up the count',
    codes: ['signing/signatures-missing'],
    via: ['library', 'cli', 'action'],
    build: () => pr((pkg) => (patch(pkg, 'ledger-max'), sign(pkg, alice), sign(pkg, carol))),
  },
  {
    id: 'A2',
    what: "bob's signature is over another acceptance (another package's)",
    codes: ['signing/signatures-missing'],
    build: () =>
      pr((pkg) => {
        patch(pkg, 'ledger-max');
        sign(pkg, alice);
        sign(pkg, bob, storeName('the acceptance of another package'));
      }),
  },
  {
    id: 'A3',
    what: 'a truncated chain: the base entry is deleted from the store',
    codes: ['signing/chain-invalid'],
    build: () =>
      pr((pkg, repo) => {
        patch(pkg, 'ledger-max');
        sign(pkg, alice);
        sign(pkg, bob);
        const baseHead = git(repo, 'show', `main:${PKG}/.genesis/transparency_head`).trim();
        rmSync(join(pkg, '.genesis/store', baseHead), { force: true });
      }),
  },
  {
    id: 'A4',
    what: 'a truncated chain: the pull request removes the transparency head',
    codes: ['signing/chain-rewritten'],
    build: () => pr((pkg) => (patch(pkg, 'ledger-max'), sign(pkg, alice), sign(pkg, bob), rmSync(join(pkg, '.genesis/transparency_head')))),
  },
  {
    id: 'A5',
    what: 'a forked chain: a fresh log that does not contain the base head',
    codes: ['signing/chain-rewritten'],
    via: ['library', 'cli'],
    build: () => pr((pkg) => (rmSync(join(pkg, '.genesis/transparency_head')), patch(pkg, 'ledger-max'), sign(pkg, alice), sign(pkg, bob))),
  },
  {
    id: 'A6',
    what: 'the pull request weakens the policy to one signature and signs once',
    codes: ['signing/signatures-missing'],
    also: ['signing/policy-weakened'],
    via: ['library', 'action'],
    build: () => pr((pkg, repo) => (writeFileSync(join(repo, POLICY), policyText(1, [alice, bob])), patch(pkg, 'ledger-max'), sign(pkg, alice))),
  },
  {
    id: 'A7',
    what: 'the pull request allows its own key and signs with it',
    codes: ['signing/signatures-missing'],
    also: ['signing/policy-weakened'],
    build: () =>
      pr((pkg, repo) => (writeFileSync(join(repo, POLICY), policyText(2, [alice, bob, carol])), patch(pkg, 'ledger-max'), sign(pkg, alice), sign(pkg, carol))),
  },
  {
    id: 'A8',
    what: 'the signature set lists an entry that is not in the store',
    codes: ['signing/signature-invalid'],
    via: ['library', 'cli'],
    build: () =>
      pr((pkg) => {
        patch(pkg, 'ledger-max');
        sign(pkg, alice);
        sign(pkg, bob);
        const set = readFileSync(join(pkg, '.genesis/signatures.gc'), 'utf8');
        writeFileSync(join(pkg, '.genesis/signatures.gc'), set.replace(/^\[/, `["${'ab'.repeat(32)}"\n  `));
      }),
  },
  {
    id: 'A9',
    what: 'a new acceptance with no signature at all',
    codes: ['signing/signatures-missing'],
    build: () => pr((pkg) => void patch(pkg, 'ledger-max')),
  },
  {
    id: 'A10',
    what: 'the signature set file is malformed',
    codes: ['signing/signature-set-invalid'],
    build: () => pr((pkg) => (patch(pkg, 'ledger-max'), sign(pkg, alice), sign(pkg, bob), writeFileSync(join(pkg, '.genesis/signatures.gc'), '{}'))),
  },
  {
    id: 'A11',
    what: 'signatures copied from the log but not logged for this acceptance (head rolled back to the base entry)',
    codes: ['signing/signatures-missing'],
    build: () =>
      pr((pkg, repo) => {
        patch(pkg, 'ledger-max');
        sign(pkg, alice);
        sign(pkg, bob);
        writeFileSync(join(pkg, '.genesis/transparency_head'), git(repo, 'show', `main:${PKG}/.genesis/transparency_head`) + '\n');
      }),
  },
  {
    id: 'A12',
    what: 'a forged signature: an allowed key, the right acceptance, a signature that does not verify',
    codes: ['signing/signature-invalid'],
    build: () =>
      pr((pkg) => {
        patch(pkg, 'ledger-max');
        sign(pkg, alice);
        sign(pkg, bob);
        const acceptance = hexBytes(readFileSync(join(pkg, '.genesis/last_acceptance'), 'utf8').trim());
        const sig = signMessage(carol.seed, acceptanceMessage(acceptance)); // carol's signature under bob's key
        const forged = EvidenceStore.forPackage(pkg).putTerm(signatureTerm({ acceptance, publicKey: bob.publicKey, signature: sig }));
        const set = readFileSync(join(pkg, '.genesis/signatures.gc'), 'utf8');
        writeFileSync(join(pkg, '.genesis/signatures.gc'), set.replace(/^\[/, `["${forged}"\n  `));
      }),
  },
  {
    id: 'A13',
    what: 'a malformed transparency head at the head',
    codes: ['signing/chain-invalid'],
    build: () => pr((pkg) => (patch(pkg, 'ledger-max'), sign(pkg, alice), sign(pkg, bob), writeFileSync(join(pkg, '.genesis/transparency_head'), 'HEAD\n'))),
  },
  {
    id: 'A14',
    what: 'the policy the check names is not on the base (the pull request adds it)',
    codes: ['signing/policy-missing'],
    policy: 'release/new-policy.toml',
    via: ['library', 'cli'],
    build: () => pr((pkg, repo) => (writeFileSync(join(repo, 'release/new-policy.toml'), policyText(0, [])), patch(pkg, 'ledger-max'))),
  },
];

beforeAll(() => {
  template = ledgerTemplate(scratch);
  const pkg = join(template, PKG);
  mkdirSync(join(template, 'release'), { recursive: true });
  writeFileSync(join(template, POLICY), policyText(2, [alice, bob]));
  patch(pkg, 'ledger-pro');
  sign(pkg, alice);
  sign(pkg, bob);
  commitAll(template, 'release 1, signed by alice and bob; the registry policy');
}, 120_000);

afterAll(() => {
  const attacks = results.filter((r) => r.kind === 'attack');
  const controls = results.filter((r) => r.kind === 'control');
  const line = `signing attack suite: ${attacks.filter((r) => r.passed).length}/${attacks.length} attacks caught, ${controls.filter((r) => r.passed).length}/${controls.length} controls passed`;
  process.stdout.write(
    `${line}\n${results
      .filter((r) => !r.passed)
      .map((r) => `  FAILED ${r.id}: ${r.got}\n`)
      .join('')}`,
  );
  scratch.cleanup();
});

describe('verify-pr --policy attack rows and honest controls', () => {
  for (const row of ROWS) {
    const vias = row.via ?? ['library'];
    it(`${row.id}: ${row.what} → ${row.codes === undefined ? 'passes' : row.codes.join(' | ')}${vias.length > 1 ? ` [${vias.join(', ')}]` : ''}`, async () => {
      const p = row.build();
      for (const via of vias) {
        const o = via === 'library' ? await library(p, row.policy) : via === 'cli' ? cli(p, row.policy) : action(p);
        const codes = new Set<string>((o.report?.findings ?? []).map((f) => f.code));
        const good =
          o.report !== undefined &&
          (row.codes === undefined
            ? o.report.ok && (o.status === undefined || o.status === 0)
            : !o.report.ok && errors(o).some((c) => row.codes!.includes(c as string)) && (o.status === undefined || o.status === 50)) &&
          (row.also ?? []).every((c) => codes.has(c));
        results.push({ kind: row.codes === undefined ? 'control' : 'attack', id: `${row.id}/${via}`, passed: good, got: describeOutcome(o) });
        expect(good, `${row.id} via ${via}: ${describeOutcome(o)}; all codes: ${[...codes].join(' ')}`).toBe(true);
      }
    }, 120_000);
  }
});
