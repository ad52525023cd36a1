import { describe, expect, it } from 'vitest';
import { blake3 } from '@noble/hashes/blake3.js';
import {
  hashModule,
  hashTerm,
  hashTermOfPrint,
  semanticNodeId,
  semanticNodeIdState,
  storeAddress,
  storeAddressStream,
  termAddress,
} from '../../src/coreform/hash.js';
import { readTerm } from '../../src/coreform/read.js';
import { canonicalizeSource } from '../../src/coreform/canon.js';
import { printModule, printTerm } from '../../src/coreform/print.js';
import { toHex, utf8 } from '../../src/util/bytes.js';
import { sizedModule } from './sized-module.js';
import { str, vec, type Term } from '../../src/coreform/term.js';

/** Plain BLAKE3 as lowercase hex, computed here independently of the code under test. */
const blake3Hex = (bytes: Uint8Array): string => toHex(blake3(bytes));

// docs/reference/hashing.md §2 "hash-term vectors (C)": source → print_term → hash-term.
const HASH_TERM_VECTORS: [string, string, string][] = [
  ['nil', 'nil', '0a3f5165053e99a22a909b9e2f62ad06e428df2ba0d4a928622d5bc92bb5ca3f'],
  ['true', 'true', '4e4a70d0f70359115fef367272221640511b24bc95312c254e40388c8317791b'],
  ['false', 'false', '61d6fd298f7ad4dad8e3062bb82b7003b506f45db57d70289c0480219febc5e4'],
  ['0', '0', 'b8c3796e47b3eb1b6254eab9c9ff56a1183f169269b3936f53b0b36ec79b66f5'],
  ['42', '42', 'a692a0445307cbe824befce6f2488cb2b885f01c0121f18d014150319e6f3ef1'],
  ['-7', '-7', '2268ee454959b15ec9c612a4915b7147eb248ea54cace4cca92a4a3dd384bd2b'],
  ['""', '""', '296fd30c918b43c28180b87e1dca2060c85ae78380047ac88d38f32057779435'],
  ['"hi"', '"hi"', '2e7030ad9276aadeb58bcaf9def76e77c969c1db686ddc5b54080e0264146c4c'],
  ['"a\\"b\\\\c\\nd"', '"a\\"b\\\\c\\nd"', '16f5d9b62816ab5dded7cefef09a66e52285e2625077fa2a911fb8004d7b943a'],
  [':foo', ':foo', '702a4fc2c6638208eed22deb9e88fb94fd62ae502260806ad50eff1b4b68676e'],
  ['foo/bar::baz', 'foo/bar::baz', 'f022051563bd70a2b4dc17173eaf2eaceb139fb6c76ab5e82f9897e0c7ee220e'],
  ['[]', '[]', 'fca2c068079a1ab6efedcb68b15a33b67c8067b37a26c6fe7f4a4a5cf2af23a1'],
  ['{}', '{}', '87ef0fcecb4b9112f29bcc23d6240c6ccf0826ec0c9f2a9d3a26575054dbde07'],
  ['[1 2 3]', '[1 2 3]', 'f25030082e5721776ea4e171be8a5dd532ca036aead22629fc59aef61a3b78c2'],
  ['[1 2 3 4]', '[\n  1\n  2\n  3\n  4]', '8650e39518f6ccb240422a944aab7ab6b465bcb5929df405fbaea29f06ddb467'],
  ['{:b 2 :a 1}', '{:a 1 :b 2}', 'c3b21bda4de6d943a4bac1ab94c7844a4c5084d1df0a413232f7611927d37d6c'],
  ['{:c 3 :b 2 :a 1}', '{\n  :a 1\n  :b 2\n  :c 3}', '06b48c7b6ed15580f01ba425a88d01d96e3c2426c5692ff3dea8add1ac7f8a99'],
  ['b"\\x00\\xff"', 'b"\\x00\\xFF"', '3477f061d534683cbfaf440191aebb7f6ee6649ffcaf4a513b1060e37c36b4a6'],
  ["'x", '(quote x)', 'e107f6c67cf3ca4346a3f11f3ec7c12c7971f509c0a33eca82494301d2c036c3'],
  ['"\\u0001"', '"\\u0001"', '3fde09f9e6c869eadd8d27beaf5c354859ac10d3cfef6d43d53300bac8280ff6'],
  ['"\\x41\\xe9"', '"Aé"', '62f000358d233d0a434987d9b51d0e18be59f9bd06c24ca29ab7f4f48f5e71f1'],
  ['()', 'nil', '0a3f5165053e99a22a909b9e2f62ad06e428df2ba0d4a928622d5bc92bb5ca3f'],
  ['(a b c)', '(a b c)', '641b3aafd064be7b60c4f905d873fd5f93083c709d7d42de8e6a1ddaa32c2407'],
  ['[[:form 0]]', '[\n  [:form 0]]', 'c2fda9ba385cfcf72df5504934673eb816f40eb4580180f21cf748efdd3d0f33'],
];

describe('hash-term vectors (docs/reference/hashing.md §2)', () => {
  it.each(HASH_TERM_VECTORS)('%s', (source, printed, hash) => {
    const t = readTerm(source);
    expect(printTerm(t)).toBe(printed);
    expect(hashTerm(t)).toBe(hash);
  });
});

// Frozen (F) frontend module vectors plus the extra (C) module vectors.
const MODULE_VECTORS: [string, string, string, string][] = [
  ['simple-module', '(def x (prim int/add 1 2))\nx\n', '(def x (prim int/add 1 2))\n\nx\n', '2b45b7589484cd1ca94c8c906d726f357ca156eadf12c35a38db191696996c00'],
  ['surface-sugar', '(fn (x y) (f x y))\n', '(fn (x) (fn (y) ((f x) y)))\n', '8979b35d002380dc6d4784113392c37693daa21801f604128edfec6cd3cb988b'],
  [
    'unicode-and-map-order',
    '; unicode byte custody\n(def caf\u00e9 "e\\u0301")\n[{:z 2 :a 1}]\n',
    '(def caf\u00e9 "e\u0301")\n\n[\n  {:a 1 :z 2}]\n',
    '170731a977ca684b557387d54988e26ec24024ee7f437276877ecdd93d935941',
  ],
  ['vector-def', '(def x [1 2 3 4])', '(def x\n  [\n    1\n    2\n    3\n    4])\n', 'f5158df7f07e373a9012dcb91e372adb12ba99daa9771382a0a356e28d78ec95'],
  ['map-head', '({:a 1 :b 2 :c 3} x)', '(\n  {\n    :a 1\n    :b 2\n    :c 3}\n  x)\n', 'b0d0de2111706c5b1a38e3ed45d6b9ce27b20a57ac9c9eccfd193d5a14955d8e'],
  [
    'long-name',
    '(def long-name (prim int/add aaaaaaaaaaaaaaaaaaaaaaaaaa bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb cccccccccccccccccccccccccc))',
    '(def long-name\n  (prim int/add\n    aaaaaaaaaaaaaaaaaaaaaaaaaa\n    bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb\n    cccccccccccccccccccccccccc))\n',
    'a7a67ecb394e34ef3326c7118b12f677499a9351b4cfe77b601c64b3d53cc707',
  ],
  [
    'lib-core-status',
    '(def lib/core::status {:pkg "lib-core" :ok true})\nlib/core::status',
    '(def lib/core::status {:ok true :pkg "lib-core"})\n\nlib/core::status\n',
    'a4b0fd502a6737f69cb51b9850d4658647b2bec80a63b27107cc0893f2626f29',
  ],
];

describe('hash-module vectors', () => {
  it.each(MODULE_VECTORS)('%s', (_id, source, canonical, hash) => {
    const forms = canonicalizeSource(source);
    expect(printModule(forms)).toBe(canonical);
    expect(hashModule(forms)).toBe(hash);
  });

  it('the 68-byte lib-core canonical print (docs/reference/package-toml.md §6 item 4)', () => {
    expect(utf8(printModule(canonicalizeSource('(def lib/core::status {:pkg "lib-core" :ok true})\nlib/core::status'))).length).toBe(68);
  });

  it('the empty module prints as the empty string', () => {
    expect(printModule([])).toBe('');
    expect(hashModule([])).toBe(blake3Hex(utf8('GCv0.2\0module\0')));
  });
});

describe('semantic node ids (docs/reference/hashing.md §2)', () => {
  it('main.gc [[:form 1] [:pair-cdr] [:pair-cdr] [:pair-car]]', () => {
    expect(semanticNodeId('main.gc', readTerm('[[:form 1] [:pair-cdr] [:pair-cdr] [:pair-car]]'))).toBe(
      'aa6e400ccab85383b39a032955e3025cd4e9f16207219f1076241861dc9f9a01',
    );
  });
  it('main.gc [[:form 0]]', () => {
    expect(semanticNodeId('main.gc', readTerm('[[:form 0]]'))).toBe('edb76fec26d9bf63dbf862e13d48d54792b1fb26cc33343d1ca1309e9885e681');
  });
});

describe('unprefixed BLAKE3 (store addresses)', () => {
  it('matches the BLAKE3 sanity vectors', () => {
    expect(storeAddress(new Uint8Array())).toBe('af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262');
    expect(storeAddress(utf8('abc'))).toBe('6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85');
  });
  it('a term address hashes the print_term bytes without a prefix, unlike hash-term', () => {
    const t = readTerm('{:a 1}');
    expect(termAddress(t)).toBe(storeAddress(utf8('{:a 1}')));
    expect(termAddress(t)).not.toBe(hashTerm(t));
  });
});

// 1 MB: a thousand BLAKE3 chunks and 14,000 forms; the 20 MB throughput is in bench/scale.js.
describe('a 1 MB module', () => {
  it('is read, canonicalized, printed and hashed', () => {
    const { unit, count, text } = sizedModule(1024 * 1024);
    const forms = canonicalizeSource(text);
    expect(forms.length).toBe(count * 2);
    const printed = printModule(forms);
    // Every unit prints the same way, so the whole print is the unit's print repeated.
    const unitPrint = printModule(canonicalizeSource(unit));
    expect(printed.length).toBe(unitPrint.length * count + 1 * (count - 1));
    expect(printed.startsWith(unitPrint)).toBe(true);
    expect(hashModule(forms)).toBe(blake3Hex(utf8(`GCv0.2\0module\0${printed}`)));
  });
});

describe('one hash-term, one store address', () => {
  const t = readTerm('(def main (fn (x) [x "é" b"\\x00"]))');
  const printed = utf8(printTerm(t));

  it('hash-term of a print equals hash-term of the term, and is the prefixed BLAKE3', () => {
    expect(hashTermOfPrint(printed)).toBe(hashTerm(t));
    expect(hashTermOfPrint(printed)).toBe(blake3Hex(new Uint8Array([...utf8('GCv0.2\0'), ...printed])));
  });

  it('the streamed store address equals the store address of the whole, however it is cut', () => {
    for (const cut of [0, 1, 7, printed.length]) {
      const s = storeAddressStream();
      s.update(printed.subarray(0, cut));
      s.update(printed.subarray(cut));
      expect(s.address()).toBe(storeAddress(printed));
    }
    expect(storeAddressStream().address()).toBe(blake3Hex(new Uint8Array(0)));
    expect(storeAddress(printed)).toBe(termAddress(t));
  });

  it('the node-id state digests to the semantic node id of the printed path', () => {
    const path = readTerm('[[:form 0] [:pair-cdr]]');
    expect(
      toHex(
        semanticNodeIdState('src/a.gc')
          .update(utf8(printTerm(path)))
          .digest(),
      ),
    ).toBe(semanticNodeId('src/a.gc', path));
    expect(semanticNodeId('src/a.gc', path)).toBe(blake3Hex(new Uint8Array([...utf8('GCv0.2\0semantic-node-id\0src/a.gc'), 0, ...utf8(printTerm(path))])));
  });
});

describe('large prints hashed again (the recent-digest memo)', () => {
  // Six distinct large terms (each print ≥ 16 KiB), hashed in an order that revisits them after
  // others have pushed them out of the memo: every answer is BLAKE3 of that term's own bytes.
  const big = (n: number) => vec(Array.from({ length: 2_000 }, (_, i) => str(`entry ${n}/${i}`)));
  const terms = Array.from({ length: 6 }, (_, n) => big(n));
  const expected = terms.map((t) => ({
    h: blake3Hex(new Uint8Array([...utf8('GCv0.2\0'), ...utf8(printTerm(t))])),
    address: blake3Hex(utf8(printTerm(t))),
  }));

  it('gives the digest of exactly the bytes asked about, in any order, before and after eviction', () => {
    expect(printTerm(terms[0]!).length).toBeGreaterThan(16 * 1024);
    for (const i of [0, 1, 0, 2, 3, 4, 5, 0, 5, 1, 1, 3]) {
      expect(hashTerm(terms[i]!)).toBe(expected[i]!.h);
      expect(termAddress(terms[i]!)).toBe(expected[i]!.address);
      expect(storeAddress(utf8(printTerm(terms[i]!)))).toBe(expected[i]!.address);
    }
    // a structurally equal copy (another object) hits the same entry and gets the same digest
    expect(hashTerm(big(2))).toBe(expected[2]!.h);
    // a term whose print differs from a remembered one in its last character does not
    const last = vec([...(terms[0] as { items: readonly Term[] }).items.slice(0, -1), str('entry 0/1999!')]);
    expect(hashTerm(last)).toBe(blake3Hex(new Uint8Array([...utf8('GCv0.2\0'), ...utf8(printTerm(last))])));
    expect(hashTerm(last)).not.toBe(expected[0]!.h);
  });
});
