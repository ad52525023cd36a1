/** UTF-8 and byte helpers shared by every layer (no dependency on CoreForm). */

const encoder = new TextEncoder();
const strictDecoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

/** UTF-8 encodes a JS string (lone surrogates become U+FFFD, as TextEncoder does). */
export function utf8(text: string): Uint8Array {
  return encoder.encode(text);
}

/**
 * Decodes UTF-8 strictly; returns `undefined` for invalid UTF-8. A leading BOM is kept as U+FEFF.
 * @param bytes the raw bytes.
 */
export function decodeUtf8Strict(bytes: Uint8Array): string | undefined {
  try {
    return strictDecoder.decode(bytes);
  } catch {
    return undefined;
  }
}

/**
 * Decodes an already-validated UTF-8 slice `s[a, b)` (byte offsets); short ASCII runs skip the
 * TextDecoder call overhead.
 */
export function decodeSlice(s: Uint8Array, a: number, b: number): string {
  const len = b - a;
  if (len <= 128) {
    let ascii = true;
    for (let i = a; i < b; i++) {
      if (s[i]! >= 0x80) {
        ascii = false;
        break;
      }
    }
    if (ascii) {
      switch (len) {
        case 0:
          return '';
        case 1:
          return String.fromCharCode(s[a]!);
        case 2:
          return String.fromCharCode(s[a]!, s[a + 1]!);
        case 3:
          return String.fromCharCode(s[a]!, s[a + 1]!, s[a + 2]!);
        default:
          return String.fromCharCode.apply(null, s.subarray(a, b) as unknown as number[]);
      }
    }
  }
  return decoder.decode(s.subarray(a, b));
}

/**
 * Number of bytes in the UTF-8 encoding of `text.slice(start, end)`, computed without allocating.
 * @param start, end UTF-16 code-unit offsets (default: the whole string); a lone surrogate counts 3.
 */
export function utf8Length(text: string, start = 0, end = text.length): number {
  let n = 0;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < end) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n += 4;
        i++;
      } else n += 3;
    } else n += 3;
  }
  return n;
}

/**
 * Compares two JS strings by the byte order of their UTF-8 encodings (= Unicode code-point order).
 * JS `<` compares UTF-16 code units and disagrees for astral vs U+E000..U+FFFF characters.
 * @returns negative, zero or positive.
 */
export function compareUtf8(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // Surrogates (0xD800..0xDFFF) encode code points above U+FFFF, which sort after U+E000..U+FFFF.
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    if (xs !== ys) return xs ? 1 : -1;
    return x - y;
  }
  return a.length - b.length;
}

/** Lexicographic byte comparison of two byte arrays (shorter prefix first). */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const d = a[i]! - b[i]!;
    if (d !== 0) return d;
  }
  return a.length - b.length;
}

/** True when the two byte arrays hold the same bytes. */
export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Lowercase hex of a byte array. */
export function toHex(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i++) out += bytes[i]!.toString(16).padStart(2, '0');
  return out;
}

/** True for exactly 64 lowercase hexadecimal characters (the hash format at every boundary). */
export function isHex64(value: string): boolean {
  return /^[0-9a-f]{64}$/.test(value);
}

/** Decodes lowercase or uppercase hex to bytes; returns undefined for odd length or bad digits. */
export function fromHex(hex: string): Uint8Array | undefined {
  if (hex.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(hex)) return undefined;
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}
