/**
 * patch-normalize: decode a source `.gcpatch` term against the closed patch schema and produce its
 * normalized form and identities. Implements GenesisCode `docs/spec/PATCH_SCHEMA.md` "Canonical normalization and
 * identity" and docs/reference/patch-protocols.md §3.1–§3.2. The independent verifier is `normalize-verify.ts`.
 *
 * Normalization keeps the op order, `:intent`, `:provenance`, `:new`, `:path` and `:content`
 * untouched; converts symbol-or-string identifiers to non-empty strings; converts set-valued
 * vectors to sorted (UTF-8 byte order), duplicate-free string vectors; and writes every optional
 * field explicitly (`[]` or `nil`). The normalized patch is `{:intent :ops :provenance :version 1}`.
 */
import { decodeClosed, D, literal, type Decoder } from '../../coreform/closed.js';
import { hashTerm } from '../../coreform/hash.js';
import { int, kw, kwMap, NIL, str, TRUE, vec, type MapTerm, type Term, type VecTerm } from '../../coreform/term.js';
import { compareUtf8 } from '../../util/bytes.js';
import { portablePathProblem } from '../../workspace/path.js';
import { PatchCode, patchError, withPatchCodes } from './errors.js';
import { decodePath } from './path.js';

/** The fixed `:profile` of every patch authority protocol. */
export const PATCH_PROFILE = 'genesis/patch-authority-v0.1';
/** `:kind` of a patch-normalize request. */
export const NORMALIZE_REQUEST_KIND = 'genesis/patch-normalize-request-v0.1';
/** `:kind` of a patch-normalize report. */
export const NORMALIZE_REPORT_KIND = 'genesis/patch-normalize-v0.1';

/** The eleven operation names (without the colon), in GenesisCode `docs/spec/PATCH_SCHEMA.md` order. */
export const OP_NAMES = [
  'replace-node',
  'replace-node-id',
  'add-module',
  'remove-module',
  'update-manifest',
  'rename-symbol',
  'move-module',
  'split-module',
  'rewrite-imports',
  'rewrite-exports',
  'migrate-contract-signature',
] as const;
/** One operation name, e.g. `'rename-symbol'`. */
export type OpName = (typeof OP_NAMES)[number];

/** One op's identity: its 0-based position and hash-term of the normalized op map (hex64). */
export interface OpIdentity {
  ordinal: number;
  opH: string;
}

/** The result of {@link normalizePatch}. Hashes are lowercase hex64 hash-term values. */
export interface NormalizedPatch {
  /** `{:intent :ops :provenance :version 1}` with every op normalized. */
  normalized: MapTerm;
  /** hash-term(normalized). */
  patchH: string;
  /** hash-term(source patch as given). */
  sourcePatchH: string;
  /** One identity per op, in op order. */
  opIdentities: OpIdentity[];
  /** The normalized op maps, in execution order (the same terms as `normalized`'s `:ops`). */
  ops: MapTerm[];
}

// ---------------------------------------------------------------------------------------------
// Field decoders that produce normalized terms.

type FieldNormalizer = Decoder<Term>;

/** A portable module path string (kept as is). */
const modulePath: FieldNormalizer = (t, at) => {
  if (t.kind !== 'str') throw patchError(PatchCode.wrongType, `${at} must be a string, got ${t.kind}`, { at });
  const problem = portablePathProblem(t.value);
  if (problem !== undefined) {
    throw patchError(PatchCode.nonPortablePath, `${at} ${JSON.stringify(t.value)} ${problem}; use a relative path with / separators`, { at });
  }
  return t;
};

function identifierText(t: Term, at: string): string {
  let text: string;
  if (t.kind === 'str') text = t.value;
  else if (t.kind === 'sym') text = t.name;
  else throw patchError(PatchCode.wrongType, `${at} must be a symbol or a string, got ${t.kind}`, { at });
  if (text.length === 0) throw patchError(PatchCode.emptyIdentifier, `${at} must not be empty`, { at });
  return text;
}

/** A symbol-or-string identifier → non-empty string. */
const identifier: FieldNormalizer = (t, at) => str(identifierText(t, at));

/** A vector of identifiers → sorted (UTF-8 bytes), duplicate-free string vector. */
function identifierSet(options: { nonEmpty: boolean }): FieldNormalizer {
  return (t, at) => {
    if (t.kind !== 'vec') throw patchError(PatchCode.wrongType, `${at} must be a vector of symbols or strings, got ${t.kind}`, { at });
    if (options.nonEmpty && t.items.length === 0) throw patchError(PatchCode.emptyIdentifier, `${at} must not be empty`, { at });
    const names = [...new Set(t.items.map((item, i) => identifierText(item, `${at}[${i}]`)))];
    names.sort(compareUtf8);
    return vec(names.map(str));
  };
}
const stringSet = identifierSet({ nonEmpty: false });
const nonEmptyStringSet = identifierSet({ nonEmpty: true });

/** `nil`, or what `inner` accepts. */
function orNil(inner: FieldNormalizer): FieldNormalizer {
  return (t, at) => (t.kind === 'nil' ? NIL : inner(t, at));
}

const anyTerm: FieldNormalizer = (t) => t;
const pathField: FieldNormalizer = (t, at) => {
  decodePath(t, at);
  return t;
};
const nodeId: FieldNormalizer = (t, at) => {
  if (t.kind !== 'str' || t.value.length !== 64) {
    throw patchError(PatchCode.wrongType, `${at} must be a 64-character node id string`, { at });
  }
  return t;
};
const content: FieldNormalizer = (t, at) => {
  if (t.kind !== 'str' && t.kind !== 'vec') {
    throw patchError(PatchCode.wrongType, `${at} must be a string of .gc source or a vector of forms, got ${t.kind}`, { at });
  }
  return t;
};
const mapOrNil: FieldNormalizer = (t, at) => {
  if (t.kind !== 'nil' && t.kind !== 'map') throw patchError(PatchCode.wrongType, `${at} must be a map or nil, got ${t.kind}`, { at });
  return t;
};
const nonEmptyStrOrNil: FieldNormalizer = (t, at) => {
  if (t.kind === 'nil') return t;
  if (t.kind !== 'str') throw patchError(PatchCode.wrongType, `${at} must be a string or nil, got ${t.kind}`, { at });
  if (t.value.length === 0) throw patchError(PatchCode.emptyIdentifier, `${at} must not be empty`, { at });
  return t;
};

/** One op's closed schema: required fields, and optional fields with the default they normalize to. */
interface OpSchema {
  required: Record<string, FieldNormalizer>;
  optional: Record<string, { decode: FieldNormalizer; absent: Term }>;
}

const EMPTY_VEC = vec([]);

/** `:rewrite-imports` and `:rewrite-exports` share one schema: they edit one `::meta` list each. */
const META_LIST_OP: OpSchema = {
  required: { 'module-path': modulePath },
  optional: {
    add: { decode: stringSet, absent: EMPTY_VEC },
    remove: { decode: stringSet, absent: EMPTY_VEC },
    replace: { decode: orNil(stringSet), absent: NIL },
  },
};

const SCHEMAS: Record<OpName, OpSchema> = {
  'replace-node': { required: { 'module-path': modulePath, path: pathField, new: anyTerm }, optional: {} },
  'replace-node-id': { required: { 'module-path': modulePath, 'node-id': nodeId, new: anyTerm }, optional: {} },
  'add-module': { required: { 'module-path': modulePath, content }, optional: {} },
  'remove-module': { required: { 'module-path': modulePath }, optional: {} },
  'update-manifest': {
    required: {},
    optional: {
      set: { decode: mapOrNil, absent: NIL },
      'obligations-add': { decode: stringSet, absent: EMPTY_VEC },
      'obligations-remove': { decode: stringSet, absent: EMPTY_VEC },
      'tests-add': { decode: stringSet, absent: EMPTY_VEC },
      'tests-remove': { decode: stringSet, absent: EMPTY_VEC },
      'caps-policy': { decode: nonEmptyStrOrNil, absent: NIL },
    },
  },
  'rename-symbol': { required: { 'module-path': modulePath, from: identifier, to: identifier }, optional: {} },
  'move-module': { required: { 'from-module-path': modulePath, 'to-module-path': modulePath }, optional: {} },
  'split-module': {
    required: { 'from-module-path': modulePath, 'to-module-path': modulePath, symbols: nonEmptyStringSet },
    optional: {},
  },
  'rewrite-imports': META_LIST_OP,
  'rewrite-exports': META_LIST_OP,
  'migrate-contract-signature': {
    required: { 'module-path': modulePath, 'contract-symbol': identifier, 'from-param': identifier, 'to-param': identifier },
    optional: {},
  },
};

/** The exact key set (without colons, sorted) of a normalized op of kind `op`, `:op` included. */
export function normalizedOpFields(op: OpName): string[] {
  const s = SCHEMAS[op];
  return ['op', ...Object.keys(s.required), ...Object.keys(s.optional)].sort();
}

function opName(t: Term | undefined, at: string): OpName {
  if (t === undefined) throw patchError(PatchCode.missingField, `${at} is missing key :op`, { at: `${at} :op` });
  if (t.kind !== 'sym') throw patchError(PatchCode.wrongType, `${at} :op must be a symbol such as :replace-node, got ${t.kind}`, { at });
  const name = t.name.startsWith(':') ? t.name.slice(1) : undefined;
  if (name === undefined || !(OP_NAMES as readonly string[]).includes(name)) {
    throw patchError(PatchCode.unknownOp, `${at} has unknown op ${t.name}; known ops: ${OP_NAMES.map((n) => ':' + n).join(' ')}`, {
      at: `${at} :op`,
    });
  }
  return name as OpName;
}

/**
 * Normalizes one op map.
 * @param source the op term; @param ordinal its 0-based position (for messages).
 * @returns the normalized op map with exactly the op's field set.
 * @throws GcError `patch/*` schema codes.
 */
export function normalizeOp(source: Term, ordinal: number): MapTerm {
  const at = `op ${ordinal}`;
  if (source.kind !== 'map') throw patchError(PatchCode.wrongType, `${at} must be a map, got ${source.kind}`, { at });
  const opEntry = source.entries.find(([k]) => k.kind === 'sym' && k.name === ':op');
  const name = opName(opEntry?.[1], at);
  const schema = SCHEMAS[name];
  const spec: Record<string, Decoder<Term>> = { op: (t) => t };
  for (const [field, decode] of Object.entries(schema.required)) spec[field] = decode;
  for (const [field, opt] of Object.entries(schema.optional)) spec[field] = opt.decode;
  const decoded = withPatchCodes(() => decodeClosed(source, spec, `${at} (:${name})`, { optional: Object.keys(schema.optional) })) as Record<
    string,
    Term | undefined
  >;
  const fields: Record<string, Term> = { op: kw(name) };
  for (const field of Object.keys(schema.required)) fields[field] = decoded[field]!;
  for (const [field, opt] of Object.entries(schema.optional)) fields[field] = decoded[field] ?? opt.absent;
  return kwMap(fields);
}

/**
 * Normalizes a source patch term (GenesisCode `docs/spec/PATCH_SCHEMA.md` "Canonical normalization and identity").
 * @param source the `.gcpatch` term as read (`readTerm`, not canonicalized).
 * @returns the normalized patch, its hash-term `patchH`, the source's hash-term `sourcePatchH`,
 *   the ordered op identities and the normalized op maps.
 * @throws GcError (exit 10) `patch/wrong-type` (not a map, or a field of the wrong kind),
 *   `patch/missing-field`, `patch/unknown-field`, `patch/unsupported-version` (`:version` ≠ 1),
 *   `patch/unknown-op`, `patch/empty-identifier`, `patch/non-portable-path`, `patch/invalid-path`.
 * @example normalizePatch(readTerm('{:version 1 :intent "x" :provenance {} :ops []}')).patchH
 */
export function normalizePatch(source: Term): NormalizedPatch {
  let n = normalizedBySource.get(source);
  if (n === undefined) {
    n = normalizeUncached(source);
    normalizedBySource.set(source, n);
  }
  // fresh arrays: a caller may rearrange its copy; the terms themselves are immutable
  return { ...n, opIdentities: n.opIdentities.map((id) => ({ ...id })), ops: [...n.ops] };
}

/**
 * Normalizations already made, by source term (terms are immutable): the apply normalizes the same
 * normalized patch in its preflight and again in its apply report.
 */
const normalizedBySource = new WeakMap<Term, NormalizedPatch>();

function normalizeUncached(source: Term): NormalizedPatch {
  const top = withPatchCodes(() => decodeClosed(source, { version: D.int, intent: D.str, provenance: D.map, ops: D.vec }, 'patch'));
  if (top.version !== 1n) {
    throw patchError(PatchCode.unsupportedVersion, `patch :version must be 1 (GenesisCode v0.2 patches), got ${top.version}`, {
      at: ':version',
    });
  }
  const ops = top.ops.items.map((op, i) => normalizeOp(op, i));
  const normalized = kwMap({
    intent: str(top.intent),
    ops: vec(ops),
    provenance: top.provenance,
    version: int(1),
  });
  return {
    normalized,
    patchH: hashTerm(normalized),
    sourcePatchH: hashTerm(source),
    opIdentities: ops.map((op, ordinal) => ({ ordinal, opH: hashTerm(op) })),
    ops,
  };
}

/** `[{:op-h hex :ordinal i} …]`: the `:op-identities` vector of reports. */
export function opIdentitiesTerm(ids: readonly OpIdentity[]): VecTerm {
  return vec(ids.map((id) => kwMap({ 'op-h': str(id.opH), ordinal: int(id.ordinal) })));
}

/** Builds a patch-normalize request `{:kind :patch :profile :v 1}` for `patch`. */
export function normalizeRequest(patch: Term): MapTerm {
  return kwMap({ kind: str(NORMALIZE_REQUEST_KIND), patch, profile: str(PATCH_PROFILE), v: int(1) });
}

/**
 * The patch-normalize producer: decodes the closed request and returns the closed report
 * `{:kind "genesis/patch-normalize-v0.1" :normalized-patch :ok true :op-identities :patch-h
 * :profile :source-patch-h :v 1}`.
 * @throws GcError `core/closed/*` for a malformed request; the `patch/*` codes of
 *   {@link normalizePatch} for a rejected patch.
 */
export function normalizeReport(request: Term): MapTerm {
  const req = decodeClosed(
    request,
    { kind: literal(str(NORMALIZE_REQUEST_KIND)), patch: D.any, profile: literal(str(PATCH_PROFILE)), v: literal(int(1)) },
    'patch-normalize request',
  );
  const n = normalizePatch(req.patch);
  return normalizedReportTerm(n);
}

/** The report term of an already computed normalization (see {@link normalizeReport}). */
export function normalizedReportTerm(n: NormalizedPatch): MapTerm {
  return kwMap({
    kind: str(NORMALIZE_REPORT_KIND),
    'normalized-patch': n.normalized,
    ok: TRUE,
    'op-identities': opIdentitiesTerm(n.opIdentities),
    'patch-h': str(n.patchH),
    profile: str(PATCH_PROFILE),
    'source-patch-h': str(n.sourcePatchH),
    v: int(1),
  });
}

/** The op name (without colon) of a normalized op map. */
export function opNameOf(op: MapTerm): OpName {
  const t = op.entries.find(([k]) => k.kind === 'sym' && k.name === ':op')?.[1];
  return (t as { name: string }).name.slice(1) as OpName;
}
