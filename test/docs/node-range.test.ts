// The README's Node range is true for `npm ci`: it is package.json's `engines`, and the README names
// exactly the locked packages whose own `engines` exclude that Node version (each a dev dependency).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

type Version = [number, number, number];

function version(text: string): Version {
  const [a = 0, b = 0, c = 0] = text
    .replace(/^v/, '')
    .split('.')
    .map((x) => Number.parseInt(x, 10));
  return [a, b, c];
}

function compare(x: Version, y: Version): number {
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return 0;
}

/** Whether Node `v` satisfies an engines range of the forms the lock uses (`>=a.b`, `^a.b`, `a || b`, `*`). */
function satisfies(v: Version, range: string): boolean {
  return range
    .replace(/(>=|<=|>|<|\^|~|=)\s+/g, '$1')
    .split('||')
    .some((alt) => {
      const parts = alt
        .trim()
        .split(/\s+/)
        .filter((p) => p !== '');
      return (
        parts.length > 0 &&
        parts.every((p) => {
          if (p === '*' || p === 'x') return true;
          const m = /^(>=|\^|~|>|<=|<|=)?v?([\d.x*]+)$/.exec(p);
          if (!m) throw new Error(`unexpected engines range ${range}`);
          const w = version(m[2]!.replace(/[x*]/g, '0'));
          switch (m[1]) {
            case '>=':
              return compare(v, w) >= 0;
            case '>':
              return compare(v, w) > 0;
            case '<':
              return compare(v, w) < 0;
            case '<=':
              return compare(v, w) <= 0;
            case '^':
              return v[0] === w[0] && compare(v, w) >= 0;
            case '~':
              return v[0] === w[0] && v[1] === w[1] && compare(v, w) >= 0;
            default:
              return m[2]!.split('.').length < 3 ? v[0] === w[0] : compare(v, w) === 0;
          }
        })
      );
    });
}

describe("the README's Node range", () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { engines?: { node?: string } | string[]; dev?: boolean; optional?: boolean; devOptional?: boolean }>;
  };
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const min = version(/^>=(\d+\.\d+(?:\.\d+)?)$/.exec(pkg.engines.node)![1]!);

  it('is package.json engines', () => {
    expect(pkg.engines.node).toBe('>=20.19');
    expect(readme).toContain('Node ≥ 20.19');
  });

  it('names every locked package that wants a newer Node, and each is a dev dependency', () => {
    const newer = Object.entries(lock.packages)
      .filter(
        ([path, p]) => path !== '' && p.optional !== true && !Array.isArray(p.engines) && p.engines?.node !== undefined && !satisfies(min, p.engines.node),
      )
      .map(([path, p]) => ({ name: path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length), dev: p.dev === true }));
    expect(newer.length).toBeGreaterThan(0);
    for (const n of newer) {
      expect(n.dev, `${n.name} is not a dev dependency`).toBe(true);
      expect(readme, `README names ${n.name}`).toContain(`\`${n.name}\``);
    }
    const named = /declare Node ≥ 22: ([^.]*)\./
      .exec(readme.replace(/\n/g, ' '))![1]!
      .match(/`[^`]+`/g)!
      .map((s) => s.slice(1, -1));
    expect(named.sort()).toEqual([...new Set(newer.map((n) => n.name))].sort());
  });

  it('the range check itself (control)', () => {
    expect(satisfies([20, 19, 0], '^20.19.0 || >=22.12.0')).toBe(true);
    expect(satisfies([20, 19, 0], '>=22.0.0')).toBe(false);
    expect(satisfies([20, 19, 0], '^20 || ^22 || ^24')).toBe(true);
    expect(satisfies([20, 19, 0], '>=22')).toBe(false);
    expect(satisfies([20, 19, 0], '>= 18')).toBe(true);
  });
});
