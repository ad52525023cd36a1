/** This package's version, the one `gcpatch --version`, the driver's `--version` and `gcpatch driver doctor` print. */

/**
 * The `version` of package.json, written here by `npm version` (its "version" script,
 * scripts/write-version.mjs) so that every entry point has it without reading a file at run time:
 * the driver bundle (driver/dist/index.js) is copied into `.git/gcpatch/driver/` where no
 * package.json sits next to it. test/util/version.test.ts checks that the two agree.
 */
export const VERSION = '0.1.0';
