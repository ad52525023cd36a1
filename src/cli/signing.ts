/**
 * The signing commands (docs/reference/signing.md; GenesisCode `docs/spec/SIGNING.md`,
 * `TRANSPARENCY_LOG.md`, `REGISTRY_POLICY.md`): `keygen`, `sign`, `verify-signatures` and
 * `transparency verify`. Thin: parse options, call `src/signing/`, render. Exit codes: 0 ok,
 * 10 bad input (a key, policy, signature set or head that does not read), 50 verification failed,
 * 70 I/O error; with `--json`, errors are `{"ok":false,"error":…}` on standard output too.
 */
import type { Command } from 'commander';
import { readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { EvidenceStore } from '../store/store.js';
import { dependencyArtifactOnDisk } from '../patch/apply/host.js';
import {
  acceptanceToSign,
  checkSignatures,
  parsePolicy,
  readKeyFile,
  readSignatureSet,
  readTransparencyHead,
  signAcceptance,
  SigningCode,
  signingError,
  SIGNING_FILES,
  storeReader,
  walkChain,
  writeKeyFile,
} from '../signing/index.js';
import { ExitCode, GcError, isGcError } from '../util/errors.js';
import type { AuditReport } from '../verify-pr/report/findings.js';
import type { SigningSection } from '../verify-pr/checks/signature-policy.js';
import { discoverManifest } from '../workspace/discover.js';
import { PKG_OPTION, printJson, reportError, type CliContext } from './context.js';
import { exitHelp } from './exit-help.js';

/** Runs `body`; a GcError becomes the command's error output (JSON too with `--json`) and exit code. */
function guarded(ctx: CliContext, json: boolean | undefined, kind: string, body: () => void): void {
  try {
    body();
  } catch (error) {
    if (!isGcError(error)) throw error;
    if (json) printJson(ctx, { ok: false, kind, error: error.toJSON() });
    ctx.stderr(`${error.format()}\n`);
    ctx.exitCode = error.exitCode;
  }
}

/** Reads a policy file from disk. @throws GcError `signing/policy`. */
export function readPolicyFile(path: string): ReturnType<typeof parsePolicy> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw signingError(SigningCode.policy, `cannot read the policy ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`, path);
  }
  return parsePolicy(text, path);
}

/** Registers `keygen`, `sign`, `verify-signatures` and `transparency verify` on `program`. */
export function registerSigningCommands(program: Command, ctx: CliContext): void {
  registerKeygen(program, ctx);
  registerSign(program, ctx);
  registerVerifySignatures(program, ctx);
  registerTransparency(program, ctx);
}

/** `gcpatch keygen`. */
function registerKeygen(program: Command, ctx: CliContext): void {
  program
    .command('keygen')
    .summary('create an Ed25519 signing key file (alg, sk_b64, pk_b64)')
    .description(
      'Create a new Ed25519 key file in the format of `genesis keygen`. The file is created exclusively with mode 0600\n' +
        '(never over an existing path, even a symlink); keep it out of the repository. Prints the path; --json adds\n' +
        'the public key (pk_b64) to put in a registry policy. ' +
        exitHelp([
          ['ok', 'created'],
          ['invalidInput', 'when the path exists'],
          ['io', 'on I/O errors'],
        ]) +
        '.',
    )
    .requiredOption('--out <file>', 'the key file to create')
    .option('--json', 'machine-readable output (genesis/keygen-v0.2)')
    .action((opts: { out: string; json?: boolean }) => {
      guarded(ctx, opts.json, 'genesis/keygen-v0.2', () => {
        const k = writeKeyFile(opts.out);
        if (opts.json) printJson(ctx, { ok: true, kind: 'genesis/keygen-v0.2', data: { out: opts.out, alg: 'ed25519', pk_b64: k.publicKeyB64 }, error: null });
        else ctx.stdout(`${opts.out}\n`);
      });
    });
}

/** `gcpatch sign`. */
function registerSign(program: Command, ctx: CliContext): void {
  program
    .command('sign')
    .summary("sign the package's acceptance: signature artifact, signature set, transparency entry")
    .description(
      'Sign the last acceptance (or --acceptance <hex>) with an Ed25519 key file, as `genesis sign` does: store the\n' +
        'genesis/acceptance-signature-v0.2 term, write .genesis/last_signature, add it to the signature set\n' +
        '(.genesis/signatures.gc, sorted and deduplicated) and append a genesis/transparency-entry-v0.2 to the chain at\n' +
        '.genesis/transparency_head. A malformed signature set or head fails before anything is written.\n' +
        'The key file must be a regular file (not a symlink) with no group or other permissions.\n' +
        'Prints the signature artifact. ' +
        exitHelp([
          ['ok', 'signed'],
          ['invalidInput', 'bad input'],
          ['io', 'I/O error'],
        ]) +
        '.',
    )
    .requiredOption('--key <file>', 'the key file (gcpatch keygen)')
    .option('--acceptance <hex>', 'the acceptance artifact to sign (default: .genesis/last_acceptance)')
    .option('--signatures <file>', 'the signature set file (default: <pkg>/.genesis/signatures.gc)')
    .option('--pkg <path>', PKG_OPTION)
    .option('--json', 'machine-readable output (genesis/sign-v0.2)')
    .action((opts: { key: string; acceptance?: string; signatures?: string; pkg?: string; json?: boolean }) => {
      guarded(ctx, opts.json, 'genesis/sign-v0.2', () => {
        const manifestFile = discoverManifest(opts.pkg);
        const packageDir = dirname(manifestFile);
        const key = readKeyFile(opts.key);
        const packageArtifact = dependencyArtifactOnDisk(packageDir, { path: basename(manifestFile) });
        const r = signAcceptance({
          packageDir,
          key,
          packageArtifact,
          ...(opts.acceptance !== undefined ? { acceptance: opts.acceptance } : {}),
          ...(opts.signatures !== undefined ? { signaturesFile: resolve(opts.signatures) } : {}),
        });
        if (opts.json) {
          const data = {
            pkg: opts.pkg ?? packageDir,
            key: opts.key,
            package_artifact: r.packageArtifact,
            acceptance_artifact: r.acceptanceArtifact,
            signature_artifact: r.signatureArtifact,
            sigset: opts.signatures ?? join(packageDir, SIGNING_FILES.signatureSet),
            transparency_entry: r.transparencyEntry,
            pk_b64: r.publicKeyB64,
          };
          printJson(ctx, { ok: true, kind: 'genesis/sign-v0.2', data, error: null });
        } else ctx.stdout(`${r.signatureArtifact}\n`);
      });
    });
}

/** `gcpatch verify-signatures`. */
function registerVerifySignatures(program: Command, ctx: CliContext): void {
  program
    .command('verify-signatures')
    .summary('check the acceptance carries the signatures a registry policy requires')
    .description(
      'Check the signatures of the last acceptance (or --acceptance) under a registry policy (version, min_signatures,\n' +
        'allowed_public_keys), as `genesis verify --policy` does for signatures: every address in the signature set must\n' +
        'be a signature artifact in the store; those over this acceptance by allowed keys that verify are counted (each\n' +
        'signer once). A missing, corrupt or malformed listed artifact, or a signature that does not verify, fails.\n' +
        'Module pins and the acceptance itself: gcpatch audit. ' +
        exitHelp([
          ['ok', 'ok'],
          ['verificationFailed', 'failed'],
          ['invalidInput', 'bad policy or signature set'],
        ]) +
        '.',
    )
    .requiredOption('--policy <file>', 'the registry policy (TOML)')
    .option('--acceptance <hex>', 'the acceptance artifact (default: .genesis/last_acceptance)')
    .option('--signatures <file>', 'the signature set file (default: <pkg>/.genesis/signatures.gc)')
    .option('--pkg <path>', PKG_OPTION)
    .option('--json', 'machine-readable output (gcpatch/verify-signatures-v1)')
    .action((opts: { policy: string; acceptance?: string; signatures?: string; pkg?: string; json?: boolean }) => {
      guarded(ctx, opts.json, 'gcpatch/verify-signatures-v1', () => {
        const packageDir = dirname(discoverManifest(opts.pkg));
        const policy = readPolicyFile(opts.policy);
        const store = EvidenceStore.forPackage(packageDir);
        if (policy.minSignatures === 0) {
          const out = { ok: true, kind: 'gcpatch/verify-signatures-v1', required: 0, valid: 0, signers: [], checks: [] };
          if (opts.json) printJson(ctx, out);
          else ctx.stdout('ok: the policy requires no signature\n');
          return;
        }
        const acceptance = acceptanceToSign(packageDir, opts.acceptance);
        const set = readSignatureSet(opts.signatures ?? join(packageDir, SIGNING_FILES.signatureSet));
        const v = checkSignatures(storeReader(store), acceptance, set, policy);
        if (!v.ok) ctx.exitCode = ExitCode.verificationFailed;
        if (opts.json) {
          printJson(ctx, {
            ok: v.ok,
            kind: 'gcpatch/verify-signatures-v1',
            acceptance,
            required: v.required,
            valid: v.valid,
            signers: v.signers,
            checks: v.checks,
          });
          return;
        }
        for (const c of v.checks) (c.status === 'valid' ? ctx.stdout : ctx.stderr)(`${c.status}: ${c.message}\n`);
        const line = `${v.valid} valid signature${v.valid === 1 ? '' : 's'} by allowed keys over acceptance ${acceptance}; the policy requires ${v.required}`;
        if (v.ok) ctx.stdout(`ok: ${line}\n`);
        else {
          const e = signingError(
            SigningCode.verifyFailed,
            v.valid < v.required ? line : `${line}, but a listed signature fails (see above)`,
            opts.policy,
            ExitCode.verificationFailed,
          );
          ctx.stderr(`${e.format()}\n`);
        }
      });
    });
}

/** `gcpatch transparency verify`. */
function registerTransparency(program: Command, ctx: CliContext): void {
  const transparency = program
    .command('transparency')
    .summary('the local transparency log of signed acceptances')
    .description('The transparency log: a hash chain of genesis/transparency-entry-v0.2 entries in the store, head at .genesis/transparency_head.');
  transparency
    .command('verify')
    .description(
      'Walk the chain from .genesis/transparency_head back along :prev-h: every entry must be in the store, hash to its\n' +
        'name and be a well-formed entry; a cycle, a missing (truncated) entry or more than 16,384 entries fails. An\n' +
        'absent head is an empty log; a malformed head fails (exit ' +
        String(ExitCode.invalidInput) +
        '). Prints the number of entries. ' +
        exitHelp([
          ['ok', 'the chain holds'],
          ['verificationFailed', 'it does not'],
        ]) +
        '.',
    )
    .option('--pkg <path>', PKG_OPTION)
    .option('--json', 'machine-readable output (gcpatch/transparency-verify-v1)')
    .action((opts: { pkg?: string; json?: boolean }) => {
      guarded(ctx, opts.json, 'gcpatch/transparency-verify-v1', () => {
        const packageDir = dirname(discoverManifest(opts.pkg));
        const head = readTransparencyHead(packageDir);
        const r = walkChain(storeReader(EvidenceStore.forPackage(packageDir)), head);
        if (!r.ok) ctx.exitCode = ExitCode.verificationFailed;
        if (opts.json) {
          printJson(ctx, {
            ok: r.ok,
            kind: 'gcpatch/transparency-verify-v1',
            head: r.head ?? null,
            entries: r.entries.length,
            chain: r.entries.map((e) => ({
              entry: e.address,
              acceptance_artifact: e.acceptanceArtifact,
              signature_artifact: e.signatureArtifact,
              package_artifact: e.packageArtifact,
              signer_pk_b64: e.signerPublicKeyB64,
            })),
            error: r.error ?? null,
          });
          return;
        }
        if (r.ok)
          ctx.stdout(
            `ok: ${r.entries.length} transparency entr${r.entries.length === 1 ? 'y' : 'ies'}${head === undefined ? ' (no head: an empty log)' : `, head ${head}`}\n`,
          );
        else {
          const e = new GcError(SigningCode.chainInvalid, `${r.error!.code}: ${r.error!.message}`, {
            exitCode: ExitCode.verificationFailed,
            location: { file: join(packageDir, SIGNING_FILES.transparencyHead) },
          });
          reportError(ctx, e, false);
        }
      });
    });
}

/** The text lines of a report's signing section (empty without `--policy`). */
export function renderSigningText(report: AuditReport): string {
  const s = (report as AuditReport & { signing?: SigningSection }).signing;
  if (s === undefined) return '';
  const lines: string[] = [];
  if (s.policy !== undefined)
    lines.push(
      `signing policy ${s.policy.path} at ${s.policy.commit.slice(0, 12)}: min_signatures ${s.policy.minSignatures}, ${s.policy.allowedPublicKeys.length} allowed key(s)`,
    );
  for (const p of s.packages) {
    const chain =
      p.chain.head === undefined ? 'no transparency log' : `chain ${p.chain.entries} entries${p.chain.extendsBase ? '' : ' (does not extend the base)'}`;
    lines.push(
      `  ${p.dir || '.'}: ${p.required ? `${p.valid} valid signature(s) on ${p.acceptance?.slice(0, 12) ?? 'no acceptance'}${p.signers.length > 0 ? ` by ${p.signers.join(', ')}` : ''}` : 'no signature needed'}; ${chain}`,
    );
  }
  return lines.length === 0 ? '' : lines.join('\n') + '\n';
}
