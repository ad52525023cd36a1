/** An iterative JSON writer: deep values (100,000 levels) do not overflow the stack like JSON.stringify. */

type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue } | undefined;

/**
 * Serializes a JSON value like `JSON.stringify(value, null, indent)` but without recursion.
 * `undefined` members of objects are skipped; `undefined` array items print as `null`.
 * @param value the value; @param indent spaces per level (0 = compact).
 */
export function stringifyJson(value: unknown, indent = 0): string {
  const out: string[] = [];
  type Frame = { kind: 'value'; value: unknown; depth: number } | { kind: 'text'; text: string };
  const stack: Frame[] = [{ kind: 'value', value, depth: 0 }];
  const nl = (depth: number): string => (indent > 0 ? '\n' + ' '.repeat(indent * depth) : '');
  while (stack.length > 0) {
    const f = stack.pop()!;
    if (f.kind === 'text') {
      out.push(f.text);
      continue;
    }
    const v = f.value as JsonValue;
    if (v === null || v === undefined) out.push('null');
    else if (typeof v === 'boolean') out.push(v ? 'true' : 'false');
    else if (typeof v === 'number') out.push(Number.isFinite(v) ? String(v) : 'null');
    else if (typeof v === 'string') out.push(JSON.stringify(v));
    else if (typeof v === 'bigint') out.push(String(v));
    else {
      // An array's items and an object's defined members, written the same way (an object's with its key).
      const obj = v as Record<string, JsonValue>;
      const keys = Array.isArray(v) ? undefined : Object.keys(v).filter((k) => obj[k] !== undefined);
      const count = keys === undefined ? (v as JsonValue[]).length : keys.length;
      const open = keys === undefined ? '[' : '{';
      const close = keys === undefined ? ']' : '}';
      if (count === 0) {
        out.push(open + close);
        continue;
      }
      out.push(open);
      stack.push({ kind: 'text', text: nl(f.depth) + close });
      for (let i = count - 1; i >= 0; i--) {
        const label = keys === undefined ? '' : JSON.stringify(keys[i]) + (indent > 0 ? ': ' : ':');
        stack.push({ kind: 'value', value: keys === undefined ? (v as JsonValue[])[i] : obj[keys[i]!], depth: f.depth + 1 });
        stack.push({ kind: 'text', text: (i > 0 ? ',' : '') + nl(f.depth + 1) + label });
      }
    }
  }
  return out.join('');
}
