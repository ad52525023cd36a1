/** The canonical print and hash-module of a module's forms, computed once per forms array (the apply prints and hashes each module in several steps). */
import { hashModuleOfPrint } from '../../coreform/hash.js';
import { printModule } from '../../coreform/print.js';
import type { Term } from '../../coreform/term.js';

const prints = new WeakMap<readonly Term[], string>();
const hashes = new WeakMap<readonly Term[], string>();

/**
 * `printModule(forms)`, remembered for this very array. Sound because module forms are immutable
 * once built (`PackageState` in `state.ts`: ops return new arrays and never mutate their input).
 * @returns the canonical module text (`print_module`).
 */
export function modulePrint(forms: readonly Term[]): string {
  let text = prints.get(forms);
  if (text === undefined) {
    text = printModule(forms);
    prints.set(forms, text);
  }
  return text;
}

/**
 * `hashModule(forms)` (docs/reference/hashing.md §2), remembered for this very array (see {@link modulePrint}).
 * @returns lowercase hex64.
 */
export function moduleHash(forms: readonly Term[]): string {
  let hash = hashes.get(forms);
  if (hash === undefined) {
    hash = hashModuleOfPrint(modulePrint(forms));
    hashes.set(forms, hash);
  }
  return hash;
}
