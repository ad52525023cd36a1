/** The registry of every `GcError` code gcpatch throws: its default exit code and a one-line meaning. */

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

/** What the registry records of one code: the exit code a `GcError` gets when none is given, and what the code means. */
export interface CodeInfo {
  readonly exit: ExitCode;
  readonly meaning: string;
}

const { invalidInput: INPUT, obligationsFailed: OBLIGATIONS, verificationFailed: VERIFY, io: IO } = ExitCode;

/**
 * Every static `GcError` code, grouped by the concern that throws it, sorted within a group. A
 * `GcError` built without an `exitCode` gets the code's `exit`; a site may still pass another one
 * (`core/caps/resource-limit` is 70 on a put and 50 while verifying, `core/store/not-found` 50 for a
 * linked artifact, `internal` 70 from the CLI). Codes are stable; meanings are for people.
 */
export const GC_CODES = {
  // audit/ (errors; the findings of `src/verify-pr/findings.ts` are a registry of their own)
  'audit/not-a-regular-file': { exit: INPUT, meaning: 'a path the package needs is a directory, gitlink or symlink in the commit, not a file' },
  'audit/package-unreadable': { exit: INPUT, meaning: 'something other than `package.toml` stands where a case-insensitive checkout would read the manifest' },
  'audit/range-too-large': { exit: INPUT, meaning: 'more commits between the base and the head than verify-pr checks' },

  // blame/ (`src/blame/codes.ts`)
  'blame/unknown-module': { exit: INPUT, meaning: 'the path is not a module of the package at the head' },
  'blame/unknown-symbol': { exit: INPUT, meaning: 'no module of the package defines the symbol at the head' },
  'blame/unreadable-head': { exit: INPUT, meaning: 'the package cannot be read at the head' },

  // cli/
  'cli/provenance-not-a-map': { exit: INPUT, meaning: 'a provenance file does not hold one CoreForm map' },

  // coreform/: reading, canonical form, closed maps, printing
  'core/canon/invalid-form': { exit: INPUT, meaning: 'a form does not canonicalize' },
  'core/closed/missing-key': { exit: INPUT, meaning: 'a closed map lacks a required key' },
  'core/closed/not-a-map': { exit: INPUT, meaning: 'a value that must be a closed map is not a map' },
  'core/closed/unknown-key': { exit: INPUT, meaning: 'a closed map has a key its schema does not list' },
  'core/closed/wrong-type': { exit: INPUT, meaning: 'a field of a closed map has the wrong CoreForm kind' },
  'core/closed/wrong-value': { exit: INPUT, meaning: 'a field of a closed map has a value its schema does not allow' },
  'core/parse/eof': { exit: INPUT, meaning: 'the input ends where a term was expected' },
  'core/parse/escape': { exit: INPUT, meaning: 'a bad escape sequence inside a string or bytes literal' },
  'core/parse/unexpected': { exit: INPUT, meaning: 'an unexpected byte or token: a stray delimiter, invalid UTF-8, trailing tokens' },
  'core/print/too-large': { exit: INPUT, meaning: 'the canonical print of a term or module exceeds its length bound' },

  // store/: the evidence store and its address prefixes
  'core/caps/resource-limit': { exit: VERIFY, meaning: 'an artifact, entry count or store size is above its bound' },
  'core/store/corruption': { exit: VERIFY, meaning: 'a store entry does not hash to its name, or a name in the store is not an entry' },
  'core/store/io-error': { exit: IO, meaning: 'the evidence store cannot be read or written' },
  'core/store/not-found': { exit: INPUT, meaning: 'no store entry at that address, or the address is not 64 lowercase hex digits' },
  'store/ambiguous-prefix': { exit: INPUT, meaning: 'more than one store entry starts with the given prefix' },
  'store/not-an-address': { exit: INPUT, meaning: 'the argument is neither a store address nor a hex prefix' },
  'store/prefix-too-short': { exit: INPUT, meaning: 'a store address prefix has fewer digits than the minimum' },

  // diff/ and merge/: reports and their verifiers, the driver's installer
  'diff/verify-failed': { exit: VERIFY, meaning: 'a diff report failed its independent verification' },
  'driver/copy-failed': { exit: IO, meaning: 'the merge driver bundle cannot be copied into place' },
  'driver/git-failed': { exit: IO, meaning: 'a git command run to install the merge driver failed' },
  'driver/git-missing': { exit: IO, meaning: 'git cannot be run to install the merge driver' },
  'driver/git-timeout': { exit: IO, meaning: 'a git command run to install the merge driver did not finish within its time budget' },
  'driver/not-a-repository': { exit: INPUT, meaning: 'installing the merge driver outside a git repository without `--global`' },
  'driver/not-built': { exit: IO, meaning: 'the merge driver bundle to install has not been built' },
  'merge/verify-failed': { exit: VERIFY, meaning: 'a merge report failed its independent verification' },

  // editplan/: weavatrix.edit-plan.v1 "Error contract" (`src/editplan/errors.ts`)
  BEFORE_MISMATCH: { exit: VERIFY, meaning: 'an edit\'s `before` text is not the source text at its range' },
  INVALID_EDIT: { exit: INPUT, meaning: 'an edit entry is malformed' },
  INVALID_FILE: { exit: INPUT, meaning: 'a file entry is malformed' },
  INVALID_PATH: { exit: INPUT, meaning: 'a plan path breaks the portable-path rules' },
  INVALID_PLAN: { exit: INPUT, meaning: 'the plan is not a valid edit-plan object' },
  OUTPUT_TOO_LARGE: { exit: INPUT, meaning: 'an edited file would exceed the output bound' },
  OVERLAPPING_EDITS: { exit: INPUT, meaning: 'two edits of one file overlap' },
  PLAN_TOO_LARGE: { exit: INPUT, meaning: 'the plan exceeds a size or count bound' },
  POSITION_OUT_OF_RANGE: { exit: INPUT, meaning: 'an edit position lies outside its file' },
  SCHEMA_MISMATCH: { exit: INPUT, meaning: 'the plan names another schema or version' },
  UNPROVEN_EDIT: { exit: INPUT, meaning: 'an edit lacks the proof the plan requires' },
  VALIDATION_REJECTED: { exit: INPUT, meaning: 'the plan\'s validation field does not allow applying it' },

  // editplan/: the filesystem transaction's codes (`src/editplan/errors.ts`)
  JOURNAL_INVALID: { exit: IO, meaning: 'the edit-plan journal cannot be read, fails its checksum or names unexpected paths' },
  PATH_ALIAS: { exit: INPUT, meaning: 'two plan paths resolve to the same file' },
  PATH_ESCAPES_ROOT: { exit: INPUT, meaning: 'a parent directory is a symbolic link leading outside the root' },
  RECOVERY_CONFLICT: { exit: VERIFY, meaning: 'during recovery a target matches neither its recorded before nor after hash' },
  RECOVERY_REQUIRED: { exit: IO, meaning: 'an interrupted edit-plan transaction\'s journal exists; recover first' },
  SOURCE_HASH_MISMATCH: { exit: VERIFY, meaning: 'a file\'s bytes do not hash to the plan\'s `sha256`' },
  SOURCE_MISSING: { exit: VERIFY, meaning: 'a planned file or one of its parent directories does not exist' },
  SOURCE_NOT_UTF8: { exit: INPUT, meaning: 'a source is not valid UTF-8' },
  TARGET_NOT_REGULAR: { exit: INPUT, meaning: 'a target is a symbolic link, directory or other non-regular file' },

  // git/: the repository, revisions and packages at a commit
  'git/file-not-found': { exit: INPUT, meaning: 'the manifest lists a module the commit has no file for' },
  'git/missing-commit': { exit: IO, meaning: 'a commit is not in the object store (often a shallow clone)' },
  'git/multiple-merge-bases': { exit: INPUT, meaning: 'two commits have more than one merge base; name one' },
  'git/no-merge-base': { exit: INPUT, meaning: 'two commits have no common ancestor' },
  'git/not-a-repository': { exit: INPUT, meaning: 'the directory is not inside a git repository or work tree' },
  'git/package-not-found': { exit: INPUT, meaning: 'no package at that path in the commit, or the path leaves the repository' },
  'git/unknown-revision': { exit: INPUT, meaning: 'a revision names no ref, tag, object or parent' },

  // the entry points: unexpected failures and output bounds
  internal: { exit: INPUT, meaning: 'an unexpected failure, reported with its message' },
  'output/too-large': { exit: INPUT, meaning: 'the output is too large to produce' },

  // util/: atomic writes and journals
  'io/eexist': { exit: IO, meaning: 'an apply journal exists: recover before applying' },
  'io/enotdir': { exit: IO, meaning: 'the root of an edit-plan transaction is not a directory' },
  'io/internal': { exit: IO, meaning: 'one transaction would write the same path twice' },
  'io/not-a-regular-file': { exit: INPUT, meaning: 'an atomic write target exists and is not a regular file' },

  // workspace/: package.toml, package discovery, workspaces
  'manifest/invalid': { exit: INPUT, meaning: '`package.toml` does not follow the manifest schema or is not UTF-8' },
  'manifest/toml': { exit: INPUT, meaning: '`package.toml` is not valid TOML' },
  'pkg/ambiguous': { exit: INPUT, meaning: 'outside every package, and the repository has more than one' },
  'pkg/not-found': { exit: INPUT, meaning: 'no `package.toml` in the directory, above it, or in the repository' },
  'workspace/duplicate-path': { exit: INPUT, meaning: 'a workspace lists a module path twice' },
  'workspace/non-canonical-form': { exit: INPUT, meaning: 'a workspace module form is not canonical CoreForm' },
  'workspace/non-portable-path': { exit: INPUT, meaning: 'a workspace module path is not portable' },
  'workspace/not-a-vector': { exit: INPUT, meaning: 'a workspace is not a vector of `{:module-path :forms}` records' },

  // textmerge/: the text merge, `merge-file` and `solve`
  'merge-file/unreadable': { exit: IO, meaning: '`merge-file` cannot read one of its files' },
  'merge-file/usage': { exit: INPUT, meaning: '`merge-file` was called with the wrong arguments' },
  'merge/driver/timeout': { exit: IO, meaning: 'the structural merge ran past its time budget (the driver falls back to the line merge)' },
  'merge/manifest/conflict': { exit: INPUT, meaning: 'the two sides change `package.toml` in ways that cannot be merged' },
  'merge/manifest/unsupported': { exit: INPUT, meaning: 'a side of `package.toml` holds a value the reference-style writer cannot keep' },
  'merge/text/too-large': { exit: INPUT, meaning: 'the diff of two inputs needs more than its budget' },
  'merge/text/unsafe': { exit: INPUT, meaning: 'a text merge result is not safe to write' },
  'solve/bad-markers': { exit: INPUT, meaning: 'conflict markers are malformed or not closed' },
  'solve/git-failed': { exit: IO, meaning: 'a git command `solve` runs failed' },
  'solve/git-missing': { exit: IO, meaning: 'git cannot be run for `solve`' },
  'solve/git-timeout': { exit: IO, meaning: 'a git command `solve` runs did not finish within its time budget' },
  'solve/no-base': { exit: INPUT, meaning: 'a conflict has no base section (merge-style markers)' },
  'solve/not-a-repository': { exit: INPUT, meaning: '`solve` without files outside a git work tree' },
  'solve/unreadable': { exit: IO, meaning: '`solve` cannot read a file' },

  // patch/: the `.gcpatch` protocol (GenesisCode `docs/spec/PATCH_SCHEMA.md`), its ops, the apply and acceptance
  'patch/acceptance-invalid': { exit: OBLIGATIONS, meaning: 'an obligation runner wrote an acceptance gcpatch rejects' },
  'patch/ambiguous-node-id': { exit: INPUT, meaning: '`:replace-node-id` matches more than one node' },
  'patch/canonicalize': { exit: INPUT, meaning: 'the result of an op does not canonicalize' },
  'patch/contract-shape': { exit: INPUT, meaning: '`:migrate-contract-signature` found no `(def contract (fn (p …) …))` of the expected shape' },
  'patch/empty-identifier': { exit: INPUT, meaning: 'a required identifier (symbol or string) is empty' },
  'patch/form-index-out-of-range': { exit: INPUT, meaning: '`[:form i]` with i at or above the module\'s form count' },
  'patch/genesis-contract': { exit: OBLIGATIONS, meaning: '`genesis test` broke its contract (exit status, acceptance pointer or entry)' },
  'patch/genesis-not-found': { exit: OBLIGATIONS, meaning: 'the `genesis` runner cannot be run' },
  'patch/injected-fault': { exit: INPUT, meaning: 'a fault a test injects through a `faults` hook' },
  'patch/invalid-path': { exit: INPUT, meaning: 'a `:path` vector is malformed (empty, bad step tag, `[:form i]` not first, bad index)' },
  'patch/journal-invalid': { exit: IO, meaning: 'the apply journal is damaged (bad JSON, checksum, entries)' },
  'patch/manifest-entry': { exit: INPUT, meaning: 'the manifest lacks (or already has) a module entry the op needs' },
  'patch/manifest-value': { exit: INPUT, meaning: '`:update-manifest` sets a value that cannot be written as TOML' },
  'patch/map-key-missing': { exit: INPUT, meaning: '`[:map k]` where the map has no key k' },
  'patch/meta-missing': { exit: INPUT, meaning: '`:rewrite-imports`/`:rewrite-exports` found no `::meta` map to edit' },
  'patch/missing-field': { exit: INPUT, meaning: 'a patch or op map lacks a required key' },
  'patch/module-exists': { exit: INPUT, meaning: 'an op would create a module that already exists' },
  'patch/module-missing': { exit: INPUT, meaning: 'an op targets a module the package state does not hold' },
  'patch/no-change': { exit: INPUT, meaning: '`:rewrite-imports`/`:rewrite-exports` left the module unchanged' },
  'patch/non-portable-path': { exit: INPUT, meaning: 'a module path is not portable (empty, non-NFC, `..`, drive prefix, backslash, …)' },
  'patch/obligation-runner-failed': { exit: OBLIGATIONS, meaning: 'the obligation runner could not be run, timed out or failed' },
  'patch/obligations-failed': { exit: OBLIGATIONS, meaning: 'the acceptance was `:ok false`' },
  'patch/package-locked': { exit: IO, meaning: 'another live gcpatch process holds the package lock' },
  'patch/param-capture': { exit: INPUT, meaning: '`:migrate-contract-signature` would capture: `:to-param` is already bound or referenced' },
  'patch/path-state-conflict': { exit: INPUT, meaning: 'preflight: an op\'s path is not in the state it requires' },
  'patch/path-step-mismatch': { exit: INPUT, meaning: 'a path step does not fit the node it descends into' },
  'patch/recovery-conflict': { exit: VERIFY, meaning: 'recovery found a file matching neither its recorded before nor after bytes' },
  'patch/rename-no-sites': { exit: INPUT, meaning: '`:rename-symbol` found no site to rewrite' },
  'patch/report-mismatch': { exit: VERIFY, meaning: 'a producer report failed its independent verification' },
  'patch/reserved-path': { exit: INPUT, meaning: 'a patch path names `.git`, `.gcpatch` or `.genesis` (any case, alias or 8.3 short name)' },
  'patch/rollback-failed': { exit: IO, meaning: 'rollback after a failed apply could not restore the package' },
  'patch/split-symbol-missing': { exit: INPUT, meaning: '`:split-module` found no `(def sym …)` for a listed symbol' },
  'patch/symlink-path': { exit: INPUT, meaning: 'a component of a patch path on disk is a symbolic link' },
  'patch/symlink-target': { exit: INPUT, meaning: 'a write target (`package.toml`, `.genesis/last_acceptance`) is a symbolic link' },
  'patch/unknown-field': { exit: INPUT, meaning: 'a patch or op map has a key its closed schema does not list' },
  'patch/unknown-node-id': { exit: INPUT, meaning: '`:replace-node-id` names no node of the module' },
  'patch/unknown-op': { exit: INPUT, meaning: '`:op` names no known operation' },
  'patch/unsupported-version': { exit: INPUT, meaning: '`:version` is an int other than 1' },
  'patch/vec-index-out-of-range': { exit: INPUT, meaning: '`[:vec i]` with i at or above the vector\'s length' },
  'patch/wrong-type': { exit: INPUT, meaning: 'a field has the wrong CoreForm kind (or the patch is not a map)' },
  'patch/wrong-value': { exit: INPUT, meaning: 'a fixed field has the wrong value' },

  // refactor/ (errors; the planner's conflict codes in `src/refactor/codes.ts` are report content)
  'refactor/edit-plan-unmappable': { exit: INPUT, meaning: 'the edit-plan export cannot map every rewritten symbol to an exact source range' },
  'refactor/plan-conflicted': { exit: INPUT, meaning: 'a conflicted refactor plan carries no patch or edits' },
  'refactor/report-outdated': { exit: VERIFY, meaning: 'a refactor plan report written by an earlier gcpatch; plan again' },
  'refactor/request-invalid': { exit: INPUT, meaning: 'a refactor request is malformed, non-portable, duplicated or non-canonical' },
  'refactor/request-not-found': { exit: INPUT, meaning: 'the refactor request or report is not in the store' },
  'refactor/stale-plan': { exit: VERIFY, meaning: 'the package is not the package the plan was made for' },
  'refactor/verification-failed': { exit: VERIFY, meaning: 'a refactor plan report failed independent host verification' },

  // usage: options checked after parsing (the parser's own codes are the `usage/<code>` family)
  'usage/invalid-option': { exit: INPUT, meaning: 'an option value is malformed or out of range' },
} as const satisfies Record<string, CodeInfo>;

/** One static code of {@link GC_CODES}. */
export type StaticCode = keyof typeof GC_CODES;

declare const familyBrand: unique symbol;
/** A code of a dynamic family, built only by {@link ioErrnoCode} or {@link usageCode}. */
export type FamilyCode = string & { readonly [familyBrand]: 'io' | 'usage' };

/** Every code a `GcError` may carry: a registered static code or a member of a registered family. */
export type GcCode = StaticCode | FamilyCode;

/** The dynamic code families: the pattern of their codes, their default exit code and meaning. */
export const GC_CODE_FAMILIES = {
  'io/<errno>': { exit: IO, meaning: 'a filesystem call failed; the suffix is Node\'s errno code in lower case (`io/enoent`, `io/eacces`)' },
  'usage/<parser code>': { exit: INPUT, meaning: 'the command line does not parse; the suffix is commander\'s code without `commander.` (`usage/unknownOption`)' },
} as const satisfies Record<string, CodeInfo>;

/** `io/<errno>` for a Node.js errno code such as `ENOENT` (lower-cased); `io/unknown` when there is none. */
export function ioErrnoCode(errno: string | undefined): FamilyCode {
  return `io/${(errno ?? 'unknown').toLowerCase()}` as FamilyCode;
}

/** `usage/<code>` for a commander error code such as `commander.unknownOption`. */
export function usageCode(commanderCode: string): FamilyCode {
  return `usage/${commanderCode.replace(/^commander\./, '')}` as FamilyCode;
}

/**
 * The registry entry of `code`: its own for a static code, its family's for `io/…` and `usage/…`.
 * Family codes that collide with a static code (`io/eexist`, `io/internal`) get the static entry.
 */
export function codeInfo(code: GcCode): CodeInfo {
  const entry = (GC_CODES as Record<string, CodeInfo>)[code];
  if (entry !== undefined) return entry;
  return code.startsWith('usage/') ? GC_CODE_FAMILIES['usage/<parser code>'] : GC_CODE_FAMILIES['io/<errno>'];
}
