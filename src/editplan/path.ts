/**
 * Portable path rules and the Windows-portable alias key (spec "Path rules"). Lexical only: the
 * filesystem transaction adds real-path containment and link checks.
 */
import { utf8ByteLength } from './unicode.js';

const DEVICE_NAMES = new Set(['con', 'prn', 'aux', 'nul', 'conin$', 'conout$']);

/** Lowercases ASCII letters only (so `ı`, `ſ` or U+212A never match an ASCII name). */
function asciiLower(text: string): string {
  return text.replace(/[A-Z]+/g, (s) => s.toLowerCase());
}

/**
 * True when `segment` names a Windows device: the text before its first `.` equals, ASCII
 * case-insensitively, `CON`, `PRN`, `AUX`, `NUL`, `CONIN$`, `CONOUT$`, or is exactly `COM`/`LPT`
 * followed by one ASCII digit `1`–`9` (so `con.txt` and `COM1.rs` are devices; `COM0`, `COM10`,
 * `console.ts` and `LPT¹` are not).
 */
export function isWindowsDeviceName(segment: string): boolean {
  const dot = segment.indexOf('.');
  const stem = asciiLower(dot === -1 ? segment : segment.slice(0, dot));
  if (DEVICE_NAMES.has(stem)) return true;
  return stem.length === 4 && (stem.startsWith('com') || stem.startsWith('lpt')) && /^[1-9]$/.test(stem[3]!);
}

/**
 * Returns why `path` is not a portable plan path, or `undefined` when it is. Checks, in order:
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
  if (path.length === 0) return 'path is empty';
  if (utf8ByteLength(path) > maxBytes) return `path is longer than ${maxBytes} UTF-8 bytes`;
  if (path.startsWith('/')) return 'path must be repository-relative (it starts with "/")';
  if (path.includes('\\')) return 'path must use "/" separators (it contains "\\")';
  if (path.includes(':')) return 'path must not contain ":" (drive prefixes and streams are not portable)';
  if (/[\u0000-\u001f\u007f-\u009f]/.test(path)) return 'path contains a control character';
  if (!path.isWellFormed()) return 'path contains a lone surrogate';
  for (const segment of path.split('/')) {
    if (segment.length === 0) return 'path contains an empty segment';
    if (segment === '.' || segment === '..') return `path contains a "${segment}" segment`;
    if (segment.endsWith('.') || segment.endsWith(' ')) {
      return `path segment ${JSON.stringify(segment)} ends with a dot or space`;
    }
    if (asciiLower(segment) === '.git') return 'path contains a .git segment';
    if (isWindowsDeviceName(segment)) return `path segment ${JSON.stringify(segment)} is a Windows device name`;
  }
  return undefined;
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
      const trimmed = segment.replace(/[. ]+$/, '');
      return /^[\u0000-\u007f]*$/.test(trimmed) ? asciiLower(trimmed) : trimmed.toLowerCase();
    })
    .join('/');
}
