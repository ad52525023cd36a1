// Test switches stay out of the product: the fault a test injects through the `faults` hooks
// (test/helpers/faults.ts) has a code the registry does not hold, so the library, its build and the
// bundles neither name nor map it; and a GcError built from the shipped code with that code would
// not be a registered one.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyPatch, readPatchFile } from '../../src/patch/apply/apply.js';
import { GC_CODES } from '../../src/util/codes.js';
import { CODE_MEANINGS } from '../../src/util/code-meanings.js';
import { INJECTED_FAULT, injectedFault } from '../helpers/faults.js';
import { copyPackage, DEMO_PATCH, errorOf, snapshotTree } from '../patch/helpers.js';

const root = join(import.meta.dirname, '..', '..');
/** The shipped JavaScript: the tsc build (`npm run build`), the driver bundle and the Action bundle. */
const SHIPPED = ['dist/util/codes.js', 'dist/util/code-meanings.js', 'dist/patch/protocol/errors.js', 'driver/dist/index.js', 'action/dist/index.js'];

describe('test switches', () => {
  it('the registry and its meanings hold no injected-fault code', () => {
    const codes = [...Object.keys(GC_CODES), ...Object.keys(CODE_MEANINGS)];
    expect(codes.filter((code) => code.includes('injected') || code.startsWith('test/'))).toEqual([]);
    expect(Object.hasOwn(GC_CODES, INJECTED_FAULT)).toBe(false);
  });

  it.each(SHIPPED)('%s does not carry the injected-fault code', (file) => {
    const path = join(root, file);
    expect(existsSync(path), `${file} is built (npm run build; the bundles by npm run build:driver / build:action)`).toBe(true);
    expect(readFileSync(path, 'utf8')).not.toMatch(/injected-fault|injectedFault/);
  });

  it('the harness still reaches the hooks (control): an injected fault rolls the apply back', () => {
    const pkg = copyPackage();
    const before = snapshotTree(pkg);
    const error = errorOf(() =>
      applyPatch({
        pkg,
        patch: readPatchFile(DEMO_PATCH),
        faults: (step) => {
          if (step === 'after-report-stored') throw injectedFault('late');
        },
      }),
    );
    expect(error.code).toBe(INJECTED_FAULT);
    expect(snapshotTree(pkg)).toEqual(before);
  });

  it('without the harness the same apply succeeds (nothing in the product throws the fault)', () => {
    const pkg = copyPackage();
    const before = snapshotTree(pkg);
    applyPatch({ pkg, patch: readPatchFile(DEMO_PATCH) });
    expect(snapshotTree(pkg)).not.toEqual(before);
  });
});
