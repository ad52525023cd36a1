import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { JsonNumber, decodeEditPlan, type JsonValue, serializeEditPlan, validateEditPlan } from '../../src/editplan/index.js';
import { edit, file, HASH, plan } from './helpers.js';

const KEYS = ['alpha', '\u{1F600}', 'Beta', '', '\u{E000}'];
const ext = (level: string) => `{${KEYS.map((k, i) => `${JSON.stringify(k)}:"${level}${i}"`).join(',')}}`;

describe('serializeEditPlan', () => {
  it('round-trip keeps unknown members at every level and orders them by code point', () => {
    const extMembers = (level: string) => ext(level).slice(1, -1);
    const json =
      `{${extMembers('p')},"files":[{${extMembers('f')},"edits":[{${extMembers('e')},"provenance":"RESOLVED",` +
      `"after":"B","before":"a","endChar":1,"endLine":1,"startChar":0,"startLine":1}],"sha256":"${HASH}","path":"a.ts"}],` +
      `"completeness":"PARTIAL","operation":"op","schemaVersion":"weavatrix.edit-plan.v1"}`;
    // Code-point order: "" < "Beta" < "alpha" < U+E000 < U+1F600 (JS `<` would put U+1F600 first).
    const sorted = (level: string) => `"":"${level}3","Beta":"${level}2","alpha":"${level}0","\u{E000}":"${level}4","\u{1F600}":"${level}1"`;
    const expected =
      `{"schemaVersion":"weavatrix.edit-plan.v1","operation":"op","files":[{"path":"a.ts","sha256":"${HASH}","edits":[` +
      `{"startLine":1,"startChar":0,"endLine":1,"endChar":1,"before":"a","after":"B","provenance":"RESOLVED",${sorted('e')}}],` +
      `${sorted('f')}}],"completeness":"PARTIAL",${sorted('p')}}`;
    const decoded = decodeEditPlan(json);
    expect(serializeEditPlan(decoded)).toBe(expected);
    expect(serializeEditPlan(decodeEditPlan(expected))).toBe(expected);
    expect(['\u{E000}', '\u{1F600}'].sort()).toEqual(['\u{1F600}', '\u{E000}']); // why compareUtf8 is needed
  });

  it('omits completeness when absent and writes programmatic extensions (Map, object, number)', () => {
    const p = plan([
      {
        ...file('a.ts'),
        extensions: new Map<string, JsonValue>([
          ['z', { b: 1, a: [true, null] }],
          ['n', new JsonNumber('1e400')],
        ]),
      },
    ]);
    expect(serializeEditPlan(p)).toBe(
      `{"schemaVersion":"weavatrix.edit-plan.v1","operation":"rename_symbol","files":[{"path":"a.ts","sha256":"${HASH}",` +
        `"edits":[{"startLine":1,"startChar":0,"endLine":1,"endChar":1,"before":"a","after":"b","provenance":"EXACT_LSP"}],` +
        `"n":1e400,"z":{"a":[true,null],"b":1}}]}`,
    );
  });

  it('nested extension objects are written in code-point key order too', () => {
    const p = decodeEditPlan(
      `{"schemaVersion":"weavatrix.edit-plan.v1","operation":"o","files":[${JSON.stringify(file('a.ts'))}],"x":{"\u{1F600}":1,"\u{E000}":2,"a":{"b":1,"A":2}}}`,
    );
    expect(serializeEditPlan(p)).toMatch(/"x":\{"a":\{"A":2,"b":1\},"\u{E000}":2,"\u{1F600}":1\}\}$/u);
  });

  it('pretty printing with indent keeps the same data', () => {
    const p = plan([file('a.ts', [edit(1, 0, 1, 1, 'a', 'b')])], { completeness: 'COMPLETE' });
    const pretty = serializeEditPlan(p, { indent: 2 });
    expect(pretty.split('\n')[1]).toBe('  "schemaVersion": "weavatrix.edit-plan.v1",');
    expect(serializeEditPlan(decodeEditPlan(pretty))).toBe(serializeEditPlan(p));
  });

  it('indented output: edits with and without extensions are laid out alike', () => {
    const p = plan([file('a.ts', [edit(1, 0, 1, 1, 'a', 'b'), { ...edit(2, 0, 2, 1, 'c', 'd'), extensions: new Map([['k', [1]]]) }])]);
    const lines = serializeEditPlan(p, { indent: 2 }).split('\n');
    expect(lines.slice(8, 27)).toEqual([
      '        {',
      '          "startLine": 1,',
      '          "startChar": 0,',
      '          "endLine": 1,',
      '          "endChar": 1,',
      '          "before": "a",',
      '          "after": "b",',
      '          "provenance": "EXACT_LSP"',
      '        },',
      '        {',
      '          "startLine": 2,',
      '          "startChar": 0,',
      '          "endLine": 2,',
      '          "endChar": 1,',
      '          "before": "c",',
      '          "after": "d",',
      '          "provenance": "EXACT_LSP",',
      '          "k": [',
      '            1',
    ]);
  });

  it('refuses non-finite positions', () => {
    expect(() => serializeEditPlan(plan([file('a.ts', [edit(1, NaN, 1, 1, 'a', 'b')])]))).toThrow(TypeError);
  });

  it('the fixture plan decodes, validates and re-serializes to itself', () => {
    const text = readFileSync(new URL('../../fixtures/editplan/rename-user/plan.json', import.meta.url), 'utf8');
    const p = decodeEditPlan(text);
    expect(validateEditPlan(p)).toEqual({ files: 2, totalEdits: 3, totalTextBytes: 54 });
    expect(serializeEditPlan(p, { indent: 2 }) + '\n').toBe(text);
  });
});
