/** Temporary git repositories for the tests of src/git: the shared helper (test/helpers/git.ts) and a package.toml maker. */
export { tempRepo, type TempRepo } from '../helpers/git.js';

/** A package.toml listing `modules` (no pins). */
export function manifest(name: string, modules: string[]): string {
  return `name = "${name}"\nversion = "0.1.0"\nobligations = []\n${modules.length === 0 ? 'modules = []\n' : ''}${modules.map((m) => `\n[[modules]]\npath = "${m}"\n`).join('')}`;
}
