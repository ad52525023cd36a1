/** Test helper: a generated package of many modules, pinned, and a patch touching every one of them. */
import { accessSync, constants, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packOnDisk } from '../../src/patch/apply/host.js';

const pad = (i: number) => String(i).padStart(3, '0');

/**
 * Writes a package of `n` modules `m/mNNN.gc` (each calls `p::shared`) plus `extra.gc`, packs it
 * (so every pin matches) and returns its directory, under `base` (default `os.tmpdir()`).
 */
export function makeBigPackage(n: number, base = tmpdir()): string {
  const dir = join(mkdtempSync(join(base, 'gcpatch-big-')), 'pkg');
  mkdirSync(join(dir, 'm'), { recursive: true });
  let toml = 'dependencies = []\nname = "big"\nobligations = []\nschema = 1\ntests = []\nversion = "0.1.0"\n';
  for (let i = 0; i < n; i++) {
    writeFileSync(join(dir, 'm', `m${pad(i)}.gc`), `(def ::meta '{:caps [] :exports [p::f${pad(i)}]})\n\n(def p::f${pad(i)} (fn (x) (p::shared x)))\n`);
    toml += `\n[[modules]]\nhash = ""\npath = "m/m${pad(i)}.gc"\n`;
  }
  writeFileSync(join(dir, 'extra.gc'), '(def p::extra 1)\n');
  toml += '\n[[modules]]\nhash = ""\npath = "extra.gc"\n';
  writeFileSync(join(dir, 'package.toml'), toml);
  packOnDisk(dir);
  return dir;
}

/** The source of a patch renaming `p::shared` in all `n` modules, adding `new/deep/added.gc` and removing `extra.gc`. */
export function bigPatchSource(n: number): string {
  const ops: string[] = [];
  for (let i = 0; i < n; i++) ops.push(`{:op :rename-symbol :module-path "m/m${pad(i)}.gc" :from p::shared :to p::common}`);
  ops.push('{:op :add-module :module-path "new/deep/added.gc" :content "(def p::added 2)\\n"}');
  ops.push('{:op :remove-module :module-path "extra.gc"}');
  return `{:version 1 :intent "rename p::shared everywhere" :provenance {:tool "gcpatch tests"} :ops [\n${ops.join('\n')}]}\n`;
}

/**
 * A memory-backed temp base for tests that do tens of thousands of renames (`/dev/shm` when it is a
 * writable directory, else `os.tmpdir()`); the caller removes what it creates there.
 */
export function fastTempBase(): string {
  try {
    accessSync('/dev/shm', constants.W_OK);
    return '/dev/shm';
  } catch {
    return tmpdir();
  }
}
