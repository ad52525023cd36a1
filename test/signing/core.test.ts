/**
 * The signing core against the reference's rules (docs/reference/signing.md): RFC 8032 test
 * vectors, the exact bytes and store addresses of signature terms, transparency entries and
 * signature sets (expected bytes built here by hand from GenesisCode's printer rules,
 * docs/reference/coreform.md §1.5, and hashed with @noble/hashes, not with src/coreform), and every
 * malformed form failing closed.
 */
import { blake3 } from '@noble/hashes/blake3.js';
import { chmodSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readTerm } from '../../src/coreform/read.js';
import { kwMap, str, bytes as bytesTerm, NIL, vec } from '../../src/coreform/term.js';
import { printTerm } from '../../src/coreform/print.js';
import { EvidenceStore } from '../../src/store/store.js';
import {
  acceptanceMessage,
  checkSignatures,
  decodeBase64Exact,
  parseKeyFile,
  parsePolicy,
  parseSignatureSet,
  parseSignatureTerm,
  parseTransparencyEntry,
  printKeyFile,
  printSignatureSet,
  publicKeyOf,
  readKeyFile,
  signatureTerm,
  signMessage,
  storeReader,
  transparencyEntryTerm,
  verifySignature,
  walkChain,
  writeKeyFile,
  parseHead,
  parseSignatureSetText,
  type ArtifactReader,
} from '../../src/signing/index.js';

const hex = (h: string): Uint8Array => new Uint8Array(Buffer.from(h, 'hex'));
const toHex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const b3 = (s: string): string => toHex(blake3(new TextEncoder().encode(s)));

// RFC 8032 §7.1, TEST 1-3.
const RFC = [
  {
    sk: '9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60',
    pk: 'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a',
    msg: '',
    sig: 'e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b',
  },
  {
    sk: '4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb',
    pk: '3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c',
    msg: '72',
    sig: '92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00',
  },
  {
    sk: 'c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7',
    pk: 'fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025',
    msg: 'af82',
    sig: '6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a',
  },
];

/** GenesisCode's bytes literal: printable ASCII raw (escaping \\ \" \n \r \t), every other octet \xNN upper-case. */
function bytesLiteral(b: Uint8Array): string {
  let out = 'b"';
  for (const x of b) {
    if (x === 0x5c) out += '\\\\';
    else if (x === 0x22) out += '\\"';
    else if (x === 0x0a) out += '\\n';
    else if (x === 0x0d) out += '\\r';
    else if (x === 0x09) out += '\\t';
    else if (x >= 0x20 && x < 0x7f) out += String.fromCharCode(x);
    else out += '\\x' + x.toString(16).toUpperCase().padStart(2, '0');
  }
  return out + '"';
}

/** A map of atoms printed as the reference does: each entry on one line when `  key value` fits in 100 bytes, else key two in and value four in; `}` closes the last line. */
function mapOfAtoms(entries: [string, string][]): string {
  const lines = ['{'];
  for (const [k, v] of entries) {
    if (2 + Buffer.byteLength(`${k} ${v}`) <= 100) lines.push(`  ${k} ${v}`);
    else lines.push(`  ${k}`, `    ${v}`);
  }
  return lines.join('\n') + '}';
}

const ACCEPTANCE = b3('an acceptance');
const PKG = b3('a package record');

describe('Ed25519 (RFC 8032 test vectors)', () => {
  for (const [i, v] of RFC.entries()) {
    it(`TEST ${i + 1}: public key, signature and verification`, () => {
      expect(toHex(publicKeyOf(hex(v.sk)))).toBe(v.pk);
      expect(toHex(signMessage(hex(v.sk), hex(v.msg)))).toBe(v.sig);
      expect(verifySignature(hex(v.pk), hex(v.msg), hex(v.sig))).toBe(true);
      const tampered = hex(v.sig);
      tampered[0]! ^= 1;
      expect(verifySignature(hex(v.pk), hex(v.msg), tampered)).toBe(false);
      expect(verifySignature(hex(v.pk), hex(v.msg + '00'), hex(v.sig))).toBe(false);
    });
  }
  it('refuses small-order public keys, wrong lengths and non-canonical S', () => {
    const zeroSig = new Uint8Array(64);
    expect(verifySignature(hex('0100000000000000000000000000000000000000000000000000000000000000'), new Uint8Array(), zeroSig)).toBe(false);
    expect(verifySignature(hex(RFC[0]!.pk).subarray(0, 31), new Uint8Array(), hex(RFC[0]!.sig))).toBe(false);
    // S + L (the group order) is the same scalar, not canonical: a strict verifier refuses it.
    const sig = hex(RFC[0]!.sig);
    const L = hex('edd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010');
    let carry = 0;
    for (let i = 0; i < 32; i++) {
      const s = sig[32 + i]! + L[i]! + carry;
      sig[32 + i] = s & 0xff;
      carry = s >> 8;
    }
    expect(verifySignature(hex(RFC[0]!.pk), new Uint8Array(), sig)).toBe(false);
  });
});

describe('the signed message and the artifacts, byte for byte', () => {
  it('signs GCv0.2 NUL acceptance NUL || the 32 acceptance bytes', () => {
    const m = acceptanceMessage(hex(ACCEPTANCE));
    expect(toHex(m)).toBe(Buffer.from('GCv0.2\0acceptance\0', 'latin1').toString('hex') + ACCEPTANCE);
    expect(m.length).toBe(18 + 32);
  });

  it('a signature term prints as the reference stores it, and its address is BLAKE3 of that print', () => {
    const seed = hex(RFC[0]!.sk);
    const pk = publicKeyOf(seed);
    const sig = signMessage(seed, acceptanceMessage(hex(ACCEPTANCE)));
    const t = signatureTerm({ acceptance: hex(ACCEPTANCE), publicKey: pk, signature: sig });
    const expected = mapOfAtoms([
      [':acceptance-h', bytesLiteral(hex(ACCEPTANCE))],
      [':alg', '"ed25519"'],
      [':kind', '"genesis/acceptance-signature-v0.2"'],
      [':pk', bytesLiteral(pk)],
      [':sig', bytesLiteral(sig)],
    ]);
    expect(printTerm(t)).toBe(expected);
    const dir = mkdtempSync(join(tmpdir(), 'sig-'));
    try {
      const store = new EvidenceStore(dir);
      expect(store.putTerm(t)).toBe(b3(expected));
      const back = parseSignatureTerm(readTerm(expected));
      expect(back.ok && toHex(back.value.signature)).toBe(toHex(sig));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a transparency entry prints with :prev-h nil first, then the previous address bytes', () => {
    const first = transparencyEntryTerm({
      prev: undefined,
      packageArtifact: PKG,
      acceptanceArtifact: ACCEPTANCE,
      signatureArtifact: b3('sig'),
      signerPublicKeyB64: Buffer.from(hex(RFC[0]!.pk)).toString('base64'),
    });
    const expected = mapOfAtoms([
      [':acceptance-artifact', `"${ACCEPTANCE}"`],
      [':kind', '"genesis/transparency-entry-v0.2"'],
      [':package-artifact', `"${PKG}"`],
      [':prev-h', 'nil'],
      [':signature-artifact', `"${b3('sig')}"`],
      [':signer-pk-b64', `"${Buffer.from(hex(RFC[0]!.pk)).toString('base64')}"`],
    ]);
    expect(printTerm(first)).toBe(expected);
    const prev = b3(expected);
    const second = transparencyEntryTerm({
      prev,
      packageArtifact: PKG,
      acceptanceArtifact: ACCEPTANCE,
      signatureArtifact: b3('sig2'),
      signerPublicKeyB64: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=',
    });
    expect(printTerm(second)).toContain(`  :prev-h\n    ${bytesLiteral(hex(prev))}`);
    const back = parseTransparencyEntry(readTerm(printTerm(second)));
    expect(back.ok && back.value.prev).toBe(prev);
  });

  it('a signature set prints as a sorted, deduplicated vector of strings', () => {
    const a = b3('a');
    const b = b3('b');
    const [lo, hi] = [a, b].sort();
    expect(printSignatureSet([])).toBe('[]');
    expect(printSignatureSet([a])).toBe(`["${a}"]`);
    expect(printSignatureSet([hi!, lo!, hi!])).toBe(`[\n  "${lo}"\n  "${hi}"]`);
    expect(printTerm(vec([str(lo!), str(hi!)]))).toBe(printSignatureSet([hi!, lo!]));
  });

  it('key files: alg, sk_b64, pk_b64 in that order, and the pair must match', () => {
    const seed = hex(RFC[1]!.sk);
    const text = printKeyFile({ seed, publicKey: publicKeyOf(seed) });
    expect(text).toBe(`alg = "ed25519"\nsk_b64 = "${Buffer.from(seed).toString('base64')}"\npk_b64 = "${Buffer.from(hex(RFC[1]!.pk)).toString('base64')}"\n`);
    expect(toHex(parseKeyFile(text, 'k.toml').publicKey)).toBe(RFC[1]!.pk);
    const mismatched = text.replace(/pk_b64 = ".*"/, `pk_b64 = "${Buffer.from(hex(RFC[0]!.pk)).toString('base64')}"`);
    expect(() => parseKeyFile(mismatched, 'k.toml')).toThrow(/do not match/);
  });
});

describe('malformed forms fail closed', () => {
  const seed = hex(RFC[0]!.sk);
  const pk = publicKeyOf(seed);
  const sig = signMessage(seed, acceptanceMessage(hex(ACCEPTANCE)));
  const good = {
    kind: str('genesis/acceptance-signature-v0.2'),
    alg: str('ed25519'),
    'acceptance-h': bytesTerm(hex(ACCEPTANCE)),
    pk: bytesTerm(pk),
    sig: bytesTerm(sig),
  };
  it.each([
    ['wrong kind', { ...good, kind: str('genesis/acceptance-signature-v0.1') }],
    ['wrong alg', { ...good, alg: str('ed448') }],
    ['short acceptance', { ...good, 'acceptance-h': bytesTerm(hex(ACCEPTANCE).subarray(1)) }],
    ['acceptance as a string', { ...good, 'acceptance-h': str(ACCEPTANCE) }],
    ['short key', { ...good, pk: bytesTerm(pk.subarray(1)) }],
    ['short signature', { ...good, sig: bytesTerm(sig.subarray(1)) }],
    ['an extra field', { ...good, note: str('x') }],
  ])('signature term: %s', (_name, fields) => {
    expect(parseSignatureTerm(kwMap(fields)).ok).toBe(false);
  });
  it('signature term: a vector is not one', () => {
    expect(parseSignatureTerm(vec([])).ok).toBe(false);
  });

  const entry = {
    kind: str('genesis/transparency-entry-v0.2'),
    'prev-h': NIL,
    'package-artifact': str(PKG),
    'acceptance-artifact': str(ACCEPTANCE),
    'signature-artifact': str(PKG),
    'signer-pk-b64': str(Buffer.from(pk).toString('base64')),
  };
  it('transparency entry: the honest one reads', () => expect(parseTransparencyEntry(kwMap(entry)).ok).toBe(true));
  it.each([
    ['wrong kind', { ...entry, kind: str('genesis/transparency-entry-v0.1') }],
    ['prev-h of 31 bytes', { ...entry, 'prev-h': bytesTerm(new Uint8Array(31)) }],
    ['prev-h as hex text', { ...entry, 'prev-h': str(PKG) }],
    ['upper-case artifact', { ...entry, 'package-artifact': str(PKG.toUpperCase()) }],
    ['signer not base64 of 32 bytes', { ...entry, 'signer-pk-b64': str('AAAA') }],
    ['an extra field', { ...entry, extra: NIL }],
  ])('transparency entry: %s', (_name, fields) => {
    expect(parseTransparencyEntry(kwMap(fields)).ok).toBe(false);
  });
  it('transparency entry: a missing field', () => {
    const { 'signer-pk-b64': _gone, ...rest } = entry;
    expect(parseTransparencyEntry(kwMap(rest)).ok).toBe(false);
  });

  it.each([
    ['a map', '{}'],
    ['a number in it', '[1]'],
    ['a short address', '["abc"]'],
    ['an upper-case address', `["${ACCEPTANCE.toUpperCase()}"]`],
    ['a duplicate', `["${ACCEPTANCE}" "${ACCEPTANCE}"]`],
    ['not CoreForm', '["'],
    ['empty text', ''],
  ])('signature set: %s', (_name, text) => {
    expect(() => parseSignatureSetText(text, 'signatures.gc')).toThrow(expect.objectContaining({ code: 'signing/signature-set' }));
  });
  it('signature set: an unsorted set of distinct addresses reads (the set is order-insensitive)', () => {
    const [lo, hi] = [b3('x'), b3('y')].sort();
    expect(parseSignatureSetText(`["${hi}" "${lo}"]`, 's')).toEqual([hi, lo]);
    expect(parseSignatureSet(readTerm('[]'))).toEqual({ ok: true, value: [] });
  });

  it.each([
    ['empty', ''],
    ['short', 'abc\n'],
    ['upper case', ACCEPTANCE.toUpperCase() + '\n'],
    ['two newlines', ACCEPTANCE + '\n\n'],
    ['leading space', ' ' + ACCEPTANCE],
  ])('transparency head: %s', (_n, text) => {
    expect(() => parseHead(text, 'transparency_head')).toThrow(expect.objectContaining({ code: 'signing/transparency-head' }));
  });
  it('transparency head: one address with or without its newline reads', () => {
    expect(parseHead(ACCEPTANCE + '\n', 'h')).toBe(ACCEPTANCE);
    expect(parseHead(ACCEPTANCE, 'h')).toBe(ACCEPTANCE);
  });

  it.each([
    ['no version', 'min_signatures = 0\n'],
    ['version 2', 'version = 2\n'],
    ['version as a string', 'version = "1"\n'],
    ['negative minimum', 'version = 1\nmin_signatures = -1\n'],
    ['fractional minimum', 'version = 1\nmin_signatures = 1.5\n'],
    ['minimum without keys', 'version = 1\nmin_signatures = 1\n'],
    ['a bad key', 'version = 1\nmin_signatures = 1\nallowed_public_keys = ["AAAA"]\n'],
    ['an unknown field', 'version = 1\nmin_signature = 2\n'],
    ['not TOML', 'version = \n'],
  ])('policy: %s', (_n, text) => {
    expect(() => parsePolicy(text, 'policy.toml')).toThrow(expect.objectContaining({ code: 'signing/policy' }));
  });
  it('policy: the defaults and a two-key policy read', () => {
    expect(parsePolicy('version = 1\n', 'p')).toMatchObject({ minSignatures: 0, allowedPublicKeys: [] });
    const k = Buffer.from(pk).toString('base64');
    expect(parsePolicy(`version = 1\nmin_signatures = 2\nallowed_public_keys = ["${k}"]\n`, 'p')).toMatchObject({ minSignatures: 2, allowedPublicKeys: [k] });
  });

  it('base64 must be canonical and of the size', () => {
    const k = Buffer.from(pk).toString('base64');
    expect(decodeBase64Exact(k, 32)).toEqual(pk);
    expect(decodeBase64Exact(k.replace('=', ''), 32)).toBeUndefined();
    expect(decodeBase64Exact(k, 31)).toBeUndefined();
    expect(decodeBase64Exact(k.slice(0, -2) + 'B=', 32)).toBeUndefined();
  });
});

describe('chains and signature checks over a store', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  const fresh = (): EvidenceStore => {
    const d = mkdtempSync(join(tmpdir(), 'chain-'));
    dirs.push(d);
    return new EvidenceStore(join(d, 'store'));
  };
  const entryOf = (prev: string | undefined, n: number) =>
    transparencyEntryTerm({
      prev,
      packageArtifact: PKG,
      acceptanceArtifact: ACCEPTANCE,
      signatureArtifact: b3(`s${n}`),
      signerPublicKeyB64: Buffer.from(hex(RFC[0]!.pk)).toString('base64'),
    });

  it('walks a chain written entry by entry, head first', () => {
    const store = fresh();
    let head: string | undefined;
    const written: string[] = [];
    for (let i = 0; i < 3; i++) written.push((head = store.putTerm(entryOf(head, i))));
    const r = walkChain(storeReader(store), head);
    expect(r.ok).toBe(true);
    expect(r.entries.map((e) => e.address)).toEqual(written.reverse());
    expect(walkChain(storeReader(store), undefined)).toMatchObject({ ok: true, entries: [] });
  });

  it('fails closed on a missing (truncated) entry, a corrupt one, a non-entry and an over-long chain', () => {
    const store = fresh();
    const missingPrev = b3('never stored');
    const truncated = store.putTerm(entryOf(missingPrev, 0));
    expect(walkChain(storeReader(store), truncated).error?.code).toBe('transparency/entry-missing');
    const notEntry = store.putTerm(kwMap({ kind: str('genesis/other') }));
    expect(walkChain(storeReader(store), notEntry).error?.code).toBe('transparency/entry-malformed');
    // a reader that serves bytes under another name (a store that lies)
    const lying: ArtifactReader = { read: () => ({ ok: true, bytes: new TextEncoder().encode(printTerm(entryOf(undefined, 9))) }) };
    expect(walkChain(lying, b3('x')).error?.code).toBe('transparency/entry-corrupt');
    let head: string | undefined;
    for (let i = 0; i < 5; i++) head = store.putTerm(entryOf(head, 100 + i));
    expect(walkChain(storeReader(store), head, 4).error?.code).toBe('transparency/too-long');
    expect(walkChain(storeReader(store), head, 5).ok).toBe(true);
    // A cycle needs an entry naming its own descendant, which content addressing makes a BLAKE3
    // collision: every read is re-hashed, so the walk's cycle guard is the last line of defence.
  });

  it('a non-canonical entry does not read', () => {
    const store = fresh();
    const canonical = printTerm(entryOf(undefined, 1));
    const spaced = store.put(new TextEncoder().encode(canonical.replace('{\n', '{ \n')));
    expect(walkChain(storeReader(store), spaced).error?.code).toBe('transparency/entry-malformed');
  });

  it('counts valid signatures by allowed keys over the acceptance, distinct signers once', () => {
    const store = fresh();
    const keys = RFC.map((v) => ({ seed: hex(v.sk), pk: hex(v.pk), b64: Buffer.from(hex(v.pk)).toString('base64') }));
    const put = (seed: Uint8Array, pk: Uint8Array, acc: string, mutate = false) => {
      const s = signMessage(seed, acceptanceMessage(hex(acc)));
      if (mutate) s[5]! ^= 1;
      return store.putTerm(signatureTerm({ acceptance: hex(acc), publicKey: pk, signature: s }));
    };
    const a = put(keys[0]!.seed, keys[0]!.pk, ACCEPTANCE);
    const b = put(keys[1]!.seed, keys[1]!.pk, ACCEPTANCE);
    const unknown = put(keys[2]!.seed, keys[2]!.pk, ACCEPTANCE);
    const other = put(keys[0]!.seed, keys[0]!.pk, b3('another acceptance'));
    const policy = parsePolicy(`version = 1\nmin_signatures = 2\nallowed_public_keys = ["${keys[0]!.b64}", "${keys[1]!.b64}"]\n`, 'p');
    const honest = checkSignatures(storeReader(store), ACCEPTANCE, [a, b, unknown, other], policy);
    expect(honest).toMatchObject({ ok: true, valid: 2, required: 2 });
    expect(honest.checks.map((c) => c.status)).toEqual(['valid', 'valid', 'unknown-key', 'other-acceptance']);
    expect(checkSignatures(storeReader(store), ACCEPTANCE, [a, unknown, other], policy)).toMatchObject({ ok: false, valid: 1 });
    const forged = put(keys[1]!.seed, keys[1]!.pk, ACCEPTANCE, true);
    expect(checkSignatures(storeReader(store), ACCEPTANCE, [a, b, forged], policy).ok).toBe(false);
    expect(checkSignatures(storeReader(store), ACCEPTANCE, [a, b, b3('not in the store')], policy).checks[2]!.status).toBe('missing');
    expect(checkSignatures(storeReader(store), ACCEPTANCE, [a, b, b3('not in the store')], policy).ok).toBe(false);
  });
});

describe('key file custody', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  const dir = (): string => {
    const d = mkdtempSync(join(tmpdir(), 'key-'));
    dirs.push(d);
    return d;
  };

  it('creates 0600, never overwrites, and reads back the same pair', () => {
    const d = dir();
    const path = join(d, 'sub', 'key.toml');
    const k = writeKeyFile(path);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readKeyFile(path).publicKeyB64).toBe(k.publicKeyB64);
    expect(() => writeKeyFile(path)).toThrow(expect.objectContaining({ code: 'signing/key-exists' }));
    symlinkSync(join(d, 'nowhere'), join(d, 'dangling'));
    expect(() => writeKeyFile(join(d, 'dangling'))).toThrow(expect.objectContaining({ code: 'signing/key-exists' }));
  });

  it('refuses a key readable by group or other, a symlink, a directory and a missing file', () => {
    const d = dir();
    const path = join(d, 'key.toml');
    writeKeyFile(path);
    chmodSync(path, 0o640);
    expect(() => readKeyFile(path)).toThrow(/deny group and other/);
    chmodSync(path, 0o600);
    symlinkSync(path, join(d, 'link.toml'));
    expect(() => readKeyFile(join(d, 'link.toml'))).toThrow(/regular file, not a symlink/);
    expect(() => readKeyFile(d)).toThrow(/regular file/);
    expect(() => readKeyFile(join(d, 'absent.toml'))).toThrow(expect.objectContaining({ code: 'signing/key' }));
    writeFileSync(join(d, 'bad.toml'), 'alg = "ed25519"\n', { mode: 0o600 });
    expect(() => readKeyFile(join(d, 'bad.toml'))).toThrow(/exactly alg, sk_b64 and pk_b64/);
  });
});

describe('sign: pointers move only after the terms are stored, and a rerun completes an interrupted sign', () => {
  it.each(['sign:last-signature', 'sign:signature-set', 'sign:head'])('interrupted at %s', async (step) => {
    const { signAcceptance } = await import('../../src/signing/index.js');
    const { readFileSync, mkdirSync } = await import('node:fs');
    const pkg = mkdtempSync(join(tmpdir(), 'signcrash-'));
    try {
      mkdirSync(join(pkg, '.genesis'), { recursive: true });
      writeFileSync(join(pkg, '.genesis/last_acceptance'), ACCEPTANCE + '\n');
      const seed = hex(RFC[0]!.sk);
      const key = { seed, publicKey: publicKeyOf(seed), publicKeyB64: Buffer.from(publicKeyOf(seed)).toString('base64') };
      const first = signAcceptance({ packageDir: pkg, key, packageArtifact: PKG });
      const faults = (s: string) => {
        if (s === step) throw new Error(`crash at ${s}`);
      };
      expect(() => signAcceptance({ packageDir: pkg, key: { ...key }, packageArtifact: b3('another record'), faults })).toThrow(`crash at ${step}`);
      // Whatever was written, the state still reads: the head is the first entry until the last step.
      expect(readFileSync(join(pkg, '.genesis/transparency_head'), 'utf8')).toBe(`${first.transparencyEntry}\n`);
      const again = signAcceptance({ packageDir: pkg, key, packageArtifact: b3('another record') });
      expect(again.previousHead).toBe(first.transparencyEntry);
      const chain = walkChain(storeReader(new EvidenceStore(join(pkg, '.genesis/store'))), again.transparencyEntry);
      expect(chain.ok).toBe(true);
      expect(chain.entries.map((e) => e.packageArtifact)).toEqual([b3('another record'), PKG]);
      expect(readFileSync(join(pkg, '.genesis/signatures.gc'), 'utf8')).toBe(`["${first.signatureArtifact}"]`);
    } finally {
      rmSync(pkg, { recursive: true, force: true });
    }
  });
});
