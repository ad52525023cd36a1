/** The one finding shape of `gcpatch audit`, apart so that `audit.ts` and `signers.ts` share it without importing each other. */

/** One audit finding. `code` is stable (`audit/*` or a `core/store/*` code); `subject` names what failed. */
export interface AuditFinding {
  code: string;
  subject: string;
  message: string;
}
