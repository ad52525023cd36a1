/**
 * Portable path rules and the Windows-portable alias key (spec "Path rules"). Lexical only: the
 * filesystem transaction adds real-path containment and link checks.
 */
import { asciiLower, firstPathProblem, PLAN_PATH_PROFILE, trimTrailingDotsAndSpaces } from '../util/path-rules.js';

export { isWindowsDeviceName } from '../util/path-rules.js';

/**
 * Returns why `path` is not a portable plan path, or `undefined` when it is. Checks, in order
 * ({@link PLAN_PATH_PROFILE}):
 * empty; more than `maxBytes` UTF-8 bytes; leading `/`; `\`; `:` (drive prefixes, NTFS streams);
 * a control character (U+0000–U+001F, U+007F–U+009F); a lone surrogate; then per `/`-separated
 * segment: empty (`a//b`, trailing `/`); `.` or `..`; ends with `.` or space; `.git` in any ASCII
 * case; a Windows device name ({@link isWindowsDeviceName}).
 * Accepted on purpose: `< > " | ? *`, leading spaces, `..` inside a name, `.gitignore`, non-ASCII.
 *
 * Divergence: the spec forbids "control character"s; Unicode's control characters (category Cc)
 * include the C1 range U+0080–U+009F, which the Rust original lets through. We follow the spec.
 * @param path the plan path (`/`-separated, repository-relative).
 * @param maxBytes `PlanLimits.maxPathBytes`.
 */
export function pathProblem(path: string, maxBytes: number): string | undefined {
  return firstPathProblem(PLAN_PATH_PROFILE, path, maxBytes)?.message;
}

/**
 * The conservative Windows-portable alias key: per segment, strip all trailing `.` and space
 * characters, then lowercase (ASCII-only segments by ASCII lowercasing; a segment with any
 * non-ASCII character by full Unicode lowercasing of the whole segment, so final sigma, U+0130,
 * KELVIN SIGN U+212A → `k` and ANGSTROM SIGN U+212B → `å` apply); rejoin with `/`.
 * This is lowercasing, not case folding (`ß` stays `ß`), and there is no Unicode normalization (NFC
 * `å` and NFD `a`+U+030A differ). Two plan paths with equal keys are aliases (`INVALID_PLAN`).
 * @example portablePathKey('src./Foo ') === 'src/foo'
 */
export function portablePathKey(path: string): string {
  return path
    .split('/')
    .map((segment) => {
      const trimmed = trimTrailingDotsAndSpaces(segment);
      return /[\u0080-\uffff]/.test(trimmed) ? trimmed.toLowerCase() : asciiLower(trimmed);
    })
    .join('/');
}
