#!/usr/bin/env node
// Merge driver latency: wall time per merge of `node driver/dist/index.js %O %A %B ...` (what git
// spawns) against `git merge-file` on the same triples, for ~10 KB, ~100 KB and ~1 MB modules, plus
// the driver's bare start-up (`--version`). Medians of several runs; ratios driver / git merge-file.
// Run standalone (`node bench/driver.js`) or through `npm run bench` (exports `run()`).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { fmt, timeMedian } from './util.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const DRIVER = join(ROOT, 'driver/dist/index.js');

/** A module of about `bytes` bytes: a ::meta form, then definitions in GenesisCode style. */
function module(bytes, edit = () => undefined) {
  const forms = [
    "; app/bench: generated module.\n\n(def ::meta\n  '{:caps []\n    :exports [app/bench::main]\n    :types {app/bench::main ?}})\n",
  ];
  let size = forms[0].length;
  for (let i = 0; size < bytes; i++) {
    const body = edit(i) ?? `(prim int/add x ${i})`;
    const f = `;; Step ${i} of the pipeline.\n(def app/bench::step${i}\n  (fn (x)\n    ${body}))\n`;
    forms.push(f);
    size += f.length + 1;
  }
  return `${forms.join('\n')}\napp/bench::step0\n`;
}

/** Base, ours (edits the 2nd definition) and theirs (edits the second-to-last), all about `bytes` long. */
function triple(bytes) {
  const base = module(bytes);
  const count = (base.match(/\(def app\/bench::step/g) ?? []).length;
  const ours = module(bytes, (i) => (i === 1 ? '(prim int/mul x 2)' : undefined));
  const theirs = module(bytes, (i) => (i === count - 2 ? '(prim int/sub x 1)' : undefined));
  return { base, ours, theirs };
}

function spawn(cmd, args, cwd) {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', maxBuffer: 1 << 30 });
  if (r.error) throw r.error;
  return r.status;
}

/** Runs the benchmark and prints one table. */
export async function run() {
  if (!existsSync(DRIVER)) {
    console.log(`driver bundle missing (${DRIVER}); run \`npm run build:driver\``);
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'gcpatch-bench-driver-'));
  try {
    const startup = await timeMedian(() => spawn(process.execPath, [DRIVER, '--version'], dir), 9, 2);
    const bareNode = await timeMedian(() => spawn(process.execPath, ['-e', '0'], dir), 9, 2);
    console.log(`driver start-up (node driver/dist/index.js --version): ${fmt(startup)} ms median (bare node -e 0: ${fmt(bareNode)} ms)`);
    console.log('size      forms   driver ms   git merge-file ms   ratio   driver exit / git exit');
    for (const [label, bytes, runs] of [
      ['10 KB', 10_000, 9],
      ['100 KB', 100_000, 7],
      ['1 MB', 1_000_000, 5],
    ]) {
      const t = triple(bytes);
      writeFileSync(join(dir, 'O'), t.base);
      writeFileSync(join(dir, 'B'), t.theirs);
      let driverExit = -1;
      let gitExit = -1;
      const driver = await timeMedian(() => {
        writeFileSync(join(dir, 'A'), t.ours);
        driverExit = spawn(process.execPath, [DRIVER, 'O', 'A', 'B', '7', 'bench.gc', 'base', 'ours', 'theirs'], dir);
      }, runs);
      const git = await timeMedian(() => {
        writeFileSync(join(dir, 'A'), t.ours);
        gitExit = spawn('git', ['merge-file', '-p', '-L', 'ours', '-L', 'base', '-L', 'theirs', 'A', 'O', 'B'], dir);
      }, runs);
      const forms = (t.base.match(/\(def /g) ?? []).length;
      console.log(
        `${label.padEnd(9)} ${String(forms).padStart(5)}   ${fmt(driver).padStart(9)}   ${fmt(git).padStart(17)}   ${fmt(driver / git, 1).padStart(5)}x   ${driverExit} / ${gitExit}`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) await run();
