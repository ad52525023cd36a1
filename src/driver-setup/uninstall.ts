/** Removing the git merge drivers: their config sections, their attribute lines and the repository's merge service. */
import { existsSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { stopService } from '../driver-service/lifecycle.js';
import { ATTRIBUTE_LINES, attributesFile, readAttributeLines } from './attributes.js';
import { DRIVER_NAMES, runSetupGit, serviceFolderOf, type DriverSetupOptions } from './options.js';

/** What {@link uninstallDriver} did. */
export interface UninstallReport {
  scope: 'local' | 'global';
  /** Config sections removed. */
  removedSections: string[];
  /** Attributes files from which lines were removed, with the lines. */
  attributesRemoved: { file: string; lines: string[] }[];
  /** The service folder removed (with the pid of the service stopped first), when there was one. */
  service: { folder: string; stopped: number | undefined } | undefined;
}

/**
 * Removes both drivers' config sections and the {@link ATTRIBUTE_LINES} (from `.gitattributes` and
 * `.git/info/attributes` locally, or the global attributes file). Missing pieces are skipped.
 */
export function uninstallDriver(opts: DriverSetupOptions = {}): UninstallReport {
  const scope = opts.global ? '--global' : '--local';
  const removedSections: string[] = [];
  for (const name of Object.values(DRIVER_NAMES)) {
    if (runSetupGit(opts, ['config', scope, '--remove-section', `merge.${name}`]).status === 0) removedSections.push(`merge.${name}`);
  }
  const files = opts.global
    ? [attributesFile(opts)]
    : [attributesFile({ ...opts, commitAttributes: true }), attributesFile({ ...opts, commitAttributes: false })];
  const attributesRemoved: { file: string; lines: string[] }[] = [];
  for (const file of files) {
    const lines = readAttributeLines(file);
    const ours = new Set<string>(ATTRIBUTE_LINES);
    const kept = lines.filter((l) => !ours.has(l.trim()));
    if (kept.length !== lines.length) {
      writeFileSync(file, kept.length > 0 ? kept.join('\n') + '\n' : '');
      attributesRemoved.push({ file, lines: lines.filter((l) => ours.has(l.trim())) });
    }
  }
  const folder = serviceFolderOf(opts, opts.installDir !== undefined ? resolve(opts.installDir) : undefined);
  const service = folder !== undefined && existsSync(folder) ? { folder, stopped: stopService(folder, true) } : undefined;
  return { scope: opts.global ? 'global' : 'local', removedSections, attributesRemoved, service };
}
