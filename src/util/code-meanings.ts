/** What each `GcError` code of the registry (`codes.ts`) means, one line for people; not loaded by the driver. */
import { codeFamily, type GC_CODE_FAMILIES, type GcCode, type StaticCode } from './codes.js';

/**
 * The meaning of every static code, in the groups and order of `GC_CODES` (`tsc` rejects a code
 * missing here or one the registry does not hold).
 */
export const CODE_MEANINGS: { readonly [C in StaticCode]: string } = {
  // action/ (the GitHub Action's inputs and event payload, `action/input-helper.ts`)
  'action/event-unreadable': "the Action's event payload (GITHUB_EVENT_PATH) is not readable JSON",
  'action/invalid-input': 'an input of the GitHub Action is invalid or missing (`details.input` names it)',

  // audit/ (errors; the findings of `src/verify-pr/findings.ts` are a registry of their own)
  'audit/not-a-regular-file': 'a path the package needs is a directory, gitlink or symlink in the commit, not a file',
  'audit/package-unreadable': 'something other than `package.toml` stands where a case-insensitive checkout would read the manifest',
  'audit/range-too-large': 'more commits between the base and the head than verify-pr checks',

  // blame/ (`src/blame/codes.ts`)
  'blame/unknown-module': 'the path is not a module of the package at the head',
  'blame/unknown-symbol': 'no module of the package defines the symbol at the head',
  'blame/unreadable-head': 'the package cannot be read at the head',

  // cli/
  'cli/provenance-not-a-map': 'a provenance file does not hold one CoreForm map',

  // coreform/: reading, canonical form, closed maps, printing
  'core/canon/invalid-form': 'a form does not canonicalize',
  'core/closed/missing-key': 'a closed map lacks a required key',
  'core/closed/not-a-map': 'a value that must be a closed map is not a map',
  'core/closed/unknown-key': 'a closed map has a key its schema does not list',
  'core/closed/wrong-type': 'a field of a closed map has the wrong CoreForm kind',
  'core/closed/wrong-value': 'a field of a closed map has a value its schema does not allow',
  'core/parse/eof': 'the input ends where a term was expected',
  'core/parse/escape': 'a bad escape sequence inside a string or bytes literal',
  'core/parse/unexpected': 'an unexpected byte or token: a stray delimiter, invalid UTF-8, trailing tokens',
  'core/print/too-large': 'the canonical print of a term or module exceeds its length bound',

  // signing/: keys, signatures, signature sets, transparency chains, registry policies (`src/signing/errors.ts`)
  'signing/acceptance': 'the acceptance to sign is missing or not 64 lowercase hex digits',
  'signing/chain-invalid': 'the transparency chain does not verify (missing, corrupt or malformed entry, cycle, too long)',
  'signing/key': 'a key file is missing, a symlink or not regular, open to group or other, malformed, or its keys do not match',
  'signing/key-exists': 'keygen refuses to write over an existing path',
  'signing/policy': 'a registry policy file is malformed',
  'signing/signature-set': 'the signature set file is malformed (never read as empty)',
  'signing/transparency-head': 'the transparency head file is malformed (never read as an empty log)',
  'signing/verify-failed': 'the acceptance lacks the valid signatures the policy requires, or a listed signature fails',

  // store/: the evidence store and its address prefixes
  'core/caps/resource-limit': 'an artifact, entry count or store size is above its bound',
  'core/store/corruption': 'a store entry does not hash to its name, or a name in the store is not an entry',
  'core/store/io-error': 'the evidence store cannot be read or written',
  'core/store/not-found': 'no store entry at that address, or the address is not 64 lowercase hex digits',
  'store/ambiguous-prefix': 'more than one store entry starts with the given prefix',
  'store/not-an-address': 'the argument is neither a store address nor a hex prefix',
  'store/prefix-too-short': 'a store address prefix has fewer digits than the minimum',

  // diff/ and merge/: reports and their verifiers, the driver's installer
  'diff/verify-failed': 'a diff report failed its independent verification',
  'driver/copy-failed': 'the merge driver bundle cannot be copied into place',
  'driver/git-failed': 'a git command run to install the merge driver failed',
  'driver/git-missing': 'git cannot be run to install the merge driver',
  'driver/git-timeout': 'a git command run to install the merge driver did not finish within its time budget',
  'driver/not-a-repository': 'installing the merge driver outside a git repository without `--global`',
  'driver/not-built': 'the merge driver bundle to install has not been built',
  'merge/verify-failed': 'a merge report failed its independent verification',

  // editplan/: weavatrix.edit-plan.v1 "Error contract" (`src/editplan/errors.ts`)
  BEFORE_MISMATCH: "an edit's `before` text is not the source text at its range",
  INVALID_EDIT: 'an edit entry is malformed',
  INVALID_FILE: 'a file entry is malformed',
  INVALID_PATH: 'a plan path breaks the portable-path rules',
  INVALID_PLAN: 'the plan is not a valid edit-plan object',
  OUTPUT_TOO_LARGE: 'an edited file would exceed the output bound',
  OVERLAPPING_EDITS: 'two edits of one file overlap',
  PLAN_TOO_LARGE: 'the plan exceeds a size or count bound',
  POSITION_OUT_OF_RANGE: 'an edit position lies outside its file',
  SCHEMA_MISMATCH: 'the plan names another schema or version',
  UNPROVEN_EDIT: 'an edit lacks the proof the plan requires',
  VALIDATION_REJECTED: "the plan's validation field does not allow applying it",

  // editplan/: the filesystem transaction's codes (`src/editplan/errors.ts`)
  JOURNAL_INVALID: 'the edit-plan journal cannot be read, fails its checksum or names unexpected paths',
  PATH_ALIAS: 'two plan paths resolve to the same file',
  PATH_ESCAPES_ROOT: 'a parent directory is a symbolic link leading outside the root',
  RECOVERY_CONFLICT: 'during recovery a target matches neither its recorded before nor after hash',
  RECOVERY_REQUIRED: "an interrupted edit-plan transaction's journal exists; recover first",
  SOURCE_HASH_MISMATCH: "a file's bytes do not hash to the plan's `sha256`",
  SOURCE_MISSING: 'a planned file or one of its parent directories does not exist',
  SOURCE_NOT_UTF8: 'a source is not valid UTF-8',
  TARGET_NOT_REGULAR: 'a target is a symbolic link, directory or other non-regular file',

  // git/: the repository, revisions and packages at a commit
  'git/file-not-found': 'the manifest lists a module the commit has no file for',
  'git/missing-commit': 'a commit is not in the object store (often a shallow clone)',
  'git/multiple-merge-bases': 'two commits have more than one merge base; name one',
  'git/no-merge-base': 'two commits have no common ancestor',
  'git/not-a-repository': 'the directory is not inside a git repository or work tree',
  'git/package-not-found': 'no package at that path in the commit, or the path leaves the repository',
  'git/unknown-revision': 'a revision names no ref, tag, object or parent',

  // the entry points: unexpected failures and output bounds
  internal: 'an unexpected failure, reported with its message',
  'output/too-large': 'the output is too large to produce',

  // util/: atomic writes and journals
  'io/eexist': 'an apply journal exists: recover before applying',
  'io/enotdir': 'the root of an edit-plan transaction is not a directory',
  'io/internal': 'one transaction would write the same path twice',
  'io/not-a-regular-file': 'an atomic write target exists and is not a regular file',

  // workspace/: package.toml, package discovery, workspaces
  'manifest/invalid': '`package.toml` does not follow the manifest schema or is not UTF-8',
  'manifest/toml': '`package.toml` is not valid TOML',
  'pkg/ambiguous': 'outside every package, and the repository has more than one',
  'pkg/not-found': 'no `package.toml` in the directory, above it, or in the repository',
  'workspace/duplicate-path': 'a workspace lists a module path twice',
  'workspace/non-canonical-form': 'a workspace module form is not canonical CoreForm',
  'workspace/non-portable-path': 'a workspace module path is not portable',
  'workspace/not-a-vector': 'a workspace is not a vector of `{:module-path :forms}` records',

  // textmerge/: the text merge, `merge-file` and `solve`
  'merge-file/unreadable': '`merge-file` cannot read one of its files',
  'merge-file/usage': '`merge-file` was called with the wrong arguments',
  'merge/driver/timeout': 'the structural merge ran past its time budget (the driver falls back to the line merge)',
  'merge/manifest/conflict': 'the two sides change `package.toml` in ways that cannot be merged',
  'merge/manifest/unsupported': 'a side of `package.toml` holds a value the reference-style writer cannot keep',
  'merge/text/too-large': 'the diff of two inputs needs more than its budget',
  'merge/text/unsafe': 'a text merge result is not safe to write',
  'solve/bad-markers': 'conflict markers are malformed or not closed',
  'solve/git-failed': 'a git command `solve` runs failed',
  'solve/git-missing': 'git cannot be run for `solve`',
  'solve/git-timeout': 'a git command `solve` runs did not finish within its time budget',
  'solve/no-base': 'a conflict has no base section (merge-style markers)',
  'solve/not-a-repository': '`solve` without files outside a git work tree',
  'solve/unreadable': '`solve` cannot read a file',

  // patch/: the `.gcpatch` protocol (GenesisCode `docs/spec/PATCH_SCHEMA.md`), its ops, the apply and acceptance
  'patch/acceptance-invalid': 'an obligation runner wrote an acceptance gcpatch rejects',
  'patch/ambiguous-node-id': '`:replace-node-id` matches more than one node',
  'patch/canonicalize': 'the result of an op does not canonicalize',
  'patch/contract-shape': '`:migrate-contract-signature` found no `(def contract (fn (p …) …))` of the expected shape',
  'patch/empty-identifier': 'a required identifier (symbol or string) is empty',
  'patch/form-index-out-of-range': "`[:form i]` with i at or above the module's form count",
  'patch/genesis-contract': '`genesis test` broke its contract (exit status, acceptance pointer or entry)',
  'patch/genesis-not-found': 'the `genesis` runner cannot be run',
  'patch/invalid-path': 'a `:path` vector is malformed (empty, bad step tag, `[:form i]` not first, bad index)',
  'patch/journal-invalid': 'the apply journal is damaged (bad JSON, checksum, entries)',
  'patch/manifest-entry': 'the manifest lacks (or already has) a module entry the op needs',
  'patch/manifest-value': '`:update-manifest` sets a value that cannot be written as TOML',
  'patch/map-key-missing': '`[:map k]` where the map has no key k',
  'patch/meta-missing': '`:rewrite-imports`/`:rewrite-exports` found no `::meta` map to edit',
  'patch/missing-field': 'a patch or op map lacks a required key',
  'patch/module-exists': 'an op would create a module that already exists',
  'patch/module-missing': 'an op targets a module the package state does not hold',
  'patch/nested-recovery-required': 'a directory the transaction would write into holds the journal of an interrupted transaction rooted there',
  'patch/no-change': '`:rewrite-imports`/`:rewrite-exports` left the module unchanged',
  'patch/non-portable-path': 'a module path is not portable (empty, non-NFC, `..`, drive prefix, backslash, …)',
  'patch/obligation-runner-failed': 'the obligation runner could not be run, timed out or failed',
  'patch/obligations-failed': 'the acceptance was `:ok false`',
  'patch/package-locked': 'another live gcpatch process holds the package lock',
  'patch/param-capture': '`:migrate-contract-signature` would capture: `:to-param` is already bound or referenced',
  'patch/path-collision': 'one op path is a directory on the way to another (`x.gc` and `x.gc/y.gc`); refused before any access',
  'patch/path-state-conflict': "preflight: an op's path is not in the state it requires",
  'patch/path-step-mismatch': 'a path step does not fit the node it descends into',
  'patch/recovery-conflict': 'recovery found a file matching neither its recorded before nor after bytes',
  'patch/rename-no-sites': '`:rename-symbol` found no site to rewrite',
  'patch/report-mismatch': 'a producer report failed its independent verification',
  'patch/reserved-path': 'a patch path names `.git`, `.gcpatch` or `.genesis` (any case, alias or 8.3 short name)',
  'patch/rollback-failed': 'rollback after a failed apply could not restore the package',
  'patch/split-symbol-missing': '`:split-module` found no `(def sym …)` for a listed symbol',
  'patch/symlink-path': 'a component of a patch path on disk is a symbolic link',
  'patch/symlink-target': 'a write target (`package.toml`, `.genesis/last_acceptance`) is a symbolic link',
  'patch/unknown-field': 'a patch or op map has a key its closed schema does not list',
  'patch/unknown-node-id': '`:replace-node-id` names no node of the module',
  'patch/unknown-op': '`:op` names no known operation',
  'patch/unsupported-version': '`:version` is an int other than 1',
  'patch/vec-index-out-of-range': "`[:vec i]` with i at or above the vector's length",
  'patch/wrong-type': 'a field has the wrong CoreForm kind (or the patch is not a map)',
  'patch/wrong-value': 'a fixed field has the wrong value',

  // refactor/ (errors; the planner's conflict codes in `src/refactor/codes.ts` are report content)
  'refactor/edit-plan-unmappable': 'the edit-plan export cannot map every rewritten symbol to an exact source range',
  'refactor/plan-conflicted': 'a conflicted refactor plan carries no patch or edits',
  'refactor/report-outdated': 'a refactor plan report written by an earlier gcpatch; plan again',
  'refactor/request-invalid': 'a refactor request is malformed, non-portable, duplicated or non-canonical',
  'refactor/request-not-found': 'the refactor request or report is not in the store',
  'refactor/stale-plan': 'the package is not the package the plan was made for',
  'refactor/verification-failed': 'a refactor plan report failed independent host verification',

  // usage: options checked after parsing (the parser's own codes are the `usage/<code>` family)
  'usage/invalid-option': 'an option value is malformed or out of range',
};

/** The meaning of each dynamic code family of `GC_CODE_FAMILIES`. */
export const FAMILY_MEANINGS: { readonly [F in keyof typeof GC_CODE_FAMILIES]: string } = {
  'io/<errno>': "a filesystem call failed; the suffix is Node's errno code in lower case (`io/enoent`, `io/eacces`)",
  'usage/<parser code>': "the command line does not parse; the suffix is commander's code without `commander.` (`usage/unknownOption`)",
};

/** What `code` means: its own meaning for a static code, its family's ({@link codeFamily}) for `io/…` and `usage/…`. */
export function codeMeaning(code: GcCode): string {
  return (CODE_MEANINGS as Record<string, string>)[code] ?? FAMILY_MEANINGS[codeFamily(code)];
}
