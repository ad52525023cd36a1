/** The registry of every `GcError` code gcpatch throws and its default exit code (the meanings: `code-meanings.ts`). */

/**
 * Process exit codes shared by the CLI, driver and Action (README.md and docs/architecture.md).
 * 0 ok, 1 merge conflicts, 10 invalid input, 30 obligations failed, 50 verification failed, 70 I/O error.
 */
export const ExitCode = {
  ok: 0,
  conflicts: 1,
  invalidInput: 10,
  obligationsFailed: 30,
  verificationFailed: 50,
  io: 70,
} as const;
/** One of the {@link ExitCode} values. */
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

const { invalidInput: INPUT, obligationsFailed: OBLIGATIONS, verificationFailed: VERIFY, io: IO } = ExitCode;

/**
 * Every static `GcError` code, grouped by the concern that throws it, sorted within a group, with
 * the exit code a `GcError` built without an `exitCode` gets; a site may still pass another one
 * (`core/caps/resource-limit` is 70 on a put and 50 while verifying, `core/store/not-found` 50 for a
 * linked artifact). Codes are stable. What each code means, for people,
 * is in `code-meanings.ts` (kept out of this file, which the driver bundle loads at start-up).
 */
export const GC_CODES = {
  // action/ (the GitHub Action's inputs and event payload, `action/input-helper.ts`)
  'action/event-unreadable': INPUT,
  'action/invalid-input': INPUT,

  // audit/ (errors; the findings of `src/verify-pr/findings.ts` are a registry of their own)
  'audit/not-a-regular-file': INPUT,
  'audit/package-unreadable': INPUT,
  'audit/range-too-large': INPUT,

  // blame/ (`src/blame/codes.ts`)
  'blame/unknown-module': INPUT,
  'blame/unknown-symbol': INPUT,
  'blame/unreadable-head': INPUT,

  // cli/
  'cli/provenance-not-a-map': INPUT,

  // coreform/: reading, canonical form, closed maps, printing
  'core/canon/invalid-form': INPUT,
  'core/closed/missing-key': INPUT,
  'core/closed/not-a-map': INPUT,
  'core/closed/unknown-key': INPUT,
  'core/closed/wrong-type': INPUT,
  'core/closed/wrong-value': INPUT,
  'core/parse/eof': INPUT,
  'core/parse/escape': INPUT,
  'core/parse/unexpected': INPUT,
  'core/print/too-large': INPUT,

  // signing/: keys, signatures, signature sets, transparency chains, registry policies (`src/signing/errors.ts`)
  'signing/acceptance': INPUT,
  'signing/chain-invalid': VERIFY,
  'signing/key': INPUT,
  'signing/key-exists': INPUT,
  'signing/policy': INPUT,
  'signing/signature-set': INPUT,
  'signing/transparency-head': INPUT,
  'signing/verify-failed': VERIFY,

  // store/: the evidence store and its address prefixes
  'core/caps/resource-limit': VERIFY,
  'core/store/corruption': VERIFY,
  'core/store/io-error': IO,
  'core/store/not-found': INPUT,
  'store/ambiguous-prefix': INPUT,
  'store/not-an-address': INPUT,
  'store/prefix-too-short': INPUT,

  // diff/ and merge/: reports and their verifiers, the driver's installer
  'diff/verify-failed': VERIFY,
  'driver/copy-failed': IO,
  'driver/git-failed': IO,
  'driver/git-missing': IO,
  'driver/git-timeout': IO,
  'driver/not-a-repository': INPUT,
  'driver/not-built': IO,
  'merge/verify-failed': VERIFY,

  // editplan/: weavatrix.edit-plan.v1 "Error contract" (`src/editplan/errors.ts`)
  BEFORE_MISMATCH: VERIFY,
  INVALID_EDIT: INPUT,
  INVALID_FILE: INPUT,
  INVALID_PATH: INPUT,
  INVALID_PLAN: INPUT,
  OUTPUT_TOO_LARGE: INPUT,
  OVERLAPPING_EDITS: INPUT,
  PLAN_TOO_LARGE: INPUT,
  POSITION_OUT_OF_RANGE: INPUT,
  SCHEMA_MISMATCH: INPUT,
  UNPROVEN_EDIT: INPUT,
  VALIDATION_REJECTED: INPUT,

  // editplan/: the filesystem transaction's codes (`src/editplan/errors.ts`)
  JOURNAL_INVALID: IO,
  PATH_ALIAS: INPUT,
  PATH_ESCAPES_ROOT: INPUT,
  RECOVERY_CONFLICT: VERIFY,
  RECOVERY_REQUIRED: IO,
  SOURCE_HASH_MISMATCH: VERIFY,
  SOURCE_MISSING: VERIFY,
  SOURCE_NOT_UTF8: INPUT,
  TARGET_NOT_REGULAR: INPUT,

  // git/: the repository, revisions and packages at a commit
  'git/file-not-found': INPUT,
  'git/missing-commit': IO,
  'git/multiple-merge-bases': INPUT,
  'git/no-merge-base': INPUT,
  'git/not-a-repository': INPUT,
  'git/package-not-found': INPUT,
  'git/unknown-revision': INPUT,

  // the entry points: unexpected failures and output bounds
  internal: IO,
  'output/too-large': INPUT,

  // util/: atomic writes and journals
  'io/eexist': IO,
  'io/enotdir': IO,
  'io/internal': IO,
  'io/not-a-regular-file': IO,

  // workspace/: package.toml, package discovery, workspaces
  'manifest/invalid': INPUT,
  'manifest/toml': INPUT,
  'pkg/ambiguous': INPUT,
  'pkg/not-found': INPUT,
  'workspace/duplicate-path': INPUT,
  'workspace/non-canonical-form': INPUT,
  'workspace/non-portable-path': INPUT,
  'workspace/not-a-vector': INPUT,

  // textmerge/: the text merge, `merge-file` and `solve`
  'merge-file/unreadable': IO,
  'merge-file/usage': INPUT,
  'merge/driver/timeout': IO,
  'merge/manifest/conflict': INPUT,
  'merge/manifest/unsupported': INPUT,
  'merge/text/too-large': INPUT,
  'merge/text/unsafe': INPUT,
  'solve/bad-markers': INPUT,
  'solve/git-failed': IO,
  'solve/git-missing': IO,
  'solve/git-timeout': IO,
  'solve/no-base': INPUT,
  'solve/not-a-repository': INPUT,
  'solve/unreadable': IO,

  // patch/: the `.gcpatch` protocol (GenesisCode `docs/spec/PATCH_SCHEMA.md`), its ops, the apply and acceptance
  'patch/acceptance-invalid': OBLIGATIONS,
  'patch/ambiguous-node-id': INPUT,
  'patch/canonicalize': INPUT,
  'patch/contract-shape': INPUT,
  'patch/empty-identifier': INPUT,
  'patch/form-index-out-of-range': INPUT,
  'patch/genesis-contract': OBLIGATIONS,
  'patch/genesis-not-found': OBLIGATIONS,
  'patch/invalid-path': INPUT,
  'patch/journal-invalid': IO,
  'patch/manifest-entry': INPUT,
  'patch/manifest-value': INPUT,
  'patch/map-key-missing': INPUT,
  'patch/meta-missing': INPUT,
  'patch/missing-field': INPUT,
  'patch/module-exists': INPUT,
  'patch/module-missing': INPUT,
  'patch/nested-recovery-required': IO,
  'patch/no-change': INPUT,
  'patch/non-portable-path': INPUT,
  'patch/obligation-runner-failed': OBLIGATIONS,
  'patch/obligations-failed': OBLIGATIONS,
  'patch/package-locked': IO,
  'patch/param-capture': INPUT,
  'patch/path-collision': INPUT,
  'patch/path-state-conflict': INPUT,
  'patch/path-step-mismatch': INPUT,
  'patch/recovery-conflict': VERIFY,
  'patch/rename-no-sites': INPUT,
  'patch/report-mismatch': VERIFY,
  'patch/reserved-path': INPUT,
  'patch/rollback-failed': IO,
  'patch/split-symbol-missing': INPUT,
  'patch/symlink-path': INPUT,
  'patch/symlink-target': INPUT,
  'patch/unknown-field': INPUT,
  'patch/unknown-node-id': INPUT,
  'patch/unknown-op': INPUT,
  'patch/unsupported-version': INPUT,
  'patch/vec-index-out-of-range': INPUT,
  'patch/wrong-type': INPUT,
  'patch/wrong-value': INPUT,

  // refactor/ (errors; the planner's conflict codes in `src/refactor/codes.ts` are report content)
  'refactor/edit-plan-unmappable': INPUT,
  'refactor/plan-conflicted': INPUT,
  'refactor/report-outdated': VERIFY,
  'refactor/request-invalid': INPUT,
  'refactor/request-not-found': INPUT,
  'refactor/stale-plan': VERIFY,
  'refactor/verification-failed': VERIFY,

  // usage: options checked after parsing (the parser's own codes are the `usage/<code>` family)
  'usage/invalid-option': INPUT,
} as const satisfies Record<string, ExitCode>;

/** One static code of {@link GC_CODES}. */
export type StaticCode = keyof typeof GC_CODES;

declare const familyBrand: unique symbol;
/** A code of a dynamic family, built only by {@link ioErrnoCode} or {@link usageCode}. */
export type FamilyCode = string & { readonly [familyBrand]: 'io' | 'usage' };

/** Every code a `GcError` may carry: a registered static code or a member of a registered family. */
export type GcCode = StaticCode | FamilyCode;

/** The dynamic code families: the pattern of their codes and their default exit code. */
export const GC_CODE_FAMILIES = {
  'io/<errno>': IO,
  'usage/<parser code>': INPUT,
} as const satisfies Record<string, ExitCode>;

/** `io/<errno>` for a Node.js errno code such as `ENOENT` (lower-cased); `io/unknown` when there is none. */
export function ioErrnoCode(errno: string | undefined): FamilyCode {
  return `io/${(errno ?? 'unknown').toLowerCase()}` as FamilyCode;
}

/** `usage/<code>` for a commander error code such as `commander.unknownOption`. */
export function usageCode(commanderCode: string): FamilyCode {
  return `usage/${commanderCode.replace(/^commander\./, '')}` as FamilyCode;
}

/** The family of a code that is not a static one: `usage/<parser code>` for `usage/…`, else `io/<errno>`. */
export function codeFamily(code: GcCode): keyof typeof GC_CODE_FAMILIES {
  return code.startsWith('usage/') ? 'usage/<parser code>' : 'io/<errno>';
}

/**
 * The default exit code of `code`: its own for a static code, its family's ({@link codeFamily}) for
 * `io/…` and `usage/…`. Family codes that collide with a static code (`io/eexist`, `io/internal`)
 * get the static entry.
 */
export function codeExit(code: GcCode): ExitCode {
  return (GC_CODES as Record<string, ExitCode>)[code] ?? GC_CODE_FAMILIES[codeFamily(code)];
}
