// Shared helpers for the refactor tests: requests from inline module sources.
import { utf8 } from '../../src/util/bytes.js';
import { refactorRequestFromSources, type RefactorParams, type RefactorRequest } from '../../src/refactor/request.js';

/** Builds a request from `[path, source]` pairs in manifest order. */
export function requestOf(params: RefactorParams, modules: readonly (readonly [string, string])[]): RefactorRequest {
  return refactorRequestFromSources(
    params,
    modules.map(([modulePath, source]) => ({ modulePath, bytes: utf8(source) })),
  );
}

/** A small three-module package: `lib/math.gc` defines `app/math::square`, used by two later modules. */
export const THREE_MODULES: readonly (readonly [string, string])[] = [
  [
    'lib/math.gc',
    `; math helpers
(def ::meta '{:exports [app/math::square app/math::cube]})
(def app/math::square (fn (x) (prim int/mul x x)))
(def app/math::cube (fn (x) (prim int/mul x (app/math::square x))))
`,
  ],
  ['lib/text.gc', `(def app/text::greeting "hello square")\n`],
  [
    'app/main.gc',
    `(def app/main::run (fn (n) (app/math::square (app/math::cube n))))
(def app/main::table {:f app/math::square :quoted 'app/math::square})
(app/main::run 3)
`,
  ],
];
