/**
 * Refactor evidence in the package's content-addressed store (`<pkg>/.genesis/store/<blake3>`,
 * GENESIS_FACTS.md §5): storing the request and the plan report, and finding each of the three
 * artifacts (request, plan report, apply report) from any other.
 *
 * Linkage (docs/refactor.md "Evidence linkage"):
 * - plan report → request: `:request-h` = hash-term(request); a safe report's patch
 *   `:provenance {:refactor-plan-request <request address> :refactor-plan-request-h <request-h>}`
 *   names the request's store address. For a conflicted report (no patch) the store is searched
 *   for the entry whose hash-term is `:request-h` (hash-term of a stored term = BLAKE3("GCv0.2\0" ‖
 *   its stored bytes), so no parsing is needed).
 * - request → plan report: the plan is a pure function of the request, so the report's address is
 *   `termAddress(planRefactor(request).report)`.
 * - apply report → request: its `:provenance` is the patch's, so it names the request address;
 *   → plan report: as above (and its `:patch-h` equals the plan report's `:patch-h`).
 * - request or plan report → apply reports: the store entries of kind `genesis/patch-apply-v0.3`
 *   whose `:provenance :refactor-plan-request` is the request address.
 */
import { blake3 } from '@noble/hashes/blake3.js';
import { readFileSync } from 'node:fs';
import { HASH_TERM_PREFIX } from '../coreform/hash.js';
import { readTerm } from '../coreform/read.js';
import { mapGetKw, type Term } from '../coreform/term.js';
import { EvidenceStore } from '../store/store.js';
import { isHex64, toHex } from '../util/bytes.js';
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
    return { term: readTerm(bytes), address: toHex(blake3(bytes)), origin: 'file' };
  } catch (error) {
    throw isGcError(error) ? error.withLocation({ file: arg }) : error;
  }
}

function strAt(m: Term | undefined, ...path: string[]): string | undefined {
  let cur = m;
  for (const name of path) cur = cur?.kind === 'map' ? mapGetKw(cur, name) : undefined;
  return cur?.kind === 'str' ? cur.value : undefined;
}

/** The store address of the request a plan report's (or apply report's) patch provenance names. */
export function provenanceRequestAddress(reportOrApply: Term): string | undefined {
  const viaPatch = strAt(reportOrApply, 'patch', 'provenance', 'refactor-plan-request');
  const address = viaPatch ?? strAt(reportOrApply, 'provenance', 'refactor-plan-request');
  return address !== undefined && isHex64(address) ? address : undefined;
}

/** Finds the store entry whose hash-term (BLAKE3 of the prefix and its bytes) is `h`. */
function findByHashTerm(store: EvidenceStore, h: string): string | undefined {
  for (const entry of store.list()) {
    const hash = blake3.create();
    hash.update(HASH_TERM_PREFIX);
    hash.update(store.get(entry.hex));
    if (toHex(hash.digest()) === h) return entry.hex;
  }
  return undefined;
}

/**
 * Finds and admits the request of a plan report in `store`: the address its patch provenance
 * names, else the entry whose hash-term is its `:request-h`. The verifier still checks the binding.
 * @throws GcError `refactor/request-not-found` (exit 10) when neither is in the store; admission
 *   errors of `decodeRefactorRequest`; `core/store/*`.
 */
export function findRefactorRequest(report: Term, store: EvidenceStore): RefactorRequest {
  const address = provenanceRequestAddress(report);
  if (address !== undefined && store.has(address)) return decodeRefactorRequest(store.getTerm(address));
  const requestH = strAt(report, 'request-h');
  const found = requestH !== undefined && isHex64(requestH) ? findByHashTerm(store, requestH) : undefined;
  if (found === undefined) {
    throw new GcError(
      RefactorErrorCode.requestNotFound,
      `the refactor request of this report is not in ${store.dir}; pass it with --request FILE`,
      { exitCode: ExitCode.invalidInput, location: { file: store.dir } },
    );
  }
  return decodeRefactorRequest(store.getTerm(found));
}

/** The three artifacts of one refactor as found in a store (addresses; `undefined` = not stored). */
export interface RefactorEvidence {
  request: string | undefined;
  report: string | undefined;
  /** Apply reports whose provenance names the request, in store listing order. */
  applyReports: string[];
}

function kindOf(t: Term): string | undefined {
  return strAt(t, 'kind');
}

/**
 * Given the store address of a refactor request, plan report or apply report, finds the other
 * artifacts of the same refactor (see the module doc for the links followed).
 * @throws GcError `refactor/request-not-found` when `address` is none of the three kinds or its
 *   request cannot be found; `core/store/*`.
 */
export function findRefactorEvidence(store: EvidenceStore, address: string): RefactorEvidence {
  const term = store.getTerm(address);
  const kind = kindOf(term);
  let request: RefactorRequest;
  if (kind === REFACTOR_REQUEST_KIND) request = decodeRefactorRequest(term);
  else if (kind === REFACTOR_REPORT_KIND) request = findRefactorRequest(term, store);
  else if (kind === APPLY_REPORT_KIND) {
    const requestAddress = provenanceRequestAddress(term);
    if (requestAddress === undefined || !store.has(requestAddress)) {
      throw new GcError(RefactorErrorCode.requestNotFound, `apply report ${address} names no stored refactor request in its :provenance`);
    }
    request = decodeRefactorRequest(store.getTerm(requestAddress));
  } else {
    throw new GcError(RefactorErrorCode.requestNotFound, `store entry ${address} is not a refactor request, plan report or apply report (kind ${kind ?? 'none'})`);
  }
  const reportAddress = termIdentity(planRefactor(request).report).address;
  const applyReports: string[] = [];
  const marker = new TextEncoder().encode(request.address);
  for (const entry of store.list()) {
    const bytes = store.get(entry.hex);
    if (Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).indexOf(marker) < 0) continue;
    let t: Term;
    try {
      t = readTerm(bytes);
    } catch {
      continue;
    }
    if (kindOf(t) === APPLY_REPORT_KIND && provenanceRequestAddress(t) === request.address) applyReports.push(entry.hex);
  }
  return {
    request: store.has(request.address) ? request.address : undefined,
    report: store.has(reportAddress) ? reportAddress : undefined,
    applyReports,
  };
}

