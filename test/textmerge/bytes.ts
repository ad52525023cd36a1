// Text to UTF-8 bytes and back, for the textmerge tests' inputs and results.

/** The UTF-8 bytes of `s`. */
export const enc = (s: string): Uint8Array => new TextEncoder().encode(s);

/** `b` decoded as UTF-8 (`TextDecoder`: a malformed sequence becomes U+FFFD). */
export const dec = (b: Uint8Array): string => new TextDecoder().decode(b);
