/**
 * The reference's workspace file in a package directory (red-team round 6): `genesis pkg scaffold`
 * writes `genesis.workspace.toml` beside `package.toml`, and its profiles choose the capability policy
 * a profile's runs use (`[profiles."ci"] caps_policy`, default `caps.toml` beside the workspace file:
 * GenesisCode `crates/gc_pkg/src/workspace.rs`, `crates/gc_cli_driver/src/pkg_workspace_ops_env.rs`),
 * its toolchain, registry and policy, and its tasks the commands they run. No patch op edits it, so
 * nothing in a pull request explains a change of it: it is judged on the net change, base against head.
 * A profile's policy is judged by its grants (a profile repointed at, or added with, a policy that
 * grants more is `audit/caps-widened`); every other change of the file is `audit/manifest-key-changed`
 * (default deny: gcpatch cannot tell what a changed toolchain or task does).
 */
import * as fs from 'node:fs';
import { posix } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { entryAtCommit, objectKindOfMode, type GitRepository } from '../../git/repository.js';
import { decodeUtf8Strict } from '../../util/bytes.js';
import { tomlEqual } from '../../workspace/toml-equal.js';
import { isTomlTable, type TomlTable, type TomlValue } from '../../workspace/manifest-write.js';
import { comparePolicies } from './caps-policy.js';
import { showValue } from './manifest-keys.js';
import { AuditCode, type AuditCodeValue, type PackageFindings } from '../report/findings.js';
import { repoPath } from '../evidence/package-at-commit.js';

/** The workspace file's name, beside a package's manifest. */
export const WORKSPACE_FILE = 'genesis.workspace.toml';

/** A regular file's text at a commit: `undefined` when absent, `null` when not a regular UTF-8 file. */
async function textAt(repo: GitRepository, commit: string, path: string): Promise<string | undefined | null> {
  const entry = await entryAtCommit(repo, commit, path);
  if (entry === undefined) return undefined;
  const kind = objectKindOfMode(entry.mode);
  if (entry.type !== 'blob' || (kind !== 'blob' && kind !== 'executable')) return null;
  const { blob } = await repo.git.readBlob({ fs, dir: repo.dir, oid: entry.oid, cache: repo.cache });
  return decodeUtf8Strict(blob) ?? null;
}

function parse(text: string | undefined): TomlTable | undefined | null {
  if (text === undefined) return undefined;
  try {
    return parseToml(text.replace(/^\uFEFF/, ''), { integersAsBigInt: true }) as unknown as TomlTable;
  } catch {
    return null;
  }
}

/** The profiles of a workspace table: name → its table. */
function profiles(t: TomlTable | undefined): Map<string, TomlTable> {
  const out = new Map<string, TomlTable>();
  const p = t?.profiles;
  if (p !== undefined && isTomlTable(p)) for (const [k, v] of Object.entries(p)) if (isTomlTable(v)) out.set(k, v);
  return out;
}

/** The package-relative path a profile's runs read their policy from (`caps_policy`, default `caps.toml`); `null` when it leaves the package or is no string. */
function profilePolicy(profile: TomlTable): string | null {
  const raw: TomlValue | undefined = profile.caps_policy ?? 'caps.toml';
  if (typeof raw !== 'string' || raw === '' || raw.startsWith('/') || raw.includes('\\')) return null;
  const norm = posix.normalize(raw);
  return norm === '..' || norm.startsWith('../') ? null : norm;
}

/**
 * Judges the workspace file of the package in `dir` between the merge base and the head (see the module comment).
 * @throws GcError `git/missing-commit` (exit 70) when a commit is not in the clone.
 */
export async function checkWorkspaceFile(repo: GitRepository, base: string, head: string, dir: string, out: PackageFindings): Promise<void> {
  const file = repoPath(dir, WORKSPACE_FILE);
  const [before, after] = [await textAt(repo, base, file), await textAt(repo, head, file)];
  if (before === after || after === undefined) return; // unchanged, or deleted (its profiles then no longer run)
  const fail = (code: AuditCodeValue, title: string, message: string): void =>
    out.fail('workspace', file, title, {
      code,
      message: `${file}: ${message}; the workspace file chooses what a profile's runs are granted and run, and no evidence explains a change of it: make it on the base branch, reviewed`,
      file,
      title,
    });
  const a = parse(before ?? undefined);
  const b = parse(after ?? undefined);
  if (after === null || b === null) {
    fail(AuditCode.manifestKeyChanged, 'workspace unreadable', 'the head’s workspace file is not a regular UTF-8 TOML file');
    return;
  }
  const ta = a === null ? undefined : a;
  // profiles: the policy each one runs under, by its grants
  const pa = profiles(ta);
  const widened: string[] = [];
  for (const [name, profile] of profiles(b)) {
    const was = pa.get(name);
    const path = profilePolicy(profile);
    if (path === null) {
      widened.push(`profile ${JSON.stringify(name)} caps_policy ${showValue(profile.caps_policy)} leaves the package or is not a path`);
      continue;
    }
    const wasPath = was === undefined ? undefined : profilePolicy(was);
    const policyBefore = wasPath === undefined || wasPath === null ? undefined : await textAt(repo, base, repoPath(dir, wasPath));
    const policyAfter = await textAt(repo, head, repoPath(dir, path));
    if (policyAfter === null) {
      widened.push(`profile ${JSON.stringify(name)} caps_policy ${path} is not a regular UTF-8 file`);
      continue;
    }
    if (wasPath === path) continue; // the same file: judged as a policy file of the package
    const cmp = comparePolicies(policyBefore ?? undefined, policyAfter);
    if (cmp.widened.length > 0)
      widened.push(
        `profile ${JSON.stringify(name)} ${was === undefined ? 'added' : `repointed from ${wasPath ?? '(none)'}`} at ${path}: ${cmp.widened.slice(0, 4).join('; ')}`,
      );
  }
  if (widened.length > 0) fail(AuditCode.capsWidened, 'capabilities widened', `widens a profile's capability policy: ${widened.join('; ')}`);
  // every other key and profile field: default deny
  const changed: string[] = [];
  const tb = b ?? {};
  const top = ta ?? {};
  for (const k of [...new Set([...Object.keys(top), ...Object.keys(tb)])].sort()) {
    if (k === 'profiles') continue;
    if (!tomlEqual(top[k], tb[k])) changed.push(`${k}: ${showValue(top[k])} → ${showValue(tb[k])}`);
  }
  const pb = profiles(b);
  for (const name of [...new Set([...pa.keys(), ...pb.keys()])].sort()) {
    const x = pa.get(name) ?? {};
    const y = pb.get(name);
    if (y === undefined) continue; // a profile removed runs nothing
    for (const f of [...new Set([...Object.keys(x), ...Object.keys(y)])].sort()) {
      if (f === 'caps_policy' || tomlEqual(x[f], y[f])) continue;
      changed.push(`profiles.${JSON.stringify(name)}.${f}: ${showValue(x[f])} → ${showValue(y[f])}`);
    }
  }
  if (a === null) changed.unshift('the base’s workspace file did not read');
  if (changed.length > 0)
    fail(
      AuditCode.manifestKeyChanged,
      'workspace changed',
      `changes ${changed.slice(0, 6).join('; ')}${changed.length > 6 ? ` (${changed.length} in all)` : ''}`,
    );
}
