/**
 * The signing artifacts of GenesisCode v0.2, byte for byte (docs/reference/signing.md; GenesisCode
 * `docs/spec/SIGNING.md`, `TRANSPARENCY_LOG.md`, `REGISTRY_POLICY.md`): the signed message, the
 * acceptance signature term, the transparency entry term and the signature set. Pure: no files.
 * The readers are closed (exactly the spec's fields, each of its kind and size) and fail with a
 * reason string rather than guessing: a malformed artifact never reads as absent or empty.
 */
import { bytes, kw, kwMap, mapGet, NIL, str, vec, type MapTerm, type Term } from '../coreform/term.js';
import { printTerm } from '../coreform/print.js';
import { compareUtf8, fromHex, isHex64, toHex, utf8 } from '../util/bytes.js';

/** `:kind` of an acceptance signature. */
export const SIGNATURE_KIND = 'genesis/acceptance-signature-v0.2';
/** `:kind` of a transparency entry. */
export const TRANSPARENCY_ENTRY_KIND = 'genesis/transparency-entry-v0.2';
/** The domain-separation prefix of the signed message: `GCv0.2 NUL acceptance NUL`. */
export const ACCEPTANCE_MESSAGE_PREFIX = utf8('GCv0.2\0acceptance\0');

/** The bytes an acceptance signature signs: the prefix, then the 32 bytes of the acceptance address. */
export function acceptanceMessage(acceptance: Uint8Array): Uint8Array {
  if (acceptance.length !== 32) throw new RangeError('an acceptance address has 32 bytes');
  const out = new Uint8Array(ACCEPTANCE_MESSAGE_PREFIX.length + 32);
  out.set(ACCEPTANCE_MESSAGE_PREFIX, 0);
  out.set(acceptance, ACCEPTANCE_MESSAGE_PREFIX.length);
  return out;
}

/** One acceptance signature: 32-byte acceptance address, 32-byte public key, 64-byte signature. */
export interface AcceptanceSignature {
  acceptance: Uint8Array;
  publicKey: Uint8Array;
  signature: Uint8Array;
}

/** The `genesis/acceptance-signature-v0.2` term (`:kind :alg :acceptance-h :pk :sig`). */
export function signatureTerm(s: AcceptanceSignature): MapTerm {
  return kwMap({ kind: str(SIGNATURE_KIND), alg: str('ed25519'), 'acceptance-h': bytes(s.acceptance), pk: bytes(s.publicKey), sig: bytes(s.signature) });
}

/** The keys of a map term as keyword names, or undefined when one is not a keyword. */
function keywordKeys(t: MapTerm): string[] | undefined {
  const out: string[] = [];
  for (const [k] of t.entries) {
    if (k.kind !== 'sym' || !k.name.startsWith(':')) return undefined;
    out.push(k.name.slice(1));
  }
  return out.sort(compareUtf8);
}

function exactKeys(t: Term, keys: readonly string[]): t is MapTerm {
  if (t.kind !== 'map') return false;
  const have = keywordKeys(t);
  const want = [...keys].sort(compareUtf8);
  return have !== undefined && have.length === want.length && have.every((k, i) => k === want[i]);
}

function bytesField(t: MapTerm, name: string, size: number): Uint8Array | undefined {
  const v = mapGet(t, kw(name));
  return v?.kind === 'bytes' && v.value.length === size ? v.value : undefined;
}

/** The result of a closed reader: the value, or why the term is not one. */
export type Parsed<T> = { ok: true; value: T } | { ok: false; reason: string };

/**
 * Reads a `genesis/acceptance-signature-v0.2` term: exactly its five fields, `:alg "ed25519"`,
 * `:acceptance-h` and `:pk` 32 bytes, `:sig` 64 bytes.
 */
export function parseSignatureTerm(t: Term): Parsed<AcceptanceSignature> {
  if (!exactKeys(t, ['kind', 'alg', 'acceptance-h', 'pk', 'sig'])) return { ok: false, reason: 'not a map of exactly :kind :alg :acceptance-h :pk :sig' };
  const kind = mapGet(t, kw('kind'));
  if (kind?.kind !== 'str' || kind.value !== SIGNATURE_KIND) return { ok: false, reason: `:kind is not "${SIGNATURE_KIND}"` };
  const alg = mapGet(t, kw('alg'));
  if (alg?.kind !== 'str' || alg.value !== 'ed25519') return { ok: false, reason: ':alg is not "ed25519"' };
  const acceptance = bytesField(t, 'acceptance-h', 32);
  const publicKey = bytesField(t, 'pk', 32);
  const signature = bytesField(t, 'sig', 64);
  if (acceptance === undefined) return { ok: false, reason: ':acceptance-h is not 32 bytes' };
  if (publicKey === undefined) return { ok: false, reason: ':pk is not 32 bytes' };
  if (signature === undefined) return { ok: false, reason: ':sig is not 64 bytes' };
  return { ok: true, value: { acceptance, publicKey, signature } };
}

/** One transparency entry. Addresses are 64 lowercase hex digits; `prev` is undefined for the first entry. */
export interface TransparencyEntry {
  prev: string | undefined;
  packageArtifact: string;
  acceptanceArtifact: string;
  signatureArtifact: string;
  signerPublicKeyB64: string;
}

/** The `genesis/transparency-entry-v0.2` term; `:prev-h` is the previous entry's 32 address bytes or nil. */
export function transparencyEntryTerm(e: TransparencyEntry): MapTerm {
  const prev = e.prev === undefined ? NIL : bytes(hexBytes(e.prev));
  return kwMap({
    kind: str(TRANSPARENCY_ENTRY_KIND),
    'prev-h': prev,
    'package-artifact': str(e.packageArtifact),
    'acceptance-artifact': str(e.acceptanceArtifact),
    'signature-artifact': str(e.signatureArtifact),
    'signer-pk-b64': str(e.signerPublicKeyB64),
  });
}

/**
 * Reads a transparency entry: exactly its six fields, `:prev-h` nil or 32 bytes, the three artifact
 * fields 64 lowercase hex digits, `:signer-pk-b64` the canonical base64 of 32 bytes.
 */
export function parseTransparencyEntry(t: Term): Parsed<TransparencyEntry> {
  if (!exactKeys(t, ['kind', 'prev-h', 'package-artifact', 'acceptance-artifact', 'signature-artifact', 'signer-pk-b64'])) {
    return { ok: false, reason: 'not a map of exactly :kind :prev-h :package-artifact :acceptance-artifact :signature-artifact :signer-pk-b64' };
  }
  const kind = mapGet(t, kw('kind'));
  if (kind?.kind !== 'str' || kind.value !== TRANSPARENCY_ENTRY_KIND) return { ok: false, reason: `:kind is not "${TRANSPARENCY_ENTRY_KIND}"` };
  const prevTerm = mapGet(t, kw('prev-h'))!;
  let prev: string | undefined;
  if (prevTerm.kind === 'bytes' && prevTerm.value.length === 32) prev = toHex(prevTerm.value);
  else if (prevTerm.kind !== 'nil') return { ok: false, reason: ':prev-h is neither nil nor 32 bytes' };
  const hex = (name: string): string | undefined => {
    const v = mapGet(t, kw(name));
    return v?.kind === 'str' && isHex64(v.value) ? v.value : undefined;
  };
  const packageArtifact = hex('package-artifact');
  const acceptanceArtifact = hex('acceptance-artifact');
  const signatureArtifact = hex('signature-artifact');
  if (packageArtifact === undefined || acceptanceArtifact === undefined || signatureArtifact === undefined) {
    return { ok: false, reason: 'an artifact field is not 64 lowercase hex digits' };
  }
  const pk = mapGet(t, kw('signer-pk-b64'));
  if (pk?.kind !== 'str' || decodeBase64Exact(pk.value, 32) === undefined) return { ok: false, reason: ':signer-pk-b64 is not the base64 of 32 bytes' };
  return { ok: true, value: { prev, packageArtifact, acceptanceArtifact, signatureArtifact, signerPublicKeyB64: pk.value } };
}

/**
 * The bytes of a signature set file: the canonical print of a vector of 64-hex strings, sorted and
 * deduplicated (no trailing newline, as the reference writes it).
 */
export function printSignatureSet(addresses: Iterable<string>): string {
  const sorted = [...new Set(addresses)].sort(compareUtf8);
  for (const a of sorted) if (!isHex64(a)) throw new RangeError(`${JSON.stringify(a)} is not a store address`);
  return printTerm(vec(sorted.map((a) => str(a))));
}

/**
 * Reads a signature set term: a vector of distinct 64 lowercase hex strings (any order). Anything
 * else — another kind, an entry of another kind or spelling, a duplicate — is malformed.
 */
export function parseSignatureSet(t: Term): Parsed<string[]> {
  if (t.kind !== 'vec') return { ok: false, reason: 'the signature set is not a vector' };
  const out: string[] = [];
  const seen = new Set<string>();
  for (const item of t.items) {
    if (item.kind !== 'str' || !isHex64(item.value)) return { ok: false, reason: 'an entry of the signature set is not a string of 64 lowercase hex digits' };
    if (seen.has(item.value)) return { ok: false, reason: `the signature set lists ${item.value} twice` };
    seen.add(item.value);
    out.push(item.value);
  }
  return { ok: true, value: out };
}

/** The canonical (padded, RFC 4648 §4) base64 of `data`. */
export function encodeBase64(data: Uint8Array): string {
  return Buffer.from(data).toString('base64');
}

/** Decodes canonical padded base64 of exactly `size` bytes; undefined for any other spelling. */
export function decodeBase64Exact(text: string, size: number): Uint8Array | undefined {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0) return undefined;
  const data = Buffer.from(text, 'base64');
  if (data.length !== size || data.toString('base64') !== text) return undefined;
  return new Uint8Array(data);
}

/** The 32 bytes of a 64-lowercase-hex address. */
export function hexBytes(hex: string): Uint8Array {
  const b = isHex64(hex) ? fromHex(hex) : undefined;
  if (b === undefined) throw new RangeError(`${JSON.stringify(hex)} is not a store address`);
  return b;
}
