/** The WebAssembly build of the fast scan (scan.wat, embedded by `scan-wasm.ts`): instantiating it and running it. */
import { HEX, SCAN } from './lexical.js';
import { SCAN_WASM } from './scan-wasm.js';

/** The part of the WebAssembly API used here (the library's TypeScript libs carry no DOM types). */
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: object };
}
interface WasmScan {
  memory: { buffer: ArrayBuffer; grow(pages: number): number };
  scan: (n: number, stack: number, bounds: number) => number;
  count: { value: number };
}
/** The instantiated scan.wat: undefined before first use, null where WebAssembly is not available. */
let wasmScan: WasmScan | null | undefined;

function wasmScanInstance(): WasmScan | null {
  if (wasmScan !== undefined) return wasmScan;
  try {
    const api = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;
    if (api === undefined) throw new Error('no WebAssembly');
    const instance = new api.Instance(new api.Module(Buffer.from(SCAN_WASM, 'base64')), {});
    const e = instance.exports as WasmScan;
    // The class tables scan.wat reads at offsets 0 (SCAN) and 256 (HEX): this file's own.
    const mem = new Uint8Array(e.memory.buffer);
    mem.set(SCAN, 0);
    mem.set(HEX, 256);
    wasmScan = { memory: e.memory, scan: e.scan, count: e.count };
  } catch {
    wasmScan = null;
  }
  return wasmScan;
}

/**
 * `scanValid` of `scan.ts` done by scan.wat (the same checks, step for step: a driver process runs V8
 * without its optimizing compiler, where the JavaScript loop costs ~20 ns a byte).
 * @returns the form bounds when `s` is valid, null when it is not (the reader then reports the
 *   error), undefined when WebAssembly is not available or its memory cannot hold `s` (the caller
 *   scans in JavaScript).
 */
export function scanValidWasm(s: Uint8Array): Int32Array | null | undefined {
  const w = wasmScanInstance();
  if (w === null) return undefined;
  const n = s.length;
  // Input at 512, one byte of frame stack per input byte, then up to one pair of bounds per byte.
  const stack = 512 + n;
  const boundsAt = (stack + n + 8) & ~7;
  const need = boundsAt + 8 * (n + 1);
  const have = w.memory.buffer.byteLength;
  if (need > have) {
    try {
      w.memory.grow(Math.ceil((need - have) / 65536));
    } catch {
      return undefined; // past WebAssembly's memory limit (≈ 400 MB of input): the JavaScript loop
    }
  }
  new Uint8Array(w.memory.buffer, 512, n).set(s);
  if (w.scan(n, stack, boundsAt) !== 0) return null;
  const count = w.count.value;
  return new Int32Array(w.memory.buffer, boundsAt, count * 2).slice();
}
