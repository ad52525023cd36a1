/**
 * A small strict RFC 8259 JSON parser that keeps every object member in document order, duplicates
 * included, and numbers as their source text. `JSON.parse` can do neither, and the edit-plan decoder
 * needs both (duplicate declared members are errors; unknown members are retained verbatim).
 */
import { editError } from './errors.js';
import { EDIT_FIELDS, FILE_FIELDS, JsonNumber, PLAN_FIELDS } from './model.js';
import { utf8LengthOfRange } from './unicode.js';

/** A JSON object with its members in document order (duplicate keys kept). */
export class JsonObjectNode {
  /**
   * @param keys decoded member names (escapes resolved), in document order.
   * @param values member values, parallel to `keys`.
   */
  constructor(
    readonly keys: string[],
    readonly values: JsonNode[],
  ) {}
}

/**
 * A parsed JSON value: strings may hold lone surrogates (from `\uD800`-style escapes). Integers
 * written plainly with at most 15 digits (always exact, and written back identically) are JS
 * numbers; every other number (`-0`, `1.0`, `1e3`, long integers) is a {@link JsonNumber} with its
 * source text.
 */
export type JsonNode = null | boolean | number | string | JsonNumber | JsonNode[] | JsonObjectNode;

/** Member names met in every plan, most frequent first (see `Parser.parseKey`). */
const KNOWN_KEYS = [...EDIT_FIELDS, ...FILE_FIELDS, ...PLAN_FIELDS];

/** Maximum nesting depth of arrays and objects (as serde_json's default recursion limit). */
export const MAX_JSON_DEPTH = 128;

/**
 * Parses one JSON document (RFC 8259: no comments, no trailing commas, no leading BOM, only
 * space/tab/CR/LF whitespace, unescaped control characters rejected inside strings).
 * @param text the document as a JS string.
 * @returns the value tree.
 * @throws GcError `INVALID_PLAN` (exit 10) for malformed JSON, with `location.offset` (0-based
 *   UTF-8 byte offset), `line` (1-based) and `column` (1-based, UTF-8 bytes) of the offending spot.
 */
export function parseJson(text: string): JsonNode {
  return new Parser(text).parseDocument();
}

class Parser {
  private pos = 0;
  private depth = 0;
  private readonly interned = new Map<string, string>();

  constructor(private readonly text: string) {}

  parseDocument(): JsonNode {
    if (this.text.charCodeAt(0) === 0xfeff) this.fail('a byte order mark (U+FEFF) is not allowed before JSON text');
    this.skipWhitespace();
    const value = this.parseValue();
    this.skipWhitespace();
    if (this.pos < this.text.length) this.fail('unexpected content after the JSON value');
    return value;
  }

  private fail(message: string, at: number = this.pos): never {
    const text = this.text;
    const offset = utf8LengthOfRange(text, 0, Math.min(at, text.length));
    const lineStart = text.lastIndexOf('\n', at - 1) + 1;
    let line = 1;
    for (let i = text.indexOf('\n'); i !== -1 && i < at; i = text.indexOf('\n', i + 1)) line++;
    const column = utf8LengthOfRange(text, lineStart, Math.min(at, text.length)) + 1;
    throw editError('INVALID_PLAN', `malformed JSON: ${message}`, {}, { location: { offset, line, column } });
  }

  private skipWhitespace(): void {
    const text = this.text;
    let pos = this.pos;
    while (pos < text.length) {
      const c = text.charCodeAt(pos);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) pos++;
      else break;
    }
    this.pos = pos;
  }

  private parseValue(): JsonNode {
    const c = this.text.charCodeAt(this.pos);
    switch (c) {
      case 0x7b /* { */:
        return this.parseObject();
      case 0x5b /* [ */:
        return this.parseArray();
      case 0x22 /* " */:
        return this.parseString();
      case 0x74 /* t */:
        return this.parseLiteral('true', true);
      case 0x66 /* f */:
        return this.parseLiteral('false', false);
      case 0x6e /* n */:
        return this.parseLiteral('null', null);
      default:
        if (c === 0x2d || (c >= 0x30 && c <= 0x39)) return this.parseNumber();
        if (Number.isNaN(c)) this.fail('unexpected end of input, expected a value');
        this.fail(`unexpected character ${JSON.stringify(this.text[this.pos])}, expected a value`);
    }
  }

  private parseLiteral<T>(word: string, value: T): T {
    if (!this.text.startsWith(word, this.pos)) this.fail(`invalid literal, expected ${word}`);
    this.pos += word.length;
    return value;
  }

  private enter(): void {
    if (++this.depth > MAX_JSON_DEPTH) this.fail(`nesting deeper than ${MAX_JSON_DEPTH} levels`);
  }

  private parseObject(): JsonObjectNode {
    this.enter();
    this.pos++; // {
    const keys: string[] = [];
    const values: JsonNode[] = [];
    this.skipWhitespace();
    if (this.text.charCodeAt(this.pos) === 0x7d /* } */) {
      this.pos++;
      this.depth--;
      return new JsonObjectNode(keys, values);
    }
    for (;;) {
      if (this.text.charCodeAt(this.pos) !== 0x22) this.fail('expected a member name in double quotes');
      keys.push(this.parseKey());
      this.skipWhitespace();
      if (this.text.charCodeAt(this.pos) !== 0x3a /* : */) this.fail("expected ':' after a member name");
      this.pos++;
      this.skipWhitespace();
      values.push(this.parseValue());
      this.skipWhitespace();
      const c = this.text.charCodeAt(this.pos);
      if (c === 0x2c /* , */) {
        this.pos++;
        this.skipWhitespace();
        continue;
      }
      if (c === 0x7d /* } */) {
        this.pos++;
        this.depth--;
        return new JsonObjectNode(keys, values);
      }
      this.fail("expected ',' or '}' in an object");
    }
  }

  private parseArray(): JsonNode[] {
    this.enter();
    this.pos++; // [
    const items: JsonNode[] = [];
    this.skipWhitespace();
    if (this.text.charCodeAt(this.pos) === 0x5d /* ] */) {
      this.pos++;
      this.depth--;
      return items;
    }
    for (;;) {
      items.push(this.parseValue());
      this.skipWhitespace();
      const c = this.text.charCodeAt(this.pos);
      if (c === 0x2c) {
        this.pos++;
        this.skipWhitespace();
        continue;
      }
      if (c === 0x5d) {
        this.pos++;
        this.depth--;
        return items;
      }
      this.fail("expected ',' or ']' in an array");
    }
  }

  /**
   * Returns one shared copy of short strings (provenance labels and renamed identifiers repeat
   * across thousands of edits), so that fewer objects survive into the old generation.
   */
  private intern(value: string): string {
    if (value.length > 32) return value;
    const known = this.interned.get(value);
    if (known !== undefined) return known;
    if (this.interned.size < 65_536) this.interned.set(value, value);
    return value;
  }

  /** A member name; the plan's declared names are returned interned (no allocation per member). */
  private parseKey(): string {
    const text = this.text;
    const start = this.pos + 1;
    for (const name of KNOWN_KEYS) {
      if (text.startsWith(name, start) && text.charCodeAt(start + name.length) === 0x22) {
        this.pos = start + name.length + 1;
        return name;
      }
    }
    return this.parseString();
  }

  private parseString(): string {
    const text = this.text;
    const start = ++this.pos; // opening quote
    let pos = start;
    // Fast path: no escapes.
    for (;;) {
      if (pos >= text.length) this.fail('unterminated string', start - 1);
      const c = text.charCodeAt(pos);
      if (c === 0x22) {
        this.pos = pos + 1;
        return this.intern(text.slice(start, pos));
      }
      if (c === 0x5c) break;
      if (c < 0x20) this.fail('unescaped control character in a string', pos);
      pos++;
    }
    let out = text.slice(start, pos);
    for (;;) {
      if (pos >= text.length) this.fail('unterminated string', start - 1);
      const c = text.charCodeAt(pos);
      if (c === 0x22) {
        this.pos = pos + 1;
        return out;
      }
      if (c < 0x20) this.fail('unescaped control character in a string', pos);
      if (c !== 0x5c) {
        const runStart = pos;
        while (pos < text.length) {
          const d = text.charCodeAt(pos);
          if (d === 0x22 || d === 0x5c || d < 0x20) break;
          pos++;
        }
        out += text.slice(runStart, pos);
        continue;
      }
      const e = text.charCodeAt(pos + 1);
      switch (e) {
        case 0x22:
          out += '"';
          break;
        case 0x5c:
          out += '\\';
          break;
        case 0x2f:
          out += '/';
          break;
        case 0x62:
          out += '\b';
          break;
        case 0x66:
          out += '\f';
          break;
        case 0x6e:
          out += '\n';
          break;
        case 0x72:
          out += '\r';
          break;
        case 0x74:
          out += '\t';
          break;
        case 0x75 /* u */: {
          const hex = text.slice(pos + 2, pos + 6);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) this.fail('invalid \\u escape, expected 4 hex digits', pos);
          out += String.fromCharCode(parseInt(hex, 16));
          pos += 6;
          continue;
        }
        default:
          this.fail('invalid escape sequence', pos);
      }
      pos += 2;
    }
  }

  private parseNumber(): number | JsonNumber {
    const text = this.text;
    const start = this.pos;
    let pos = start;
    const negative = text.charCodeAt(pos) === 0x2d;
    if (negative) pos++;
    const first = text.charCodeAt(pos);
    let value = 0;
    if (first === 0x30) pos++;
    else if (first >= 0x31 && first <= 0x39) {
      for (let c = first; isDigit(c); c = text.charCodeAt(++pos)) value = value * 10 + (c - 0x30);
    } else this.fail('invalid number, expected a digit', pos);
    const next = text.charCodeAt(pos);
    if (next !== 0x2e && next !== 0x65 && next !== 0x45 && pos - start - (negative ? 1 : 0) <= 15) {
      if (!(negative && value === 0)) {
        this.pos = pos;
        return negative ? -value : value;
      }
    }
    if (text.charCodeAt(pos) === 0x2e /* . */) {
      pos++;
      if (!isDigit(text.charCodeAt(pos))) this.fail('invalid number, expected a digit after the decimal point', pos);
      while (isDigit(text.charCodeAt(pos))) pos++;
    }
    const e = text.charCodeAt(pos);
    if (e === 0x65 || e === 0x45) {
      pos++;
      const sign = text.charCodeAt(pos);
      if (sign === 0x2b || sign === 0x2d) pos++;
      if (!isDigit(text.charCodeAt(pos))) this.fail('invalid number, expected a digit in the exponent', pos);
      while (isDigit(text.charCodeAt(pos))) pos++;
    }
    this.pos = pos;
    return new JsonNumber(text.slice(start, pos));
  }
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}
