/**
 * Refactor evidence in the package's content-addressed store (`<pkg>/.genesis/store/<blake3>`,
 * docs/reference/evidence-store.md §5): storing the request and the plan report, and finding each of the three
 * artifacts (request, plan report, apply report) from any other.
 *
 * Linkage (docs/refactor.md "Evidence linkage"; docs/reference/patch-protocols.md §3.10): the reference's safe
 * patch names no request, so nothing here reads a patch's `:provenance`.
 * - plan report → request: the stored entry whose hash-term is the report's `:request-h`
 *   (hash-term of a stored term = BLAKE3("GCv0.2\0" ‖ its stored bytes), so no parsing is needed).
 * - request → plan reports: the stored `genesis/refactor-plan-v0.1` entries whose `:request-h` is
 *   the request's hash-term.
 * - plan report ↔ apply reports: a safe plan's `:patch-h` is the hash-term of the normalized patch,
 *   which is also the `:patch-h` of every `genesis/patch-apply-v0.3` report that applied it.
 * These links hold for stores written by earlier gcpatch versions too (their reports still carry
 * the same `:request-h` and `:patch-h`); such reports then fail verification with
 * `refactor/report-outdated` (verify.ts).
 */
import { readFileSync } from 'node:fs';
import { hashTermOfPrint, storeAddress } from '../coreform/hash.js';
import { readTerm } from '../coreform/read.js';
import { mapGetKw, type Term } from '../coreform/term.js';
import { EvidenceStore } from '../store/store.js';
import { isHex64 } from '../util/bytes.js';
import { ExitCode, GcError, ioError, isGcError } from '../util/errors.js';
import { RefactorErrorCode, REFACTOR_REPORT_KIND, REFACTOR_REQUEST_KIND } from './codes.js';
import { planRefactor } from './plan.js';
import { decodeRefactorRequest, termIdentity, type RefactorRequest } from './request.js';

/** `:kind` of the apply report that applying a plan's patch produces (SEMANTIC_PATCH_APPLY_REPORT_v0.1). */
export const APPLY_REPORT_KIND = 'genesis/patch-apply-v0.3';

/** Store addresses of a plan's evidence. */
export interface RefactorEvidenceAddresses {
  request: string;
  report: string;
}

/**
 * Puts the request and the plan report in `store` (write-once; storing again is a no-op).
 * @returns both store addresses.
 * @throws GcError `core/store/*` (corruption exit 50, I/O exit 70).
 */
export function storeRefactorEvidence(store: EvidenceStore, request: RefactorRequest, report: Term): RefactorEvidenceAddresses {
  return { request: store.put(termIdentity(request.term).bytes), report: store.putTerm(report) };
}

/** A term read from a command-line argument. */
export interface TermArgument {
  term: Term;
  /** The store address when read from the store, else the file's. */
  address: string;
  origin: 'store' | 'file';
}

/**
 * Reads a term named on the command line: a 64-hex store address present in `store`, or a file
 * holding one CoreForm term (e.g. a report written with `--out`).
 * @throws GcError `core/parse/*` (exit 10, with the file), `core/store/*`, `io/*` (exit 70).
 */
export function readTermArgument(arg: string, store: EvidenceStore | undefined): TermArgument {
  if (isHex64(arg) && store !== undefined && store.has(arg)) {
    return { term: store.getTerm(arg), address: arg, origin: 'store' };
  }
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(arg);
  } catch (error) {
    throw ioError(error, arg, 'read');
  }
  try {
    return { term: readTerm(bytes), address: storeAddress(bytes), origin: 'file' };
  } catch (error) {
    throw isGcError(error) ? error.withLocation({ file: arg }) : error;
  }
}

function strAt(m: Term | undefined, ...path: string[]): string | undefined {
  let cur = m;
  for (const name of path) cur = cur?.kind === 'map' ? mapGetKw(cur, name) : undefined;
  return cur?.kind === 'str' ? cur.value : undefined;
}

/** Finds the store entry whose hash-term (BLAKE3 of the prefix and its bytes) is `h`. */
function findByHashTerm(store: EvidenceStore, h: string): string | undefined {
  for (const entry of store.list()) {
    if (hashTermOfPrint(store.get(entry.hex)) === h) return entry.hex;
  }
  return undefined;
}

/**
 * The store entries of `kind` whose string field `field` is `value` (a hex64), in store listing
 * order. Entries that do not contain `value` as bytes are skipped without parsing.
 */
function findByField(store: EvidenceStore, kind: string, field: string, value: string): string[] {
  const marker = Buffer.from(value, 'utf8');
  const found: string[] = [];
  for (const entry of store.list()) {
    const bytes = store.get(entry.hex);
    if (Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).indexOf(marker) < 0) continue;
    let t: Term;
    try {
      t = readTerm(bytes);
    } catch {
      continue;
    }
    if (strAt(t, 'kind') === kind && strAt(t, field) === value) found.push(entry.hex);
  }
  return found;
}

/**
 * Finds and admits the request of a plan report in `store`: the entry whose hash-term is the
 * report's `:request-h`. The verifier still checks the binding.
 * @throws GcError `refactor/request-not-found` (exit 10) when no such entry is stored; admission
 *   errors of `decodeRefactorRequest`; `core/store/*`.
 */
export function findRefactorRequest(report: Term, store: EvidenceStore): RefactorRequest {
  const kind = strAt(report, 'kind');
  if (kind !== undefined && kind !== REFACTOR_REPORT_KIND) {
    throw new GcError(
      RefactorErrorCode.requestNotFound,
      `this is a ${kind} entry, not a refactor plan report (${REFACTOR_REPORT_KIND}); give the report that gcpatch refactor plan ` +
        "stored or wrote with --out (gcpatch store ls lists each entry's kind)",
      { exitCode: ExitCode.invalidInput, location: { file: store.dir } },
    );
  }
  const requestH = strAt(report, 'request-h');
  const found = requestH !== undefined && isHex64(requestH) ? findByHashTerm(store, requestH) : undefined;
  if (found === undefined) {
    throw new GcError(
      RefactorErrorCode.requestNotFound,
      `the refactor request whose hash-term is the report's :request-h ${requestH ?? '(none)'} is not in ${store.dir}; pass it with --request FILE, or re-plan with gcpatch refactor plan`,
      { exitCode: ExitCode.invalidInput, location: { file: store.dir } },
    );
  }
  return decodeRefactorRequest(store.getTerm(found));
}

/** The three artifacts of one refactor as found in a store (addresses; `undefined` = not stored). */
export interface RefactorEvidence {
  request: string | undefined;
  report: string | undefined;
  /** Apply reports whose `:patch-h` is the plan report's, in store listing order. */
  applyReports: string[];
}

/**
 * Given the store address of a refactor request, plan report or apply report, finds the other
 * artifacts of the same refactor (see the module doc for the links followed).
 * @returns the request and plan report addresses (`undefined` when not stored; the report is the
 *   one the current planner gives for the request when several are stored) and the apply reports.
 * @throws GcError `refactor/request-not-found` (exit 10) when `address` is none of the three kinds,
 *   or no stored plan report or request links to it; `core/store/*`.
 */
export function findRefactorEvidence(store: EvidenceStore, address: string): RefactorEvidence {
  const term = store.getTerm(address);
  const kind = strAt(term, 'kind');
  let request: RefactorRequest;
  let report: string | undefined;
  if (kind === REFACTOR_REQUEST_KIND) {
    request = decodeRefactorRequest(term);
  } else if (kind === REFACTOR_REPORT_KIND) {
    request = findRefactorRequest(term, store);
    report = address;
  } else if (kind === APPLY_REPORT_KIND) {
    const patchH = strAt(term, 'patch-h');
    const plans = patchH !== undefined && isHex64(patchH) ? findByField(store, REFACTOR_REPORT_KIND, 'patch-h', patchH) : [];
    if (plans.length === 0) {
      throw new GcError(
        RefactorErrorCode.requestNotFound,
        `no refactor plan report in ${store.dir} has the :patch-h ${patchH ?? '(none)'} of apply report ${address}: it did not apply a stored refactor plan`,
        { exitCode: ExitCode.invalidInput, location: { file: store.dir } },
      );
    }
    report = plans[0]!;
    request = findRefactorRequest(store.getTerm(report), store);
  } else {
    throw new GcError(
      RefactorErrorCode.requestNotFound,
      `store entry ${address} is not a refactor request, plan report or apply report (kind ${kind ?? 'none'})`,
      { exitCode: ExitCode.invalidInput, location: { file: store.dir } },
    );
  }
  if (report === undefined) {
    const current = termIdentity(planRefactor(request).report).address;
    const stored = findByField(store, REFACTOR_REPORT_KIND, 'request-h', request.requestH);
    report = stored.includes(current) ? current : stored[0];
  }
  const patchH = report === undefined ? undefined : strAt(store.getTerm(report), 'patch-h');
  const applyReports = patchH !== undefined && isHex64(patchH) ? findByField(store, APPLY_REPORT_KIND, 'patch-h', patchH) : [];
  return {
    request: store.has(request.address) ? request.address : undefined,
    report,
    applyReports,
  };
}
