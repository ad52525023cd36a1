/**
 * `gcpatch driver install | uninstall | doctor` for the driver package (docs/architecture.md:
 * `driver/` holds the entry and its install). The logic lives in `src/driver-setup/` because the library build
 * (tsconfig.build.json, rootDir `src`) and the CLI can only import from `src/`; this module
 * re-exports it unchanged.
 */
export * from '../src/driver-setup/index.js';
