/**
 * Where the driver's fallback note says a side failed to read: `line:col` of that side, the way the
 * rest of gcpatch locates errors (`file:line:col`, README "Exit codes"), never a byte offset.
 */
import { readModule } from '../coreform/read.js';
import type { GcError } from '../util/errors.js';

/**
 * ` in theirs at 3:8` for a CoreForm read error of one side (found by reading the sides again, in
 * the order ours, theirs, base: the failure path only), else ` at 3:8` when the error has a line,
 * else `''`.
 */
export function sideLocation(error: GcError, sides: { base: Uint8Array; ours: Uint8Array; theirs: Uint8Array }): string {
  if (error.location.line === undefined) return '';
  const at = `${error.location.line}:${error.location.column ?? 1}`;
  if (!error.code.startsWith('core/parse/')) return ` at ${at}`;
  for (const side of ['ours', 'theirs', 'base'] as const) {
    try {
      readModule(sides[side]);
    } catch (e) {
      const l = (e as GcError).location;
      if (l !== undefined && l.line !== undefined) return ` in ${side} at ${l.line}:${l.column ?? 1}`;
    }
  }
  return ` at ${at}`;
}
