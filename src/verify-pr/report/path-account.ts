/**
 * One changed path as the report lists it (`paths[]`): its change, object kind and mode on each
 * side, the packages it belongs to and its role there. `walk/accounting.ts` builds these; the
 * report (`findings.ts`) and `outside.ts` read them, so the shape lives with the report.
 */
import type { ObjectKind } from '../../git/repository.js';

/** The role a path plays in a package. */
export type PathRole = 'package-dir' | 'manifest' | 'module' | 'policy' | 'store-entry' | 'genesis-file' | 'unlisted-module' | 'package-file' | 'outside';

/** One changed path, accounted for. */
export interface PathAccount {
  path: string;
  change: 'added' | 'deleted' | 'modified';
  from?: { kind: ObjectKind; mode: string };
  to?: { kind: ObjectKind; mode: string };
  /** The package directories it belongs to (`''` = the repository root); empty outside every package. */
  packages: string[];
  /** Its role in the first of those packages (`outside` when none). */
  role: PathRole;
  /** What explained it, or what the findings say. */
  explanation: string;
  /** The codes of the findings about this path. */
  findings: string[];
}
