/**
 * The output buffer of the canonical printer (`print.ts`): UTF-8 bytes written into one growing
 * buffer, with the output's length in UTF-16 code units and whether it is all ASCII, so that it can
 * be hashed as bytes or decoded once into a string.
 */
export class PrintBuffer {
  protected buf = new Uint8Array(1024);
  protected pos = 0;
  /** The output's length in UTF-16 code units (what the printer's `maxLength` bounds). */
  protected units = 0;
  /** False once a byte >= 0x80 was written (the output is then decoded as UTF-8, else as ASCII). */
  protected ascii = true;

  /** Makes room for `n` more bytes. */
  protected ensure(n: number): void {
    const need = this.pos + n;
    if (need <= this.buf.length) return;
    let cap = this.buf.length * 2;
    while (cap < need) cap *= 2;
    const next = new Uint8Array(cap);
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
  }

  /** Writes one ASCII byte. */
  protected byte(c: number): void {
    if (this.pos === this.buf.length) this.ensure(1);
    this.buf[this.pos++] = c;
    this.units++;
  }

  /** Writes `n` spaces. */
  protected spaces(n: number): void {
    this.ensure(n);
    this.buf.fill(0x20, this.pos, this.pos + n);
    this.pos += n;
    this.units += n;
  }

  /** Writes the UTF-8 of `text` (a lone surrogate as U+FFFD, as TextEncoder does). */
  text(text: string): void {
    const n = text.length;
    this.ensure(3 * n);
    const buf = this.buf;
    let p = this.pos;
    for (let i = 0; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c < 0x80) buf[p++] = c;
      else {
        p = this.wide(text, i, c, p);
        i += this.skip;
      }
    }
    this.pos = p;
    this.units += n;
  }

  /** Set by {@link wide}: 1 when it consumed a surrogate pair's second unit. */
  private skip = 0;

  /** Writes the non-ASCII code unit `c` at `text[i]` (with its pair's second unit) at `p`; returns the new offset. */
  private wide(text: string, i: number, c: number, p: number): number {
    const buf = this.buf;
    this.ascii = false;
    this.skip = 0;
    if (c < 0x800) {
      buf[p++] = 0xc0 | (c >> 6);
      buf[p++] = 0x80 | (c & 0x3f);
      return p;
    }
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        const cp = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
        buf[p++] = 0xf0 | (cp >> 18);
        buf[p++] = 0x80 | ((cp >> 12) & 0x3f);
        buf[p++] = 0x80 | ((cp >> 6) & 0x3f);
        buf[p++] = 0x80 | (cp & 0x3f);
        this.skip = 1;
        return p;
      }
    }
    if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd;
    buf[p++] = 0xe0 | (c >> 12);
    buf[p++] = 0x80 | ((c >> 6) & 0x3f);
    buf[p++] = 0x80 | (c & 0x3f);
    return p;
  }

  /** The output bytes (a view of the buffer: valid until this printer writes again). */
  bytes(): Uint8Array {
    return this.buf.subarray(0, this.pos);
  }

  /** The output as a string. */
  result(): string {
    const b = Buffer.from(this.buf.buffer, this.buf.byteOffset, this.pos);
    return b.toString(this.ascii ? 'latin1' : 'utf8');
  }
}
