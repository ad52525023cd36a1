import { describe, expect, it } from 'vitest';
import { parseManifestTable, renderManifest } from '../../src/workspace/manifest-write.js';
import { parseManifest } from '../../src/workspace/manifest.js';

describe('package.toml writer (docs/reference/package-toml.md §4 style)', () => {
  const source = `# comment
name = "p"
version = "1.0.0"
schema = 1
obligations = ["b", "a"]
dependencies = []
ratio = 1.0
when = 2024-01-02
"odd key" = "x\\ty"

[limits]
step_limit = 10
allow_unlimited = false

[gfx.golden]
path = "g.png"

[[modules]]
path = "a.gc"
hash = ""
extra = 3

[[dependencies2]]
name = "d"
`;
  it('keeps arrays of zero or one item on one line and writes two or more one per line', () => {
    const text = renderManifest({
      a0: [],
      a1: ['pkg/basic::tests'],
      a2: ['x', 'y'],
      n1: [1n],
      nested: [['p', 'q']],
      t: { inner: ['only'], two: [true, false] },
    });
    expect(text).toBe(`a0 = []
a1 = ["pkg/basic::tests"]
a2 = [
    "x",
    "y",
]
n1 = [1]
nested = [["p", "q"]]

[t]
inner = ["only"]
two = [
    true,
    false,
]
`);
    expect(renderManifest(parseManifestTable(text))).toBe(text);
  });

  it('sorts keys, puts tables then arrays of tables with [[modules]] last, keeps unknown keys and value types', () => {
    const text = renderManifest(parseManifestTable(source));
    expect(text).toBe(`dependencies = []
name = "p"
obligations = [
    "b",
    "a",
]
"odd key" = "x\\ty"
ratio = 1.0
schema = 1
version = "1.0.0"
when = 2024-01-02

[gfx.golden]
path = "g.png"

[limits]
allow_unlimited = false
step_limit = 10

[[dependencies2]]
name = "d"

[[modules]]
extra = 3
hash = ""
path = "a.gc"
`);
    // round trip: re-parsing and re-rendering is stable and still a valid manifest
    expect(renderManifest(parseManifestTable(text))).toBe(text);
    expect(parseManifest(text).modules).toEqual([{ path: 'a.gc', hash: '' }]);
  });
});
