import { describe, expect, it } from 'vitest';
import { isWindowsDeviceName, pathProblem, portablePathKey, validateEditPlan } from '../../src/editplan/index.js';
import { expectFailure, file, plan } from './helpers.js';

const DEVICES = [
  'CON',
  'PRN',
  'AUX',
  'NUL',
  'CONIN$',
  'CONOUT$',
  'COM1',
  'COM2',
  'COM3',
  'COM4',
  'COM5',
  'COM6',
  'COM7',
  'COM8',
  'COM9',
  'LPT1',
  'LPT2',
  'LPT3',
  'LPT4',
  'LPT5',
  'LPT6',
  'LPT7',
  'LPT8',
  'LPT9',
];

describe('path rules: every Windows device name is rejected, bare, lowercased, with an extension, as a directory', () => {
  for (const name of DEVICES) {
    for (const path of [name, name.toLowerCase(), `src/${name}.ts`, `${name.toLowerCase()}.tar.gz/x.rs`]) {
      it(`${JSON.stringify(path)} → INVALID_PATH`, () => {
        expect(isWindowsDeviceName(path.split('/')[path.startsWith('src/') ? 1 : 0]!)).toBe(true);
        expectFailure(() => validateEditPlan(plan([file(path)])), { code: 'INVALID_PATH', fileIndex: 0 });
      });
    }
  }
});

describe('path rules: rejected paths (INVALID_PATH with the file index)', () => {
  const rejected: Array<[string, string]> = [
    ['', 'empty'],
    ['/a.rs', 'absolute'],
    ['a\\b.rs', 'backslash'],
    ['C:/a.rs', 'drive prefix'],
    ['a.rs:stream', 'NTFS stream'],
    ['a//b.rs', 'empty segment'],
    ['trailing/', 'trailing slash'],
    ['a/./b.rs', '. segment'],
    ['a/../b.rs', '.. segment'],
    ['./a.rs', 'leading .'],
    ['../a.rs', 'leading ..'],
    ['.git/config', '.git'],
    ['.GIT/config', '.GIT upper'],
    ['src/.Git/hooks', '.Git mixed case inside'],
    ['src/.git./hooks.rs', '.git. (trailing dot)'],
    ['.git /x', '.git + space'],
    ['src./a.rs', 'segment ending in dot'],
    ['src/a.rs ', 'trailing space'],
    ['src/a.', 'file ending in dot'],
    ['src/\u0000bad.rs', 'NUL byte'],
    ['src/\u001fbad.rs', 'U+001F'],
    ['src/\tbad.rs', 'tab'],
    ['src/\nbad.rs', 'newline'],
    ['src/\u007fbad.rs', 'DEL'],
    ['src/\u0085bad.rs', 'C1 NEL (spec: control character)'],
    ['src/\u009fbad.rs', 'C1 U+009F'],
    ['src/\ud800bad.rs', 'lone surrogate'],
  ];
  for (const [path, why] of rejected) {
    it(`${why}: ${JSON.stringify(path)}`, () => {
      expect(pathProblem(path, 4096)).toBeTypeOf('string');
      expectFailure(() => validateEditPlan(plan([file('ok.ts'), file(path)])), { code: 'INVALID_PATH', fileIndex: 1 });
    });
  }
});

describe('path rules: accepted paths', () => {
  const accepted = [
    'a<b>.rs',
    'a|b.rs',
    'what?.rs',
    'star*.rs',
    'quote".rs',
    '< > | ? */x.rs',
    ' leading-space.rs',
    'foo..bar/a.rs',
    '.gitignore',
    '.github/workflows/ci.yml',
    '.gitx/a',
    '.g\u0131t/a',
    '日本語/😀.rs',
    'COM0.rs',
    'COM10.rs',
    'LPT0',
    'console.ts',
    'LPT\u00b9',
    'con\u0131n$',
    'nul-ish/aux_file.rs',
    'src/a\u00a0.rs',
  ];
  for (const path of accepted) {
    const title = JSON.stringify(path);
    it(title, () => {
      expect(pathProblem(path, 4096)).toBeUndefined();
      expect(validateEditPlan(plan([file(path)])).files).toBe(1);
    });
  }
});

describe('path rules: byte budget', () => {
  it('a.rs passes with maxPathBytes 4 and fails with 3', () => {
    expect(validateEditPlan(plan([file('a.rs')]), { maxPathBytes: 4 }).files).toBe(1);
    expectFailure(() => validateEditPlan(plan([file('a.rs')]), { maxPathBytes: 3 }), { code: 'INVALID_PATH', fileIndex: 0 });
  });
  it('counts UTF-8 bytes, not UTF-16 units (é is 2 bytes)', () => {
    expect(pathProblem('\u00e9', 2)).toBeUndefined();
    expect(pathProblem('\u00e9', 1)).toMatch(/UTF-8 bytes/);
  });
});

describe('portable alias key', () => {
  const vectors: Record<string, string> = {
    'Src/Foo.RS': 'src/foo.rs',
    'src./Foo ': 'src/foo',
    'a//b.rs ': 'a//b.rs',
    'trailing/': 'trailing/',
    'ПРИВЕТ/Мир.RS': 'привет/мир.rs',
    'greekΣ/UNIT.rs': 'greekς/unit.rs',
    ΟΔΟΣ: 'οδος',
    'ΟΔΟΣ.rs': 'οδοσ.rs',
    'mixed\u0130name/A': 'mixedi\u0307name/a',
    '\u212A.rs': 'k.rs',
    '\u212Bngstr\u00f6m': '\u00e5ngstr\u00f6m',
    'STRASSE/stra\u00dfe': 'strasse/stra\u00dfe',
    '日本語/😀.RS': '日本語/😀.rs',
  };
  for (const [path, key] of Object.entries(vectors)) {
    it(`${JSON.stringify(path)} → ${JSON.stringify(key)}`, () => {
      expect(portablePathKey(path)).toBe(key);
    });
  }
});

describe('path aliases inside one plan', () => {
  /** Why the two paths alias → the pair. */
  const aliasPairs: Record<string, [string, string]> = {
    'exact duplicate': ['src/a.rs', 'src/a.rs'],
    'ASCII case': ['Src/Foo.rs', 'src/foo.RS'],
    'KELVIN SIGN U+212A aliases K': ['\u212Aey.rs', 'Key.rs'],
    'ANGSTROM SIGN U+212B aliases U+00C5': ['\u212Bngstr\u00f6m.md', '\u00c5ngstr\u00f6m.md'],
    'word-final capital sigma lowercases to final sigma': ['dir/\u039f\u0394\u039f\u03a3', 'dir/\u03bf\u03b4\u03bf\u03c2'],
  };
  for (const [why, [first, second]] of Object.entries(aliasPairs)) {
    it(`${why}: INVALID_PLAN on the later file`, () => {
      expectFailure(() => validateEditPlan(plan([file('x.ts'), file(first), file(second)])), {
        code: 'INVALID_PLAN',
        fileIndex: 2,
      });
    });
  }
  const distinct: Array<[string, string, string]> = [
    ['\u00e5.rs', 'a\u030a.rs', 'NFC å vs NFD a + U+030A are not aliased'],
    ['stra\u00dfe.rs', 'strasse.rs', 'ß is lowercased, not case-folded'],
    ['a.rs', 'a.rs.bak', 'different names'],
  ];
  for (const [first, second, why] of distinct) {
    it(why, () => {
      expect(portablePathKey(first)).not.toBe(portablePathKey(second));
      expect(validateEditPlan(plan([file(first), file(second)])).files).toBe(2);
    });
  }
});
