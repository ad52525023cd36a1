import { afterEach, describe, expect, it, vi } from 'vitest';
import fc from 'fast-check';
import { blake3 as nobleBlake3 } from '@noble/hashes/blake3.js';
import { blake3Backend, blake3Of, createBlake3, digestHex, setBlake3Backend, type Blake3Backend } from '../../src/coreform/blake3.js';
import { BLAKE3_WASM } from '../../src/coreform/blake3-wasm.js';
import { toHex, utf8 } from '../../src/util/bytes.js';
// @ts-expect-error: a plain .mjs script without types
import { blake3WasmModuleText } from '../../scripts/build-blake3-wasm.mjs';
import { readFileSync } from 'node:fs';

/** The oracle: @noble/hashes on the concatenation, as lowercase hex. */
const oracle = (bytes: Uint8Array): string => toHex(nobleBlake3(bytes));

/** Deterministic pseudo-random bytes. */
function bytesOf(n: number, seed: number): Uint8Array {
  const out = new Uint8Array(n);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 255;
  }
  return out;
}

// Around the 64-byte block, the 1 KiB chunk, the 16 KiB input buffer of the module, and large.
const SIZES = [0, 1, 63, 64, 65, 100, 1023, 1024, 1025, 2048, 16383, 16384, 16385, 32768, 65536, 100_000, 1 << 20];

afterEach(() => setBlake3Backend(undefined));

describe('the WebAssembly module', () => {
  it('is the one in use in this process (node has WebAssembly)', () => {
    expect(blake3Backend()).toBe('wasm');
  });

  it('src/coreform/blake3-wasm.ts is what `npm run build:blake3` makes from the installed hash-wasm', () => {
    expect(readFileSync(new URL('../../src/coreform/blake3-wasm.ts', import.meta.url), 'utf8')).toBe(blake3WasmModuleText());
    expect(Buffer.from(BLAKE3_WASM, 'base64').subarray(0, 4)).toEqual(Buffer.from([0, 0x61, 0x73, 0x6d]));
  });

  it('GCPATCH_BLAKE3=noble selects @noble/hashes for the process (read once, when the module loads)', async () => {
    vi.stubEnv('GCPATCH_BLAKE3', 'noble');
    vi.resetModules();
    const withNoble = await import('../../src/coreform/blake3.js');
    vi.unstubAllEnvs();
    vi.resetModules();
    const plain = await import('../../src/coreform/blake3.js');
    expect(withNoble.blake3Backend()).toBe('noble');
    expect(plain.blake3Backend()).toBe('wasm');
    for (const m of [withNoble, plain]) expect(m.digestHex(m.blake3Of('abc'))).toBe('6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85');
  });
});

describe.each<Blake3Backend>(['wasm', 'noble'])('BLAKE3 through %s', (backend) => {
  const use = () => setBlake3Backend(backend);

  it('the BLAKE3 sanity vectors', () => {
    use();
    expect(blake3Backend()).toBe(backend);
    expect(digestHex(blake3Of(new Uint8Array()))).toBe('af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262');
    expect(digestHex(blake3Of('abc'))).toBe('6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85');
    expect(digestHex(createBlake3().update('a').update(utf8('bc')).digest())).toBe('6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85');
  });

  it.each(SIZES)('%i bytes: one shot, in two parts, as a string, incrementally', (n) => {
    use();
    const data = bytesOf(n, n + 7);
    const want = oracle(data);
    expect(digestHex(blake3Of(data))).toBe(want);
    const cut = n >> 1;
    expect(digestHex(blake3Of(data.subarray(0, cut), data.subarray(cut)))).toBe(want);
    const h = createBlake3();
    for (let i = 0; i < n; i += 777) h.update(data.subarray(i, i + 777));
    expect(digestHex(h.digest())).toBe(want);
    const text = 'é'.repeat(n >> 1) + (n % 2 ? 'x' : '');
    expect(digestHex(blake3Of(text))).toBe(oracle(utf8(text)));
    expect(digestHex(blake3Of('GCv0.2\0', text))).toBe(oracle(utf8('GCv0.2\0' + text)));
  });

  it('strings with 2-, 3- and 4-byte characters and lone surrogates, across the 16 KiB buffer', () => {
    use();
    for (const unit of ['é', '€', '😀', 'a\ud800b', '\udc00']) {
      for (const pad of [0, 1, 2, 3]) {
        const text = 'x'.repeat(16 * 1024 - pad) + unit.repeat(5000);
        expect(digestHex(blake3Of(text))).toBe(oracle(utf8(text)));
        expect(digestHex(createBlake3().update(text).digest())).toBe(oracle(utf8(text)));
      }
    }
  });

  it('interleaved hashers and clones keep their own states (and a one-shot in between changes none)', () => {
    use();
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(3), fc.uint8Array({ maxLength: 3000 }), fc.nat(5)), { maxLength: 30 }), (steps) => {
        const hs = [createBlake3(), createBlake3(), createBlake3(), createBlake3()];
        const fed: number[][] = [[], [], [], []];
        const oneShot: Uint8Array[] = [];
        for (const [i, data, op] of steps) {
          if (op === 0) {
            // clone hasher i into slot (i + 1) % 4
            const j = (i + 1) % 4;
            hs[j] = hs[i]!.clone();
            fed[j] = [...fed[i]!];
          } else if (op === 1) {
            // a one-shot hash in between, checked below
            oneShot.push(data);
          } else {
            hs[i]!.update(data);
            fed[i]!.push(...data);
          }
        }
        for (const data of oneShot) expect(digestHex(blake3Of(data))).toBe(oracle(data));
        for (let i = 0; i < 4; i++) {
          const copy = hs[i]!.clone();
          expect(digestHex(hs[i]!.digest())).toBe(oracle(new Uint8Array(fed[i]!)));
          expect(digestHex(copy.update(new Uint8Array([1])).digest())).toBe(oracle(new Uint8Array([...fed[i]!, 1])));
        }
      }),
      { numRuns: 150 },
    );
  });

  it('random inputs agree with the oracle', () => {
    use();
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 40_000 }), fc.nat(40_000), (data, cut) => {
        const c = Math.min(cut, data.length);
        expect(digestHex(blake3Of(data.subarray(0, c), data.subarray(c)))).toBe(oracle(data));
      }),
      { numRuns: 100 },
    );
  });
});

describe('a digested hasher', () => {
  it('cannot be updated again (wasm)', () => {
    setBlake3Backend('wasm');
    const h = createBlake3();
    h.digest();
    expect(() => h.update('x')).toThrow();
    expect(() => h.clone()).toThrow();
  });
});
