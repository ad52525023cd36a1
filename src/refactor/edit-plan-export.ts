/**
 * Edit-plan export: a verified refactor plan's renames as a `weavatrix.edit-plan.v1` plan of exact
 * source ranges, so editors and reviewers can apply or preview the rename without reformatting
 * the files (comments and layout are kept). Implements weavatrix.edit-plan.v1 "Envelope",
 * "Position rules" for the `:rename-symbol` ops of GenesisCode `docs/spec/SEMANTIC_REFACTOR_PLAN_v0.1.md`.
 *
 * Every edit replaces one symbol token (found by `symbol-sites.ts`) whose text is the source
 * symbol with the destination symbol; provenance `RESOLVED` (the range is resolved to a canonical
 * symbol term), or `LEXICAL_EXACT` for the rare token that yields no term because a later equal
 * key of the same map literal overwrites its entry (it is renamed so that it stays overwritten).
 * Before returning, the export proves its own claim for every file: applying the
 * edits and canonicalizing gives exactly the module the patch engine's `:rename-symbol` produces.
 * move/extract plans also split a module and rewrite the manifest, which range edits cannot
 * express: their export holds the renames only and says `"completeness": "PARTIAL"`.
 */
import { canonicalizeModule, canonicalizeSource } from '../coreform/canon.js';
import { formsEqual } from '../coreform/forms.js';
import type { Term } from '../coreform/term.js';
import { LineIndex } from '../editplan/positions.js';
import { SCHEMA_VERSION, type EditPlan, type FileEdit, type JsonValue, type TextEdit } from '../editplan/model.js';
import { validateEditPlan } from '../editplan/validate.js';
import { renameSymbolInForms } from '../patch/ops/rename-symbol.js';
import { GcError, isGcError } from '../util/errors.js';
import { sha256Hex } from '../util/sha256.js';
import { RefactorErrorCode } from './codes.js';
import { findSymbolSites, type SymbolSite } from './symbol-sites.js';
import type { VerifiedRefactorReport } from './verify.js';

/** One module's current source, as read from disk (or a git revision). */
export interface EditPlanSource {
  modulePath: string;
  bytes: Uint8Array;
}

/** Options of {@link refactorEditPlan}. */
export interface EditPlanExportOptions {
  /**
   * Prefix joined with `/` before every module path, e.g. the package directory relative to the
   * repository root (`"pkgs/app"`). Default `""`: paths relative to the package directory.
   */
  pathPrefix?: string;
}

const decoder = new TextDecoder('utf-8', { fatal: true });

function unmappable(modulePath: string, message: string): GcError {
  return new GcError(RefactorErrorCode.editPlanUnmappable, `${modulePath}: ${message}`, { location: { file: modulePath } });
}

/** UTF-16 offsets of ascending UTF-8 byte offsets of `bytes` (one pass). */
function utf16Offsets(bytes: Uint8Array, byteOffsets: readonly number[]): number[] {
  const out: number[] = [];
  let units = 0;
  let b = 0;
  for (const target of byteOffsets) {
    for (; b < target; b++) {
      const c = bytes[b]!;
      if (c < 0x80 || (c >= 0xc0 && c < 0xf0)) units += 1;
      else if (c >= 0xf0) units += 2;
    }
    out.push(units);
  }
  return out;
}

/** The source with every site replaced by `to` (sites ascending, non-overlapping). */
function splice(bytes: Uint8Array, sites: readonly SymbolSite[], to: Uint8Array): Uint8Array {
  const parts: Uint8Array[] = [];
  let at = 0;
  for (const s of sites) {
    parts.push(bytes.subarray(at, s.start), to);
    at = s.end;
  }
  parts.push(bytes.subarray(at));
  return Buffer.concat(parts);
}

/**
 * The exact token edits that rename `from` to `to` in one affected module, after checking that the
 * source still reads as the planned forms and that renaming the tokens gives the same canonical
 * module as `:rename-symbol` on the forms.
 * @throws GcError `refactor/stale-plan` (exit 50), `refactor/edit-plan-unmappable`.
 */
function moduleEdits(modulePath: string, bytes: Uint8Array, forms: readonly Term[], from: string, to: string, toBytes: Uint8Array): TextEdit[] {
  let current: Term[];
  try {
    current = canonicalizeSource(bytes);
  } catch (error) {
    throw new GcError(RefactorErrorCode.stalePlan, `${modulePath} no longer reads as the planned module: ${isGcError(error) ? error.message : String(error)}`, {
      exitCode: 50,
      location: { file: modulePath },
    });
  }
  if (!formsEqual(current, forms)) {
    throw new GcError(RefactorErrorCode.stalePlan, `${modulePath} changed since the plan was made; plan again`, {
      exitCode: 50,
      location: { file: modulePath },
    });
  }
  const sites = findSymbolSites(bytes, from);
  const renamed = renameSymbolInForms(forms, from, to);
  const surviving = sites.filter((s) => s.survives).length;
  if (surviving !== renamed.count) {
    throw unmappable(modulePath, `found ${surviving} ${from} tokens in the source but ${renamed.count} terms in its canonical forms`);
  }
  let expected: Term[];
  let edited: Term[];
  try {
    expected = canonicalizeModule(renamed.forms);
    edited = canonicalizeSource(splice(bytes, sites, toBytes));
  } catch (error) {
    throw unmappable(modulePath, `renaming the tokens does not give a readable module: ${isGcError(error) ? error.message : String(error)}`);
  }
  if (!formsEqual(edited, expected)) {
    throw unmappable(modulePath, 'renaming the tokens does not give the same canonical module as :rename-symbol');
  }
  const text = decoder.decode(bytes);
  const lines = new LineIndex(text);
  const offsets = utf16Offsets(
    bytes,
    sites.flatMap((s) => [s.start, s.end]),
  );
  const edits: TextEdit[] = sites.map((site, k) => {
    const start = lines.positionOf(offsets[2 * k]!);
    const end = lines.positionOf(offsets[2 * k + 1]!);
    const provenance = site.survives ? 'RESOLVED' : 'LEXICAL_EXACT';
    return { startLine: start.line, startChar: start.char, endLine: end.line, endChar: end.char, before: from, after: to, provenance };
  });
  return edits;
}

/**
 * Builds the edit plan of a verified safe report.
 * @param verified the output of `verifyRefactorReport` (must be safe).
 * @param sources the current bytes of (at least) every affected module; each must canonicalize to
 *   the request's forms for that module.
 * @param options see {@link EditPlanExportOptions}.
 * @returns the plan: `operation` `rename_symbol` (or `move_symbol`/`extract_symbol`, PARTIAL), one
 *   file per affected module in manifest order with `sha256` of its bytes, edits in source order
 *   (lines 1-based, characters 0-based UTF-16 units), and a plan extension `gcpatch` naming the
 *   refactor, its request-h, report address and patch-h. Validated with budgets raised to fit.
 * @throws GcError `refactor/plan-conflicted` for a conflicted report; `refactor/stale-plan` (exit
 *   50) when a source no longer matches the request; `refactor/edit-plan-unmappable` when the rename
 *   cannot be expressed as exact token edits (e.g. the edit would make a `fn` parameter list
 *   repeat a name, which canonical forms allow but the source syntax does not).
 */
export function refactorEditPlan(verified: VerifiedRefactorReport, sources: readonly EditPlanSource[], options: EditPlanExportOptions = {}): EditPlan {
  if (!verified.safe) {
    throw new GcError(RefactorErrorCode.planConflicted, 'a conflicted refactor plan has no edits to export');
  }
  const { request } = verified;
  const from = request.fromSymbol;
  const to = request.toSymbol;
  const toBytes = new TextEncoder().encode(to);
  const byPath = new Map(sources.map((s) => [s.modulePath, s.bytes]));
  const formsByPath = new Map(request.modules.map((m) => [m.modulePath, m.forms.items]));
  const prefix = options.pathPrefix === undefined || options.pathPrefix === '' ? '' : `${options.pathPrefix.replace(/\/+$/, '')}/`;
  const files: FileEdit[] = [];
  let maxEdits = 0;
  for (const modulePath of verified.affectedModules) {
    const bytes = byPath.get(modulePath);
    if (bytes === undefined) throw unmappable(modulePath, 'no source was given for this affected module');
    const edits = moduleEdits(modulePath, bytes, formsByPath.get(modulePath)!, from, to, toBytes);
    maxEdits = Math.max(maxEdits, edits.length);
    files.push({ path: prefix + modulePath, sha256: sha256Hex(bytes), edits });
  }
  const rename = request.refactorKind === 'rename';
  const info: Record<string, JsonValue> = {
    refactorKind: request.refactorKind,
    fromSymbol: from,
    toSymbol: to,
    requestH: request.requestH,
    reportAddress: verified.address,
    patchH: verified.patchH,
    replacementCount: verified.replacementCount,
  };
  if (!rename) {
    info.targetModulePath = request.targetModulePath;
    info.notCovered = ['split-module', 'update-manifest'];
  }
  const plan: EditPlan = {
    schemaVersion: SCHEMA_VERSION,
    operation: `${request.refactorKind}_symbol`,
    files,
    completeness: rename ? 'COMPLETE' : 'PARTIAL',
    extensions: new Map<string, JsonValue>([['gcpatch', info]]),
  };
  const totalEdits = files.reduce((a, f) => a + f.edits.length, 0);
  validateEditPlan(plan, {
    maxFiles: Math.max(500, files.length),
    maxEditsPerFile: Math.max(2000, maxEdits),
    maxTotalEdits: Math.max(1_000_000, totalEdits),
  });
  return plan;
}
