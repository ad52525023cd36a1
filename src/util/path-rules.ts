/** The lexical rules for `/`-separated relative paths, each written once, and the three profiles that order and word them. */
import { utf8Length } from './bytes.js';

/** Lowercases ASCII letters only (so `ı`, `ſ` or U+212A never match an ASCII name). */
export function asciiLower(text: string): string {
  return text.replace(/[A-Z]+/g, (s) => s.toLowerCase());
}

/** `text` without its trailing run of `.` and space characters (what Windows drops from a name). */
export function trimTrailingDotsAndSpaces(text: string): string {
  return text.replace(/[. ]+$/, '');
}

const DEVICE_NAMES = new Set(['con', 'prn', 'aux', 'nul', 'conin$', 'conout$']);

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

/** Names gcpatch, git and GenesisCode keep their internals under; a patch may not name them. */
const RESERVED_SEGMENTS = new Set(['.git', '.gcpatch', '.genesis']);
/** Windows 8.3 short names of the reserved names (`GIT~1`, `GCPATC~1`, `GENESI~1`). */
const RESERVED_SHORT = /^(git|gcpatc|genesi)~[0-9]+$/;
/**
 * Default-ignorable code points that HFS+ and some tools drop from names (`.g\u200cit` is `.git` there).
 * The combining marks (U+034F, U+FE00–U+FE0F, U+180B–U+180D) come first, so that none follows a
 * base character in the class.
 */
const IGNORABLE = /[\u034f\ufe00-\ufe0f\u180b-\u180e\u00ad\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufeff]/g;

/** `text` as a tolerant filesystem may see it: default-ignorable code points and trailing dots/spaces dropped. */
function aliasStem(text: string): string {
  return trimTrailingDotsAndSpaces(text.replace(IGNORABLE, ''));
}

/**
 * The rules on a whole path: each is true when `path` breaks it. `maxBytes` is the profile's
 * length bound in UTF-8 bytes (a string of n UTF-16 units has at least n UTF-8 bytes).
 */
const PATH_RULES = {
  empty: (path: string) => path.length === 0,
  tooLong: (path: string, maxBytes: number) => path.length > maxBytes || utf8Length(path) > maxBytes,
  notNfc: (path: string) => path.normalize('NFC') !== path,
  absolute: (path: string) => path.startsWith('/'),
  backslash: (path: string) => path.includes('\\'),
  /** Any `:` (drive prefixes, NTFS alternate streams). */
  colon: (path: string) => path.includes(':'),
  /** U+0000–U+001F, U+007F–U+009F (Unicode category Cc, C1 included). */
  control: (path: string) => /\p{Cc}/u.test(path),
  loneSurrogate: (path: string) => !path.isWellFormed(),
  /** The first `/`-separated component ends with `:` (`C:`). */
  drivePrefix: (path: string) => path.split('/', 1)[0]!.endsWith(':'),
  /** The whole path is `package.toml` in any Unicode case, up to ignorables and trailing dots/spaces. */
  packageManifest: (path: string) => aliasStem(path).toLowerCase() === 'package.toml',
} as const;

/** The rules on one `/`-separated segment: each is true when `segment` breaks it. */
const SEGMENT_RULES = {
  emptySegment: (segment: string) => segment.length === 0,
  dotSegment: (segment: string) => segment === '.' || segment === '..',
  trailingDotOrSpace: (segment: string) => segment.endsWith('.') || segment.endsWith(' '),
  dotGit: (segment: string) => asciiLower(segment) === '.git',
  windowsDevice: isWindowsDeviceName,
  /** `.git`, `.gcpatch`, `.genesis` in any ASCII case, up to ignorables and trailing dots/spaces, or an 8.3 short name of one. */
  reservedSegment: (segment: string) => {
    const key = asciiLower(aliasStem(segment));
    return RESERVED_SEGMENTS.has(key) || RESERVED_SHORT.test(key);
  },
} as const;

/** The name of one rule. */
export type PathRuleName = keyof typeof PATH_RULES | keyof typeof SEGMENT_RULES;

/** What a message may name: the offending segment (segment rules only) and the profile's byte bound. */
interface Context {
  readonly segment: string;
  readonly maxBytes: number;
}
type Wording = (context: Context) => string;

/** One step of a profile: a whole-path rule, or segment rules tried in turn on each segment (segment-major). */
type Step =
  | { readonly rule: keyof typeof PATH_RULES; readonly breaks: (path: string, maxBytes: number) => boolean; readonly say: Wording }
  | { readonly segments: ReadonlyArray<{ readonly rule: keyof typeof SEGMENT_RULES; readonly breaks: (segment: string) => boolean; readonly say: Wording }> };

/** An ordered list of rules with a profile's wording; the first rule a path breaks is its problem. */
export type PathProfile = readonly Step[];

/** The first rule `path` breaks under `profile`, or `undefined` when it breaks none. */
export interface PathProblem {
  readonly rule: PathRuleName;
  readonly message: string;
}

/**
 * The first rule of `profile` that `path` breaks, with the profile's message for it.
 * @param maxBytes the bound of the `tooLong` rule, in UTF-8 bytes (unused by profiles without it).
 */
export function firstPathProblem(profile: PathProfile, path: string, maxBytes = Number.MAX_SAFE_INTEGER): PathProblem | undefined {
  let segments: string[] | undefined;
  for (const step of profile) {
    if ('rule' in step) {
      if (step.breaks(path, maxBytes)) return { rule: step.rule, message: step.say({ segment: '', maxBytes }) };
      continue;
    }
    segments ??= path.split('/');
    for (const segment of segments) {
      for (const { rule, breaks, say } of step.segments) {
        if (breaks(segment)) return { rule, message: say({ segment, maxBytes }) };
      }
    }
  }
  return undefined;
}

/** How each profile words each rule it checks (`patch` only for the rules the patch profile adds). */
const WORDING: { readonly [R in PathRuleName]: { readonly module?: Wording | string; readonly plan?: Wording | string; readonly patch?: Wording | string } } = {
  empty: { module: 'is empty', plan: 'path is empty' },
  tooLong: { plan: ({ maxBytes }) => `path is longer than ${maxBytes} UTF-8 bytes` },
  notNfc: { module: 'is not Unicode NFC' },
  absolute: { module: 'is absolute (starts with /)', plan: 'path must be repository-relative (it starts with "/")' },
  backslash: { module: 'contains a backslash', plan: 'path must use "/" separators (it contains "\\")' },
  colon: { plan: 'path must not contain ":" (drive prefixes and streams are not portable)' },
  control: { plan: 'path contains a control character' },
  loneSurrogate: { module: 'contains a lone surrogate', plan: 'path contains a lone surrogate' },
  drivePrefix: { module: 'starts with a drive prefix' },
  emptySegment: { module: 'has an empty component (// or a trailing /)', plan: 'path contains an empty segment' },
  dotSegment: { module: ({ segment }) => `has a "${segment}" component`, plan: ({ segment }) => `path contains a "${segment}" segment` },
  trailingDotOrSpace: { plan: ({ segment }) => `path segment ${JSON.stringify(segment)} ends with a dot or space` },
  dotGit: { plan: 'path contains a .git segment' },
  windowsDevice: { plan: ({ segment }) => `path segment ${JSON.stringify(segment)} is a Windows device name` },
  reservedSegment: { patch: ({ segment }) => `names ${JSON.stringify(segment)}: .git, .gcpatch and .genesis hold git's and gcpatch's internals` },
  packageManifest: { patch: 'is the package manifest, not a module: patches change it with :update-manifest' },
};

/**
 * A profile from the order of its rules (a nested list: segment rules tried in turn on each
 * segment) and the `column` of {@link WORDING} that words them, each message passed through `edit`.
 */
function profile(
  column: 'module' | 'plan' | 'patch',
  order: ReadonlyArray<keyof typeof PATH_RULES | ReadonlyArray<keyof typeof SEGMENT_RULES>>,
  edit = (m: string) => m,
): PathProfile {
  const say = (rule: PathRuleName): Wording => {
    const words = WORDING[rule][column];
    if (words === undefined) throw new Error(`path rule ${rule} has no ${column} wording`);
    return (context) => edit(typeof words === 'string' ? words : words(context));
  };
  return order.map((step) =>
    typeof step === 'string'
      ? { rule: step, breaks: PATH_RULES[step], say: say(step) }
      : { segments: step.map((rule) => ({ rule, breaks: SEGMENT_RULES[rule], say: say(rule) })) },
  );
}

/**
 * Portable module paths (GenesisCode `docs/spec/PATCH_SCHEMA.md` "Op maps";
 * docs/reference/patch-protocols.md §3.1, §4): non-empty; NFC; no leading `/`; no `\`; no lone
 * surrogate; every component non-empty and not `.`/`..`; no drive prefix. Messages follow the path.
 */
export const MODULE_PATH_PROFILE: PathProfile = profile('module', [
  'empty',
  'notNfc',
  'absolute',
  'backslash',
  'loneSurrogate',
  ['emptySegment', 'dotSegment'],
  'drivePrefix',
]);

/** The order of the edit-plan rules, shared by the plan and patch profiles. */
const PLAN_ORDER = [
  'empty',
  'tooLong',
  'absolute',
  'backslash',
  'colon',
  'control',
  'loneSurrogate',
  ['emptySegment', 'dotSegment', 'trailingDotOrSpace', 'dotGit', 'windowsDevice'],
] as const;

/**
 * weavatrix.edit-plan.v1 "Path rules" (docs/reference/edit-plan-engine.md): empty; longer than
 * `maxBytes`; leading `/`; `\`; `:`; a control character (C1 included); a lone surrogate; then per
 * segment: empty, `.`/`..`, ends with `.` or space, `.git` in any ASCII case, a Windows device name.
 */
export const PLAN_PATH_PROFILE: PathProfile = profile('plan', PLAN_ORDER);

/**
 * Patch paths at the host boundary (docs/patches.md "Which paths a patch may name"): the module-path
 * rules; a reserved segment; the plan-path rules worded without their leading `path ` (bound:
 * {@link PATCH_PATH_MAX_BYTES}); `package.toml`. `reservedSegment` and `packageManifest` are
 * `patch/reserved-path`, every other rule `patch/non-portable-path`.
 */
export const PATCH_PATH_PROFILE: PathProfile = [
  ...MODULE_PATH_PROFILE,
  ...profile('patch', [['reservedSegment']]),
  ...profile('plan', PLAN_ORDER, (message) => message.replace(/^path /, '')),
  ...profile('patch', ['packageManifest']),
];

/** Longest patch path accepted, in UTF-8 bytes (the edit-plan default `maxPathBytes`). */
export const PATCH_PATH_MAX_BYTES = 4096;
