/** SHA-256 as the edit-plan format and the journals use it: lowercase hex of `node:crypto`'s digest. */
import { createHash } from 'node:crypto';

/** The SHA-256 of `bytes` as 64 lowercase hex digits. */
export function sha256Hex(bytes: Uint8Array | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}
