/**
 * The gcpatch library: everything the `gcpatch` CLI, the merge driver and the GitHub Action use.
 * Each area is also importable on its own from `gcpatch/dist/<area>/<file>.js`.
 */
export * from './util/errors.js';
export * from './util/bytes.js';
export * from './coreform/term.js';
export * from './coreform/read.js';
export * from './coreform/scan.js';
export * from './coreform/canon.js';
export * from './coreform/print.js';
export * from './coreform/hash.js';
export * from './coreform/closed.js';
export * from './coreform/json.js';
export * from './workspace/path.js';
export * from './workspace/manifest.js';
export * from './workspace/manifest-write.js';
export * from './workspace/package.js';
export * from './workspace/workspace.js';
export * from './patch/protocol/normalize.js';
export * from './patch/protocol/normalize-verify.js';
export * from './patch/protocol/node-index.js';
export * from './patch/protocol/preflight.js';
export * from './patch/protocol/preflight-verify.js';
export * from './patch/protocol/state.js';
export * from './patch/ops/apply-ops.js';
export * from './patch/apply/pack.js';
export * from './patch/apply/apply.js';
export * from './patch/apply/apply-report.js';
export * from './patch/apply/apply-report-verify.js';
export * from './store/store.js';
export * from './package-audit/audit.js';
export * from './diff/diff.js';
export * from './diff/verify.js';
export * from './merge/rules.js';
export * from './merge/verify.js';
export * from './textmerge/module.js';
export * from './refactor/request.js';
export * from './refactor/plan.js';
export * from './refactor/verify.js';
export * from './refactor/apply-plan.js';
export * from './refactor/edit-plan-export.js';
export * from './git/repository.js';
export * from './git/workspace.js';
export * as editplan from './editplan/index.js';
export { auditPullRequest, MISSING_HISTORY_HINT, type AuditOptions as PullRequestAuditOptions } from './verify-pr/verify-pr.js';
