/** Running a configured line exactly as git would, on a built-in example: the check install and doctor share. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expandDriverLine } from './line.js';
import { DRIVER_NAMES, runSetupGit, type DriverSetupOptions } from './options.js';

/** One check of {@link doctorDriver}. `error` counts as a problem, `warn` and `ok` do not. */
export interface DoctorCheck {
  name: string;
  level: 'ok' | 'warn' | 'error';
  message: string;
  /** A command or step that fixes it. */
  fix: string | undefined;
}

/** The built-in examples: a line merge conflicts on the `.gc` one (adjacent lines), the structural merge does not. */
const EXAMPLES = {
  gc: {
    base: '(def a 1)\n(def b 2)\n',
    ours: '(def a 10)\n(def b 2)\n',
    theirs: '(def a 1)\n(def b 20)\n',
    expected: '(def a 10)\n(def b 20)\n',
    path: 'gcpatch-doctor.gc',
  },
  manifest: { base: 'name = "app"\n', ours: 'name = "app2"\n', theirs: 'name = "app"\n', expected: 'name = "app2"\n', path: 'package.toml' },
} as const;

/**
 * Runs a configured driver line exactly as git would: %-expansion ({@link expandDriverLine}), then
 * `sh -c` in the work tree's top (or `opts.cwd`), on a built-in example written to temporary files
 * under `os.tmpdir()` (removed afterwards). Healthy when it exits 0, prints nothing on stderr and
 * leaves the expected bytes in %A, i.e. the driver itself merged (its fallback prints a line).
 * `service` `off` (default) runs it with `GCPATCH_DRIVER_SERVICE=0` (the direct driver; nothing is
 * started); `on` as git would, through a running warm merge service.
 * @returns a check named `runs:<driver name>` (`runs:<driver name>:service` with `on`).
 */
export function runConfiguredLine(
  opts: DriverSetupOptions,
  line: string,
  mode: 'gc' | 'manifest',
  labels: boolean,
  service: 'off' | 'on' = 'off',
): DoctorCheck {
  const name = `runs:${DRIVER_NAMES[mode]}${service === 'on' ? ':service' : ''}`;
  const ex = EXAMPLES[mode];
  const dir = mkdtempSync(join(tmpdir(), 'gcpatch-doctor-'));
  try {
    const files = { O: join(dir, 'base'), A: join(dir, 'ours'), B: join(dir, 'theirs') };
    writeFileSync(files.O, ex.base);
    writeFileSync(files.A, ex.ours);
    writeFileSync(files.B, ex.theirs);
    const top = runSetupGit(opts, ['rev-parse', '--show-toplevel']);
    const cwd = top.status === 0 ? top.stdout.trim() : (opts.cwd ?? process.cwd());
    const expanded = expandDriverLine(line, { ...files, L: 7, P: ex.path, S: 'base', X: 'ours', Y: 'theirs' }, labels);
    const env = service === 'off' ? { ...process.env, GCPATCH_DRIVER_SERVICE: '0' } : process.env;
    const r = spawnSync('sh', ['-c', expanded], { cwd, encoding: 'utf8', timeout: 60_000, env });
    const got = readFileSync(files.A, 'utf8');
    const stderr = (r.stderr ?? '').trim();
    if (r.status === 0 && stderr === '' && got === ex.expected) {
      return { name, level: 'ok', message: `the configured line merges the built-in ${ex.path} example as git would run it`, fix: undefined };
    }
    const why = r.error ? r.error.message : stderr !== '' ? stderr.split('\n')[0]! : `exit ${r.status}, %A ${JSON.stringify(got)}`;
    return {
      name,
      level: 'error',
      message: `run as git would, merge.${DRIVER_NAMES[mode]}.driver did not merge the built-in example (exit ${r.status}): ${why}`,
      fix: 'gcpatch driver install   (make `node` ≥ 20.19 available on PATH for git)',
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
