/**
 * Where an edit plan's files are: the real path of the root, and each plan path resolved under it
 * with real-path containment (a symbolic link may lead anywhere inside the root, never out of it,
 * nor into `.git` or the control directory). Used by the transaction and by its recovery.
 */
import { lstatSync, realpathSync, statSync, type BigIntStats } from 'node:fs';
import { join, sep } from 'node:path';
import { errnoOf } from '../transaction/durable.js';
import { CONTROL_DIRECTORY } from '../transaction/journal.js';
import { ExitCode, GcError, ioError } from '../util/errors.js';
import { editError } from './errors.js';
import { portablePathKey } from './path.js';

function isInside(root: string, candidate: string): boolean {
  return candidate === root || candidate.startsWith(root.endsWith(sep) ? root : root + sep);
}

/** A resolved target: its absolute path (parents resolved) and its stats. */
export interface Target {
  absolute: string;
  stats: BigIntStats;
}

/**
 * Resolves a plan path under `rootReal` with real-path containment.
 * @throws `SOURCE_MISSING`, `PATH_ESCAPES_ROOT`, `TARGET_NOT_REGULAR`, or `io/<errno>`.
 */
export function resolveTarget(rootReal: string, path: string, fileIndex: number): Target {
  const segments = path.split('/');
  const indices = { fileIndex };
  const where = { location: { file: path } };
  let dir = rootReal;
  for (const segment of segments.slice(0, -1)) {
    const next = join(dir, segment);
    let stats;
    try {
      stats = lstatSync(next);
    } catch (error) {
      if (errnoOf(error) === 'ENOENT' || errnoOf(error) === 'ENOTDIR') {
        throw editError('SOURCE_MISSING', `directory ${segment} does not exist`, indices, where);
      }
      throw ioError(error, next, 'inspect');
    }
    if (stats.isSymbolicLink()) {
      let real: string;
      try {
        real = realpathSync(next);
      } catch (error) {
        throw editError('SOURCE_MISSING', `${segment} is a dangling symbolic link`, indices, {
          ...where,
          cause: error,
        });
      }
      if (!isInside(rootReal, real)) {
        throw editError('PATH_ESCAPES_ROOT', `${segment} is a symbolic link leading outside the root`, indices, where);
      }
      if (!statSync(real).isDirectory()) {
        throw editError('SOURCE_MISSING', `${segment} is not a directory`, indices, where);
      }
      dir = real;
    } else if (stats.isDirectory()) {
      dir = next;
    } else {
      throw editError('SOURCE_MISSING', `${segment} is not a directory`, indices, where);
    }
  }
  const relative = dir === rootReal ? '' : dir.slice(rootReal.length + 1);
  const first = portablePathKey(relative.split(sep)[0] ?? '');
  if (first === '.git' || first === CONTROL_DIRECTORY) {
    throw editError('PATH_ESCAPES_ROOT', `the path resolves into the ${first} directory`, indices, where);
  }
  const absolute = join(dir, segments[segments.length - 1]!);
  let stats: BigIntStats;
  try {
    stats = lstatSync(absolute, { bigint: true });
  } catch (error) {
    if (errnoOf(error) === 'ENOENT' || errnoOf(error) === 'ENOTDIR') {
      throw editError('SOURCE_MISSING', 'the file does not exist', indices, where);
    }
    throw ioError(error, absolute, 'inspect');
  }
  if (stats.isSymbolicLink()) {
    throw editError('TARGET_NOT_REGULAR', 'the file is a symbolic link; edit its target instead', indices, where);
  }
  if (!stats.isFile()) throw editError('TARGET_NOT_REGULAR', 'not a regular file', indices, where);
  return { absolute, stats };
}

/** The real path of the root directory. @throws GcError `io/<errno>`, `io/enotdir` (exit 70). */
export function realRoot(root: string): string {
  let real: string;
  try {
    real = realpathSync(root);
  } catch (error) {
    throw ioError(error, root, 'open the root');
  }
  if (!statSync(real).isDirectory()) {
    throw new GcError('io/enotdir', `the root ${root} is not a directory`, { exitCode: ExitCode.io, location: { file: root } });
  }
  return real;
}
