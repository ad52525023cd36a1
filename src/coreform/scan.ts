/**
 * The fast scans of a module: the top-level form spans without building terms, checked against
 * the grammar exactly as the reader checks it (`read.ts`), by a flat JavaScript byte loop or, for
 * large inputs, by its WebAssembly build (`scan-wasm-run.ts`).
 */
import { isUtf8 } from 'node:buffer';
import { utf8 } from '../util/bytes.js';
import { HEX, SCAN } from './lexical.js';
import { scanModuleReader, type FormSpan, type ScannedModule } from './read.js';
import { scanValidWasm } from './scan-wasm-run.js';

/**
 * Checks `source` against the grammar exactly as {@link readModule} does (same errors, same
 * offsets) and returns the top-level form spans without building terms: several times faster, for
 * tools that only need the forms' text (the merge driver reads a form's term only when it needs
 * one, with `readTerm` on the form's bytes).
 *
 * A valid source is checked by one flat byte loop ({@link scanValid}); when that loop finds
 * anything wrong, the source is scanned again by the reader itself ({@link scanModuleReader}),
 * which throws the exact error, so errors cost a second pass but are identical by construction.
 * @param source UTF-8 bytes, or a JS string (encoded as UTF-8 first; offsets refer to those bytes).
 * @returns the source bytes, the form spans (`start`, `end`, `leadingStart`: 0-based UTF-8 byte
 *   offsets, as in {@link readModule}), and where the trailing trivia starts.
 * @throws GcError `core/parse/eof`, `core/parse/unexpected` or `core/parse/escape` (exit code 10)
 *   as for {@link readModule} (docs/reference/coreform.md §1.2).
 */
export function scanModule(source: Uint8Array | string): ScannedModule {
  const src = typeof source === 'string' ? utf8(source) : source;
  const { bounds, trailingStart } = scanFormBounds(src);
  const forms: FormSpan[] = new Array<FormSpan>(bounds.length >> 1);
  let prevEnd = 0;
  for (let i = 0; i < bounds.length; i += 2) {
    const end = bounds[i + 1]!;
    forms[i >> 1] = { start: bounds[i]!, end, leadingStart: prevEnd };
    prevEnd = end;
  }
  return { source: src, forms, trailingStart };
}

/**
 * {@link scanModule} without a span object per form: `bounds` holds each top-level form's start
 * and end offsets in turn (`[start0, end0, start1, end1, …]`, 0-based bytes; form `i`'s leading
 * trivia starts at `end(i - 1)`, or 0; an array or an `Int32Array`), for callers that walk many
 * forms once (the merge driver). Inputs of 64 KiB or more are scanned by the WebAssembly build of
 * {@link scanValid} (scan.wat), where WebAssembly is available.
 * @throws GcError `core/parse/*` as for {@link readModule}.
 */
export function scanFormBounds(source: Uint8Array): { bounds: ArrayLike<number>; trailingStart: number } {
  if (isUtf8(source)) {
    // scan.wat for large inputs where it runs (undefined: not here), else the JavaScript loop; null
    // or a non-zero answer: not valid, the reader reports why.
    let bounds: ArrayLike<number> | null | undefined = source.length >= wasmFrom ? scanValidWasm(source) : undefined;
    if (bounds === undefined) {
      const list: number[] = [];
      bounds = scanValid(source, list) === 0 ? list : null;
    }
    if (bounds !== null) return { bounds, trailingStart: bounds.length > 0 ? bounds[bounds.length - 1]! : 0 };
  }
  const r = scanModuleReader(source);
  const bounds: number[] = [];
  for (const f of r.forms) bounds.push(f.start, f.end);
  return { bounds, trailingStart: r.trailingStart };
}

/**
 * Inputs of at least this many bytes are scanned by the WebAssembly scan. Below it the JavaScript
 * loop is as fast, counting WebAssembly's first compile (≈1.5 ms) and the copy into its memory.
 */
let wasmFrom = 64 * 1024;

/**
 * Sets the size from which {@link scanFormBounds} (and so {@link scanModule}) uses the
 * WebAssembly scan: 0 always, Infinity never (the JavaScript loop). Returns the previous value.
 * @internal for tests, which run both scans over the same inputs.
 */
export function setScanWasmFrom(bytes: number): number {
  const previous = wasmFrom;
  wasmFrom = bytes;
  return previous;
}

/**
 * The fast path of {@link scanModule}: checks the grammar of §1.2 over the (already UTF-8-valid)
 * `s` in one loop, with no calls per byte and no allocation per token, and appends each top-level
 * form's start and end (byte offsets) to `bounds`.
 *
 * It accepts exactly what the reader accepts, token for token: `(`/`[`/`{` open a frame and the
 * matching closer ends it (a map's item count must be even), `'` opens a frame that the next datum
 * completes; a string `"…"` or bytes `b"…"` literal holds escapes `\\ \" \n \r \t`, `\uXXXX` (a
 * scalar value: not a surrogate) and `\xNN`; an integer is `-`? followed by digits and ends at the
 * first non-digit (so `12abc` is two tokens, as in the reader); any other token is a symbol that
 * runs to the next delimiter (whitespace, `()[]{}'";`); `;` comments run to the end of the line.
 * Open frames are one byte each in a typed array (the kind, plus 4 while a map frame holds an odd
 * number of items), so nesting depth costs no JS stack.
 * @returns 0 when `s` is a valid module; otherwise -1, or the number of frames left open at the end
 *   (the caller then lets the reader report the error; `bounds` then holds partial results). The
 *   end of input returns `depth` as is: a comparison there, first run after V8 compiled the loop
 *   (on-stack replacement, in the middle of the first call), would have no type feedback and
 *   throw the compiled code away, and the driver scans three versions in one process.
 */
function scanValid(s: Uint8Array, bounds: number[]): number {
  const scan = SCAN;
  const hex = HEX;
  const n = s.length;
  let stack = new Uint8Array(64);
  let depth = 0;
  let p = 0;
  let formStart = 0;
  // The first backslash at or after the last place one was searched for (n: none to the end).
  // Strings are scanned front to back, so one search serves every string before that backslash.
  let bs = -1;
  for (;;) {
    if (p >= n) return depth;
    let k = scan[s[p]!]!;
    if (k === 7) {
      p++;
      continue;
    }
    if (k === 8) {
      const nl = s.indexOf(0x0a, p + 1);
      p = nl === -1 ? n : nl + 1;
      continue;
    }
    if (depth === 0) formStart = p;
    if (k === 11) k = p + 1 < n && scan[s[p + 1]!]! === 10 ? 10 : 13;
    else if (k === 12) k = p + 1 < n && s[p + 1] === 0x22 ? 14 : 13;
    switch (k) {
      case 0:
      case 1:
      case 2:
      case 3:
        if (depth === stack.length) {
          const next = new Uint8Array(stack.length * 2);
          next.set(stack);
          stack = next;
        }
        stack[depth++] = k;
        p++;
        continue;
      case 4:
      case 5:
        // The innermost frame must be the matching list/vector (a quote frame needs a datum).
        if (depth === 0 || (stack[depth - 1]! & 3) !== k - 4) return -1;
        depth--;
        p++;
        break;
      case 6:
        // The innermost frame must be a map holding an even number of items.
        if (depth === 0 || stack[depth - 1] !== 2) return -1;
        depth--;
        p++;
        break;
      case 9:
      case 14: {
        // A string or bytes literal: find the closing quote, checking the escapes on the way.
        let q = k === 9 ? p + 1 : p + 2;
        let dq = s.indexOf(0x22, q);
        for (;;) {
          if (dq === -1) return -1;
          if (bs < q) {
            bs = s.indexOf(0x5c, q);
            if (bs === -1) bs = n;
          }
          if (bs > dq) break;
          // bs < dq < n: the escape's bytes up to the first bad one are all in bounds.
          const e = s[bs + 1]!;
          if (e === 0x5c || e === 0x22 || e === 0x6e || e === 0x72 || e === 0x74) q = bs + 2;
          else if (e === 0x75) {
            // \uXXXX: four hex digits, not a surrogate (D800-DFFF).
            const h1 = hex[s[bs + 2]!]!;
            if (h1 === 255) return -1;
            const h2 = hex[s[bs + 3]!]!;
            if (h2 === 255) return -1;
            if (hex[s[bs + 4]!]! === 255 || hex[s[bs + 5]!]! === 255) return -1;
            if (h1 === 13 && h2 >= 8) return -1;
            q = bs + 6;
          } else if (e === 0x78) {
            if (hex[s[bs + 2]!]! === 255 || hex[s[bs + 3]!]! === 255) return -1;
            q = bs + 4;
          } else return -1;
          if (dq < q) dq = s.indexOf(0x22, q);
        }
        p = dq + 1;
        break;
      }
      case 10:
        p++;
        while (p < n && scan[s[p]!]! === 10) p++;
        break;
      default:
        p++;
        while (p < n && scan[s[p]!]! >= 10) p++; // up to a delimiter (classes 0-9)
    }
    // A datum ended at p: it completes the quote frames around it, then is an item of the
    // innermost container, or a top-level form.
    while (depth > 0 && stack[depth - 1] === 3) depth--;
    if (depth === 0) {
      bounds.push(formStart);
      bounds.push(p);
    } else stack[depth - 1] ^= 4;
  }
}
