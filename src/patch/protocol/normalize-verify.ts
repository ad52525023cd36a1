/**
 * The independent verifier of patch-normalize reports (GenesisCode `docs/spec/PATCH_SCHEMA.md` "Canonical normalization
 * and identity": "The host decoder must bind all hashes, ordinals, field sets, types, and
 * operation count to the request and normalized term before execution"). It shares no code with
 * the producer (`normalize.ts`): it re-derives every expectation from the request itself.
 */
import { decodeClosed, D, literal } from '../../coreform/closed.js';
import { hashTerm } from '../../coreform/hash.js';
import { int, mapGet, kw, str, termsEqual, type MapTerm, type Term } from '../../coreform/term.js';
import { compareUtf8, isHex64 } from '../../util/bytes.js';
import type { GcError } from '../../util/errors.js';
import { decodeReport, reportMismatch } from './report-check.js';
import { portablePathProblem } from '../../workspace/path.js';
import type { NormalizedPatch, OpIdentity } from './normalize.js';

const PROFILE = 'genesis/patch-authority-v0.1';

type FieldRule = 'path-string' | 'keep' | 'ident' | 'set' | 'set-nonempty' | 'set-or-nil' | 'node-id' | 'map-or-nil' | 'str-or-nil';

/** Per op: field → rule, and which fields may be absent from the source (with their default). */
const OP_FIELDS: Record<string, { rules: Record<string, FieldRule>; defaults: Record<string, 'nil' | 'empty'> }> = {
  ':replace-node': { rules: { 'module-path': 'path-string', path: 'keep', new: 'keep' }, defaults: {} },
  ':replace-node-id': { rules: { 'module-path': 'path-string', 'node-id': 'node-id', new: 'keep' }, defaults: {} },
  ':add-module': { rules: { 'module-path': 'path-string', content: 'keep' }, defaults: {} },
  ':remove-module': { rules: { 'module-path': 'path-string' }, defaults: {} },
  ':update-manifest': {
    rules: {
      set: 'map-or-nil',
      'obligations-add': 'set',
      'obligations-remove': 'set',
      'tests-add': 'set',
      'tests-remove': 'set',
      'caps-policy': 'str-or-nil',
    },
    defaults: { set: 'nil', 'caps-policy': 'nil', 'obligations-add': 'empty', 'obligations-remove': 'empty', 'tests-add': 'empty', 'tests-remove': 'empty' },
  },
  ':rename-symbol': { rules: { 'module-path': 'path-string', from: 'ident', to: 'ident' }, defaults: {} },
  ':move-module': { rules: { 'from-module-path': 'path-string', 'to-module-path': 'path-string' }, defaults: {} },
  ':split-module': {
    rules: { 'from-module-path': 'path-string', 'to-module-path': 'path-string', symbols: 'set-nonempty' },
    defaults: {},
  },
  ':rewrite-imports': {
    rules: { 'module-path': 'path-string', add: 'set', remove: 'set', replace: 'set-or-nil' },
    defaults: { add: 'empty', remove: 'empty', replace: 'nil' },
  },
  ':rewrite-exports': {
    rules: { 'module-path': 'path-string', add: 'set', remove: 'set', replace: 'set-or-nil' },
    defaults: { add: 'empty', remove: 'empty', replace: 'nil' },
  },
  ':migrate-contract-signature': {
    rules: { 'module-path': 'path-string', 'contract-symbol': 'ident', 'from-param': 'ident', 'to-param': 'ident' },
    defaults: {},
  },
};

const mismatch = (message: string, at?: string): GcError => reportMismatch('patch-normalize', message, at);

function kwGet(m: Term, name: string): Term | undefined {
  return m.kind === 'map' ? mapGet(m, kw(name)) : undefined;
}

function keyNames(m: MapTerm): string[] {
  return m.entries.map(([k]) => (k.kind === 'sym' && k.name.startsWith(':') ? k.name.slice(1) : `<${k.kind}>`));
}

function identText(t: Term): string | undefined {
  if (t.kind === 'str') return t.value.length > 0 ? t.value : undefined;
  if (t.kind === 'sym') return t.name.length > 0 ? t.name : undefined;
  return undefined;
}

/** Sorted unique identifier strings of a source vector, or undefined when it is not one. */
function expectedSet(source: Term, nonEmpty: boolean): string[] | undefined {
  if (source.kind !== 'vec') return undefined;
  const names: string[] = [];
  for (const item of source.items) {
    const text = identText(item);
    if (text === undefined) return undefined;
    names.push(text);
  }
  const unique = [...new Set(names)].sort(compareUtf8);
  if (nonEmpty && unique.length === 0) return undefined;
  return unique;
}

function isStrVec(t: Term, values: readonly string[]): boolean {
  return t.kind === 'vec' && t.items.length === values.length && t.items.every((x, i) => x.kind === 'str' && x.value === values[i]);
}

function checkField(rule: FieldRule, source: Term | undefined, normalized: Term, at: string): void {
  const fail = (why: string) => mismatch(`${at} ${why}`, at);
  switch (rule) {
    case 'path-string':
      if (source === undefined || source.kind !== 'str' || portablePathProblem(source.value) !== undefined) {
        throw fail('source is not a portable module path string');
      }
      if (!termsEqual(source, normalized)) throw fail('does not equal the source module path');
      return;
    case 'keep':
      if (source === undefined || !termsEqual(source, normalized)) throw fail('was not preserved from the source');
      return;
    case 'node-id':
      if (source === undefined || source.kind !== 'str' || source.value.length !== 64 || !termsEqual(source, normalized)) {
        throw fail('is not the source 64-character node id');
      }
      return;
    case 'ident': {
      const text = source === undefined ? undefined : identText(source);
      if (text === undefined) throw fail('source is not a non-empty symbol or string');
      if (normalized.kind !== 'str' || normalized.value !== text) throw fail(`must be the string ${JSON.stringify(text)}`);
      return;
    }
    case 'set':
    case 'set-nonempty':
    case 'set-or-nil': {
      if (rule === 'set-or-nil' && (source === undefined || source.kind === 'nil')) {
        if (normalized.kind !== 'nil') throw fail('must be nil');
        return;
      }
      const expected = source === undefined ? (rule === 'set' ? [] : undefined) : expectedSet(source, rule === 'set-nonempty');
      if (expected === undefined) throw fail('source is not a valid vector of symbols or strings');
      if (!isStrVec(normalized, expected)) throw fail('is not the sorted, duplicate-free string vector of the source');
      return;
    }
    case 'map-or-nil': {
      const want = source ?? { kind: 'nil' };
      if (want.kind !== 'nil' && want.kind !== 'map') throw fail('source must be a map or nil');
      if (!termsEqual(want, normalized)) throw fail('was not preserved from the source');
      return;
    }
    case 'str-or-nil': {
      const want = source ?? { kind: 'nil' };
      if (want.kind === 'str' ? want.value.length === 0 : want.kind !== 'nil') throw fail('source must be a non-empty string or nil');
      if (!termsEqual(want, normalized)) throw fail('was not preserved from the source');
      return;
    }
  }
}

function verifyOp(source: Term, normalized: Term, ordinal: number): void {
  const at = `op ${ordinal}`;
  if (source.kind !== 'map') throw mismatch(`${at}: source op is not a map`, at);
  if (normalized.kind !== 'map') throw mismatch(`${at}: normalized op is not a map`, at);
  const opSym = kwGet(source, 'op');
  const normOp = kwGet(normalized, 'op');
  if (opSym === undefined || opSym.kind !== 'sym' || OP_FIELDS[opSym.name] === undefined) {
    throw mismatch(`${at}: source op has no known :op`, at);
  }
  if (normOp === undefined || !termsEqual(opSym, normOp)) throw mismatch(`${at}: :op differs from the source`, at);
  const table = OP_FIELDS[opSym.name]!;
  const expectedKeys = ['op', ...Object.keys(table.rules)].sort();
  const gotKeys = keyNames(normalized);
  if (gotKeys.length !== expectedKeys.length || [...gotKeys].sort().some((k, i) => k !== expectedKeys[i])) {
    throw mismatch(`${at}: normalized field set {${gotKeys.join(' ')}} ≠ {${expectedKeys.join(' ')}}`, at);
  }
  for (const name of keyNames(source)) {
    if (name !== 'op' && table.rules[name] === undefined) throw mismatch(`${at}: source has unknown field :${name}`, at);
  }
  for (const [field, rule] of Object.entries(table.rules)) {
    const src = kwGet(source, field);
    if (src === undefined && table.defaults[field] === undefined) throw mismatch(`${at}: source lacks required :${field}`, at);
    checkField(rule, src, kwGet(normalized, field)!, `${at} :${field}`);
  }
}

/**
 * Verifies a patch-normalize report against its request and returns the decoded plan.
 * Checks: the closed report shape and fixed values; `:source-patch-h` = hash-term(request patch);
 * the normalized patch is `{:intent :ops :provenance :version 1}` with the source's intent,
 * provenance and op count; every op keeps its `:op`, has exactly its normalized field set, and every
 * field is bound to the source (identifiers as strings, sets sorted and unique, everything else
 * preserved); `:patch-h` = hash-term(normalized); `:op-identities` is exactly `[{:op-h :ordinal i}]`
 * with op-h = hash-term(op i).
 * @param request the closed patch-normalize request (`core/closed/*`, exit 10, when malformed).
 * @param report the report to check.
 * @returns the verified {@link NormalizedPatch}.
 * @throws GcError `patch/report-mismatch` (exit 50) for any malformed, unbound or mismatched report.
 */
export function verifyNormalizeReport(request: Term, report: Term): NormalizedPatch {
  const req = decodeClosed(
    request,
    {
      kind: literal(str('genesis/patch-normalize-request-v0.1')),
      patch: D.any,
      profile: literal(str(PROFILE)),
      v: literal(int(1)),
    },
    'patch-normalize request',
  );
  const rep = decodeReport(
    report,
    {
      kind: literal(str('genesis/patch-normalize-v0.1')),
      'normalized-patch': D.map,
      ok: literal({ kind: 'bool', value: true }),
      'op-identities': D.vec,
      'patch-h': D.hex64,
      profile: literal(str(PROFILE)),
      'source-patch-h': D.hex64,
      v: literal(int(1)),
    },
    'patch-normalize report',
    mismatch,
  );
  const source = req.patch;
  if (rep['source-patch-h'] !== hashTerm(source)) throw mismatch(':source-patch-h is not hash-term of the request patch', ':source-patch-h');
  const normalized = rep['normalized-patch'];
  const gotKeys = keyNames(normalized).join(' ');
  if (gotKeys !== 'intent ops provenance version') throw mismatch(`normalized patch keys are {${gotKeys}}`, ':normalized-patch');
  if (source.kind !== 'map') throw mismatch('request patch is not a map');
  const srcKeys = keyNames(source).join(' ');
  if (srcKeys !== 'intent ops provenance version') throw mismatch(`source patch keys are {${srcKeys}}`);
  if (!termsEqual(kwGet(source, 'version')!, int(1)) || !termsEqual(kwGet(normalized, 'version')!, int(1))) {
    throw mismatch(':version must be 1', ':version');
  }
  const srcIntent = kwGet(source, 'intent')!;
  if (srcIntent.kind !== 'str' || !termsEqual(srcIntent, kwGet(normalized, 'intent')!)) throw mismatch(':intent not preserved', ':intent');
  const srcProv = kwGet(source, 'provenance')!;
  if (srcProv.kind !== 'map' || !termsEqual(srcProv, kwGet(normalized, 'provenance')!)) {
    throw mismatch(':provenance not preserved', ':provenance');
  }
  const srcOps = kwGet(source, 'ops')!;
  const normOps = kwGet(normalized, 'ops')!;
  if (srcOps.kind !== 'vec' || normOps.kind !== 'vec') throw mismatch(':ops must be vectors', ':ops');
  if (srcOps.items.length !== normOps.items.length) {
    throw mismatch(`op count ${normOps.items.length} ≠ source op count ${srcOps.items.length}`, ':ops');
  }
  srcOps.items.forEach((op, i) => verifyOp(op, normOps.items[i]!, i));
  if (rep['patch-h'] !== hashTerm(normalized)) throw mismatch(':patch-h is not hash-term of the normalized patch', ':patch-h');
  const ids = rep['op-identities'].items;
  if (ids.length !== normOps.items.length) throw mismatch(`${ids.length} op identities for ${normOps.items.length} ops`, ':op-identities');
  const opIdentities: OpIdentity[] = ids.map((id, i) => {
    const at = `:op-identities[${i}]`;
    if (id.kind !== 'map' || keyNames(id).join(' ') !== 'op-h ordinal') throw mismatch(`${at} must be {:op-h :ordinal}`, at);
    const ordinal = kwGet(id, 'ordinal')!;
    const opH = kwGet(id, 'op-h')!;
    if (ordinal.kind !== 'int' || ordinal.value !== BigInt(i)) throw mismatch(`${at} :ordinal must be ${i}`, at);
    if (opH.kind !== 'str' || !isHex64(opH.value) || opH.value !== hashTerm(normOps.items[i]!)) {
      throw mismatch(`${at} :op-h is not hash-term of op ${i}`, at);
    }
    return { ordinal: i, opH: opH.value };
  });
  return {
    normalized,
    patchH: rep['patch-h'],
    sourcePatchH: rep['source-patch-h'],
    opIdentities,
    ops: normOps.items as MapTerm[],
  };
}
