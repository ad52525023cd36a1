// Membership by manifest and roles (src/verify-pr/accounting.ts, docs/security.md "Membership by manifest").
import { describe, expect, it } from 'vitest';
import { owners, pathFindings, roleIn, type CandidatePackage } from '../../src/verify-pr/walk/accounting.js';
import type { ChangedEntry } from '../../src/git/repository.js';

function pkg(dir: string, modules: string[], capsPolicy?: string): CandidatePackage {
  const listing = { modules: new Set(modules), capsPolicy, name: dir };
  return { dir, manifestPath: dir === '' ? 'package.toml' : `${dir}/package.toml`, base: listing, head: listing };
}

const outer = pkg('ledger', ['money/currency.gc', 'core/int.gc'], 'caps.toml');
const nested = pkg('ledger/money', ['amount.gc']);
const root = pkg('', ['tools/x.gc']);
const candidates = new Map([outer, nested, root].map((c) => [c.dir, c]));
const dirs = (path: string) => owners(path, candidates).map((c) => c.dir);

describe('owners', () => {
  it('gives a file to every package whose manifest lists it, else to the innermost package', () => {
    // a nested package.toml cannot take the outer package's module away from it
    expect(dirs('ledger/money/currency.gc')).toEqual(['ledger']);
    expect(dirs('ledger/money/amount.gc')).toEqual(['ledger/money']);
    expect(dirs('ledger/money/notes.txt')).toEqual(['ledger/money']);
    expect(dirs('ledger/money/package.toml')).toEqual(['ledger/money']);
    expect(dirs('ledger/core/int.gc')).toEqual(['ledger']);
    expect(dirs('tools/x.gc')).toEqual(['']);
    expect(dirs('ledger')).toEqual(['ledger']);
    expect(owners('elsewhere/y.gc', new Map([[outer.dir, outer]]))).toEqual([]);
  });

  it('lists a file under two packages when both manifests list it', () => {
    const twice = pkg('ledger/money', ['amount.gc', 'currency.gc']);
    const m = new Map([outer, twice].map((c) => [c.dir, c]));
    expect(
      owners('ledger/money/currency.gc', m)
        .map((c) => c.dir)
        .sort(),
    ).toEqual(['ledger', 'ledger/money']);
  });
});

describe('roleIn', () => {
  it.each([
    ['ledger', 'package-dir'],
    ['ledger/package.toml', 'manifest'],
    ['ledger/money/currency.gc', 'module'],
    ['ledger/caps.toml', 'policy'],
    ['ledger/toolcaps.toml', 'policy'],
    ['ledger/.genesis/store/' + 'a'.repeat(64), 'store-entry'],
    ['ledger/.genesis/store', 'store-entry'],
    ['ledger/.genesis/last_acceptance', 'genesis-file'],
    ['ledger/extra.gc', 'unlisted-module'],
    ['ledger/README.md', 'package-file'],
    ['ledger/sub/conf.toml', 'package-file'],
    // red-team round 5: `--caps` takes any path, so a policy file in a subdirectory is a policy too
    ['ledger/ci/caps.ci.toml', 'policy'],
    ['ledger/config/deep/toolcaps.toml', 'policy'],
    ['ledger/.genesis/caps.toml', 'genesis-file'],
    // red-team round 6: a directory named for policies
    ['ledger/caps/ci.toml', 'policy'],
    ['ledger/caps/README.md', 'package-file'],
  ] as const)('%s is a %s', (path, role) => {
    expect(roleIn(outer, path)).toBe(role);
  });
});

describe('pathFindings', () => {
  const e = (path: string, from: [string, string] | undefined, to: [string, string] | undefined): ChangedEntry => ({
    path,
    from: from && { oid: 'a'.repeat(40), mode: from[1], kind: from[0] as never },
    to: to && { oid: 'b'.repeat(40), mode: to[1], kind: to[0] as never },
  });
  const codes = (entry: ChangedEntry, role: Parameters<typeof pathFindings>[1]) =>
    pathFindings(entry, role, 'ledger/package.toml').map((f) => `${f.severity} ${f.code}`);

  it('fails closed on content that is not a regular file, and only there', () => {
    expect(codes(e('ledger/core/int.gc', ['blob', '100644'], ['symlink', '120000']), 'module')).toEqual(['error audit/not-a-regular-file']);
    expect(codes(e('ledger/core/int.gc', ['blob', '100644'], ['gitlink', '160000']), 'module')).toEqual(['error audit/not-a-regular-file']);
    expect(codes(e('ledger/package.toml', ['blob', '100644'], ['tree', '040000']), 'manifest')).toEqual(['error audit/not-a-regular-file']);
    expect(codes(e('ledger/.genesis/store/' + 'a'.repeat(64), undefined, ['symlink', '120000']), 'store-entry')).toEqual(['error audit/not-a-regular-file']);
    expect(codes(e('ledger/.genesis/store', undefined, ['tree', '040000']), 'store-entry')).toEqual([]);
    expect(codes(e('ledger/.genesis', ['tree', '040000'], ['symlink', '120000']), 'store-entry')).toEqual(['error audit/not-a-regular-file']);
    expect(codes(e('ledger', ['tree', '040000'], ['gitlink', '160000']), 'package-dir')).toEqual(['error audit/not-a-regular-file']);
    // red-team round 6: any path of a package that becomes a symlink or a gitlink (a directory of policies, a README)
    expect(codes(e('ledger/README.md', ['blob', '100644'], ['symlink', '120000']), 'package-file')).toEqual(['error audit/not-a-regular-file']);
    expect(codes(e('ledger/ci', undefined, ['symlink', '120000']), 'package-file')).toEqual(['error audit/not-a-regular-file']);
    expect(codes(e('ledger/ci', undefined, ['gitlink', '160000']), 'package-file')).toEqual(['error audit/not-a-regular-file']);
    expect(codes(e('ledger/.genesis/last_acceptance', ['blob', '100644'], ['symlink', '120000']), 'genesis-file')).toEqual(['error audit/not-a-regular-file']);
    expect(codes(e('docs/ledger', undefined, ['symlink', '120000']), 'outside')).toEqual([]);
    expect(codes(e('ledger/README.md', ['symlink', '120000'], undefined), 'package-file')).toEqual([]);
    expect(codes(e('ledger/core/int.gc', ['blob', '100644'], ['blob', '100644']), 'module')).toEqual([]);
  });

  it('warns on mode changes, unlisted modules and .gc files outside every package', () => {
    expect(codes(e('ledger/core/int.gc', ['blob', '100644'], ['executable', '100755']), 'module')).toEqual(['warning audit/mode-changed']);
    expect(codes(e('ledger/extra.gc', undefined, ['blob', '100644']), 'unlisted-module')).toEqual(['warning audit/unlisted-module']);
    expect(codes(e('ledger/extra.gc', ['blob', '100644'], undefined), 'unlisted-module')).toEqual([]);
    expect(codes(e('tools/gen.gc', undefined, ['blob', '100644']), 'outside')).toEqual(['warning audit/outside-package']);
    expect(codes(e('tools/gen.py', undefined, ['blob', '100644']), 'outside')).toEqual([]);
  });
});
