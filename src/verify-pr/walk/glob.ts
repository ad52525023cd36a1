/**
 * Matching repository-relative paths against the `packages` globs of the Action and
 * `gcpatch verify-pr --packages`: `**` matches any number of directories (zero included), `*` any
 * run of characters within one path segment, `?` one such character; a leading `!` excludes.
 */

/** The default `packages` glob: every `package.toml` in the repository, the root one included. */
export const ALL_PACKAGES = '**/package.toml';

function escapeRegExp(ch: string): string {
  return /[\\^$.*+?()[\]{}|/]/.test(ch) ? `\\${ch}` : ch;
}

/**
 * Compiles one glob to an anchored regular expression.
 * @example globToRegExp('pkgs/**\/package.toml').test('pkgs/a/b/package.toml') // true
 */
export function globToRegExp(glob: string): RegExp {
  let re = '';
  let i = 0;
  const g = glob.replace(/^\.\//, '');
  while (i < g.length) {
    const ch = g[i]!;
    if (ch === '*' && g[i + 1] === '*') {
      const atSegmentStart = i === 0 || g[i - 1] === '/';
      if (atSegmentStart && g[i + 2] === '/') {
        re += '(?:[^/]*/)*';
        i += 3;
        continue;
      }
      re += '.*';
      i += 2;
      continue;
    }
    if (ch === '*') re += '[^/]*';
    else if (ch === '?') re += '[^/]';
    else re += escapeRegExp(ch);
    i++;
  }
  return new RegExp(`^${re}$`);
}

/**
 * The one selection syntax of the Action's `packages` input and `gcpatch verify-pr --packages`:
 * globs separated by commas or newlines, in one string or several (a repeated flag); blank entries
 * ignored; `!glob` excludes. No positive pattern (an empty input, or exclusions alone) means
 * {@link ALL_PACKAGES} less the exclusions.
 * @example parseGlobList(['a/package.toml,b/package.toml']) // ['a/package.toml', 'b/package.toml']
 * @example parseGlobList('!vendor/**') // ['**\/package.toml', '!vendor/**']
 */
export function parseGlobList(input: string | readonly string[] | undefined): string[] {
  const raw = typeof input === 'string' ? [input] : [...(input ?? [])];
  const out = raw
    .flatMap((s) => s.split(/[\n,]/))
    .map((s) => s.trim())
    .filter((s) => s !== '');
  return out.some((p) => !p.startsWith('!')) ? out : [ALL_PACKAGES, ...out];
}

/**
 * A predicate over repository-relative paths: true when some non-negated pattern matches and no
 * `!pattern` does. A pattern naming a directory (not ending in `package.toml`) also selects the
 * `package.toml` directly inside it.
 */
export function pathMatcher(patterns: readonly string[]): (path: string) => boolean {
  const compile = (p: string): RegExp[] => {
    const body = p.replace(/\/+$/, '');
    const res = [globToRegExp(body)];
    if (!/(^|\/)package\.toml$/.test(body)) res.push(globToRegExp(`${body}/package.toml`));
    return res;
  };
  const include = patterns.filter((p) => !p.startsWith('!')).flatMap(compile);
  const exclude = patterns.filter((p) => p.startsWith('!')).flatMap((p) => compile(p.slice(1)));
  return (path) => include.some((r) => r.test(path)) && !exclude.some((r) => r.test(path));
}
