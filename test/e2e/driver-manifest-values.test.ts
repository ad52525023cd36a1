// End-to-end (docs/driver.md "The `package.toml` driver"): real `git merge` / `git rebase` with the bundled package.toml
// driver (driver/dist/index.js; `npm run build:driver` first): a quoted "__proto__" key, -0.0,
// -nan, and a 20,000-module manifest past a tiny GCPATCH_DRIVER_TIMEOUT_MS budget.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { installDriver } from '../../src/driver-setup/install.js';
import { parseManifestTable } from '../../src/textmerge/manifest.js';
import { commit, git, initRepo } from '../driver/helpers.js';
import { useTempHome } from '../helpers/home.js';

useTempHome();

const HEAD = 'name = "demo"\nobligations = []\nschema = 1\nversion = "0.1.0"\n';
const MOD = '\n[[modules]]\nhash = ""\npath = "a.gc"\n';

/** main has `ours`, branch feature has `theirs`, both from `base`; merges feature into main. */
function merge(base: string, ours: string, theirs: string, env: Record<string, string> = {}) {
  const repo = initRepo();
  installDriver({ cwd: repo });
  commit(repo, { 'package.toml': base }, 'base');
  git(repo, ['checkout', '-q', '-b', 'feature']);
  commit(repo, { 'package.toml': theirs }, 'theirs');
  git(repo, ['checkout', '-q', 'main']);
  commit(repo, { 'package.toml': ours }, 'ours');
  const r = git(repo, ['merge', '--no-edit', 'feature'], env);
  return { repo, status: r.status, stderr: r.stderr, text: readFileSync(join(repo, 'package.toml'), 'utf8') };
}

describe('git merge of package.toml with the gcpatch-manifest driver', () => {
  it('keeps a quoted "__proto__" key theirs added next to ours\' change', () => {
    const base = HEAD + MOD;
    const r = merge(base, base.replace('schema = 1', 'schema = 2'), base.replace('version = "0.1.0"\n', 'version = "0.1.0"\n"__proto__" = "kept"\n'));
    expect(r.status).toBe(0);
    const t = parseManifestTable(new TextEncoder().encode(r.text));
    expect(Object.hasOwn(t, '__proto__')).toBe(true);
    expect(t['__proto__']).toBe('kept');
    expect(t['schema']).toBe(2n);
  });

  for (const [from, to] of [
    ['0.0', '-0.0'],
    ['nan', '-nan'],
  ] as const) {
    it(`theirs' ${from} → ${to} next to ours' change: never a clean merge without ${to}`, () => {
      const base = `${HEAD}x = ${from}\ny = 1\n`;
      const r = merge(base, base.replace('y = 1', 'y = 2'), base.replace(`x = ${from}`, `x = ${to}`));
      expect(r.status).toBeLessThanOrEqual(1);
      expect(r.text).toContain(`x = ${to}\n`);
      // Clean: ours' change is in; conflicted: the markers are.
      expect(r.text).toMatch(r.status === 0 ? /y = 2/ : /^<{7} /m);
      const far = merge(`${HEAD}x = ${from}\n${MOD}`, `${HEAD.replace('"demo"', '"d2"')}x = ${from}\n${MOD}`, `${HEAD}x = ${to}\n${MOD}`);
      expect(far.status).toBe(0);
      expect(far.text).toBe(`${HEAD.replace('"demo"', '"d2"')}x = ${to}\n${MOD}`);
    });
  }

  it('20,000 modules past a 1 ms budget: the driver says so and takes the line merge', () => {
    const many = (pin: (i: number) => string) =>
      HEAD + Array.from({ length: 20_000 }, (_, i) => `\n[[modules]]\nhash = "${pin(i)}"\npath = "src/m${i}.gc"\n`).join('');
    const base = many(() => '0'.repeat(64));
    const ours = many((i) => (i === 100 ? 'a' : '0').repeat(64));
    const theirs = many((i) => (i === 19_000 ? 'b' : '0').repeat(64));
    const r = merge(base, ours, theirs, { GCPATCH_DRIVER_TIMEOUT_MS: '1' });
    expect(r.status).toBe(0);
    expect(r.stderr).toMatch(/exceeded its 1 ms budget/);
    expect(r.text).toBe(many((i) => (i === 100 ? 'a' : i === 19_000 ? 'b' : '0').repeat(64)));
  }, 120_000);
});
