/**
 * The JSON projection of CoreForm terms, used by every `--json` output. It is lossless and
 * unambiguous:
 *
 * | term | JSON |
 * |---|---|
 * | nil | `null` |
 * | bool | `true` / `false` |
 * | int | a number when \|n\| ≤ 2^53−1, else `{"$int": "<decimal digits>"}` |
 * | str | a string |
 * | bytes | `{"$bytes": "<lowercase hex>"}` |
 * | sym | `{"$sym": "<name>"}` (keywords keep their colon: `{"$sym": ":op"}`) |
 * | proper list | `{"$list": [ … ]}` |
 * | improper pair | `{"$pair": [car, cdr]}` |
 * | vec | an array |
 * | map whose keys are all keywords | an object keyed by the keyword name without the colon, in canonical key order |
 * | any other map | `{"$map": [[key, value], …]}` in canonical key order |
 */
import { toHex } from '../util/bytes.js';
import type { Term } from './term.js';

/** A JSON value as produced by {@link termToJson}. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * Projects a term to a JSON value (see the module doc for the mapping). Iterative, so deep terms
 * do not overflow the call stack.
 */
export function termToJson(root: Term): Json {
  // Work items: a term to convert, written into `holder[key]` once done.
  type Slot = { holder: Json[] | { [key: string]: Json }; key: number | string };
  const top: Json[] = [null];
  const stack: [Term, Slot][] = [[root, { holder: top, key: 0 }]];
  const put = (slot: Slot, value: Json): void => {
    (slot.holder as Record<string | number, Json>)[slot.key] = value;
  };
  while (stack.length > 0) {
    const [t, slot] = stack.pop()!;
    switch (t.kind) {
      case 'nil':
        put(slot, null);
        break;
      case 'bool':
        put(slot, t.value);
        break;
      case 'int':
        put(slot, t.value <= MAX_SAFE && t.value >= -MAX_SAFE ? Number(t.value) : { $int: t.value.toString() });
        break;
      case 'str':
        put(slot, t.value);
        break;
      case 'bytes':
        put(slot, { $bytes: toHex(t.value) });
        break;
      case 'sym':
        put(slot, { $sym: t.name });
        break;
      case 'vec': {
        const arr: Json[] = new Array(t.items.length).fill(null);
        put(slot, arr);
        t.items.forEach((e, i) => stack.push([e, { holder: arr, key: i }]));
        break;
      }
      case 'pair': {
        const items: Term[] = [];
        let cur: Term = t;
        while (cur.kind === 'pair') {
          items.push(cur.car);
          cur = cur.cdr;
        }
        if (cur.kind === 'nil') {
          const arr: Json[] = new Array(items.length).fill(null);
          put(slot, { $list: arr });
          items.forEach((e, i) => stack.push([e, { holder: arr, key: i }]));
        } else {
          const arr: Json[] = [null, null];
          put(slot, { $pair: arr });
          stack.push([t.car, { holder: arr, key: 0 }], [t.cdr, { holder: arr, key: 1 }]);
        }
        break;
      }
      case 'map': {
        const allKeywords = t.entries.every(([k]) => k.kind === 'sym' && k.name.startsWith(':'));
        if (allKeywords) {
          const obj: { [key: string]: Json } = Object.create(null) as { [key: string]: Json };
          for (const [k] of t.entries) obj[(k as { name: string }).name.slice(1)] = null;
          put(slot, obj);
          for (const [k, v] of t.entries) stack.push([v, { holder: obj, key: (k as { name: string }).name.slice(1) }]);
        } else {
          const arr: Json[] = t.entries.map(() => [null, null] as Json[]);
          put(slot, { $map: arr });
          t.entries.forEach(([k, v], i) => {
            const pairArr = arr[i] as Json[];
            stack.push([k, { holder: pairArr, key: 0 }], [v, { holder: pairArr, key: 1 }]);
          });
        }
        break;
      }
    }
  }
  return top[0]!;
}
