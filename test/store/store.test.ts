import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { storeAddress, termAddress } from '../../src/coreform/hash.js';
import { kwMap, str } from '../../src/coreform/term.js';
import { utf8 } from '../../src/util/bytes.js';
import { codeAndExitOf } from '../patch/helpers.js';
import { DEFAULT_STORE_LIMITS, EvidenceStore } from '../../src/store/store.js';

function fresh(limits = {}): EvidenceStore {
  return new EvidenceStore(join(mkdtempSync(join(tmpdir(), 'gcpatch-store-')), '.genesis', 'store'), { limits });
}
function flip(store: EvidenceStore, hex: string): void {
  const file = store.pathOf(hex);
  chmodSync(file, 0o644);
  const bytes = readFileSync(file);
  bytes[0] = bytes[0]! ^ 1;
  writeFileSync(file, bytes);
}

describe('evidence store (docs/reference/evidence-store.md §5)', () => {
  it('addresses are plain BLAKE3 of the bytes; terms are stored as print_term bytes', () => {
    const s = fresh();
    expect(s.put(utf8('abc'))).toBe('6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85');
    const t = kwMap({ kind: str('x') });
    const hex = s.putTerm(t);
    expect(hex).toBe(termAddress(t));
    expect(new TextDecoder().decode(s.get(hex))).toBe('{:kind "x"}');
    expect(s.getTerm(hex)).toEqual(t);
  });
  it('is write-once and idempotent; no temp files remain', () => {
    const s = fresh();
    const a = s.put(utf8('one'));
    expect(s.put(utf8('one'))).toBe(a);
    expect(readdirSync(s.dir)).toEqual([a]);
  });
  it('re-hashes an existing entry on put and fails with corruption', () => {
    const s = fresh();
    const a = s.put(utf8('one'));
    flip(s, a);
    expect(codeAndExitOf(() => s.put(utf8('one')))).toBe('core/store/corruption/50');
  });
  it('get: not-found, corruption, malformed address', () => {
    const s = fresh();
    const a = s.put(utf8('one'));
    expect(codeAndExitOf(() => s.get(storeAddress(utf8('two'))))).toBe('core/store/not-found/50');
    expect(codeAndExitOf(() => s.get('xyz'))).toBe('core/store/not-found/10');
    flip(s, a);
    expect(codeAndExitOf(() => s.get(a))).toBe('core/store/corruption/50');
  });
  it('list: only 64-hex regular files, sorted by name; temp files and others skipped', () => {
    const s = fresh();
    const hexes = ['b', 'a', 'c'].map((x) => s.put(utf8(x)));
    writeFileSync(join(s.dir, `.tmp-${hexes[0]}-1-0`), 'partial');
    writeFileSync(join(s.dir, 'README'), 'x');
    mkdirSync(join(s.dir, 'f'.repeat(64)));
    expect(s.list().map((e) => e.hex)).toEqual([...hexes].sort());
  });
  it('verify: whole store in name order reports the first failure; one entry', () => {
    const s = fresh();
    const hexes = ['1', '2', '3', '4'].map((x) => s.put(utf8(x))).sort();
    expect(s.verify()).toMatchObject({ ok: true, checked: 4 });
    flip(s, hexes[2]!);
    flip(s, hexes[3]!);
    const r = s.verify();
    expect(r).toMatchObject({ ok: false, checked: 2, failure: { code: 'core/store/corruption', hex: hexes[2] } });
    expect(s.verify(hexes[0]).ok).toBe(true);
    expect(s.verify(hexes[3]).failure?.code).toBe('core/store/corruption');
    expect(s.verify('0'.repeat(64)).failure?.code).toBe('core/store/not-found');
  });
  it('bounds: entries, total bytes, per artifact (core/caps/resource-limit)', () => {
    expect(DEFAULT_STORE_LIMITS).toEqual({ maxArtifactBytes: 32 * 1024 * 1024, maxTotalBytes: 512 * 1024 * 1024, maxEntries: 8192 });
    const s = fresh({ maxEntries: 2, maxTotalBytes: 9, maxArtifactBytes: 6 });
    s.put(utf8('12345'));
    s.put(utf8('abcde'));
    expect(s.verify().failure?.code).toBe('core/caps/resource-limit'); // 10 bytes > 9
    const t = fresh({ maxEntries: 2 });
    ['1', '2', '3'].forEach((x) => t.put(utf8(x)));
    expect(t.verify()).toMatchObject({ ok: false, checked: 0, failure: { code: 'core/caps/resource-limit' } });
    expect(codeAndExitOf(() => s.put(utf8('1234567')))).toBe('core/caps/resource-limit/70');
  });
  it('a missing store lists as empty and verifies', () => {
    const s = fresh();
    expect(existsSync(s.dir)).toBe(false);
    expect(s.list()).toEqual([]);
    expect(s.verify()).toMatchObject({ ok: true, checked: 0 });
  });
});
