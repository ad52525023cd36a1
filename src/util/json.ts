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
    else if (Array.isArray(v)) {
      if (v.length === 0) {
        out.push('[]');
        continue;
      }
      out.push('[');
      stack.push({ kind: 'text', text: nl(f.depth) + ']' });
      for (let i = v.length - 1; i >= 0; i--) {
        stack.push({ kind: 'value', value: v[i], depth: f.depth + 1 });
        stack.push({ kind: 'text', text: (i > 0 ? ',' : '') + nl(f.depth + 1) });
      }
    } else {
      const keys = Object.keys(v).filter((k) => (v as Record<string, unknown>)[k] !== undefined);
      if (keys.length === 0) {
        out.push('{}');
        continue;
      }
      out.push('{');
      stack.push({ kind: 'text', text: nl(f.depth) + '}' });
      for (let i = keys.length - 1; i >= 0; i--) {
        const k = keys[i]!;
        stack.push({ kind: 'value', value: (v as Record<string, unknown>)[k], depth: f.depth + 1 });
        stack.push({ kind: 'text', text: (i > 0 ? ',' : '') + nl(f.depth + 1) + JSON.stringify(k) + (indent > 0 ? ': ' : ':') });
      }
    }
  }
  return out.join('');
}
