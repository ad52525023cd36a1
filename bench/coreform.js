// CoreForm pipeline throughput: read + canonicalize + print + hash, against raw BLAKE3; and the
// reader's scan (`scanModule`, what the merge driver runs on each side) against a plain byte loop,
// warm (median of several runs in this process) and cold (one scan in a fresh `node` process, as
// every git merge of a file runs it).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { blake3 } from '@noble/hashes/blake3.js';
import { canonicalizeSource } from '../dist/coreform/canon.js';
import { hashModule } from '../dist/coreform/hash.js';
import * as reader from '../dist/coreform/read.js';
import * as scans from '../dist/coreform/scan.js';
import { moduleSource } from './corpus.js';
import { fmt, median, timeMedian } from './util.js';

const read = { ...reader, ...scans };
const distUrl = (file) => pathToFileURL(resolve(dirname(fileURLToPath(import.meta.url)), '../dist/coreform', file)).href;
const READ_JS = distUrl('read.js');
const SCAN_JS = distUrl('scan.js');

/** A plain byte loop over `s`: counts '(' bytes (the floor any scanner is measured against). */
function countOpen(s) {
  let k = 0;
  for (let i = 0; i < s.length; i++) if (s[i] === 0x28) k++;
  return k;
}

/** One module of about `bytes` bytes in the benchmark corpus style. */
function bigModule(bytes) {
  const encoder = new TextEncoder();
  const probe = encoder.encode(moduleSource('bench', 0, 1000)).length;
  return encoder.encode(moduleSource('bench', 0, Math.ceil((1000 * bytes) / probe)));
}

// The cold run: a fresh process imports the reader and the scans, reads the file, then times one call of the
// function named on the command line (wall and CPU ms; CPU includes V8's compiler threads), and
// the first three calls (on copies of the bytes), as the merge driver scans base, ours and theirs.
const COLD_SCRIPT = `
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
const read = { ...(await import(process.argv[2])), ...(await import(process.argv[5])) };
const src = new Uint8Array(readFileSync(process.argv[3]));
const fns = {
  bytes: (s) => { let k = 0; for (let i = 0; i < s.length; i++) if (s[i] === 0x28) k++; return k; },
  scan: (s) => read.scanModule(s),
  reader: (s) => read.scanModuleReader(s),
  readModule: (s) => read.readModule(s),
  readTerms: (s) => { for (const f of read.scanModule(s).forms) read.readTerm(s.subarray(f.start, f.end)); },
};
const fn = fns[process.argv[4]];
const copies = [src.slice(), src.slice()];
const c0 = process.cpuUsage();
const t0 = performance.now();
fn(src);
const t1 = performance.now();
const c1 = process.cpuUsage(c0);
for (const c of copies) fn(c);
const t3 = performance.now();
const c3 = process.cpuUsage(c0);
console.log(JSON.stringify([t1 - t0, (c1.user + c1.system) / 1000, t3 - t0, (c3.user + c3.system) / 1000]));
`;

/**
 * Cold figures of each of `whats` on `file`: medians over `rounds` fresh processes per function,
 * run round-robin so that load from elsewhere on the machine falls on all of them alike.
 * @returns per function: [wall ms of one call, CPU ms of one call, wall ms of three, CPU ms of three].
 */
function coldMs(dir, file, whats, rounds) {
  const runs = new Map(whats.map((w) => [w, []]));
  for (let i = 0; i < rounds; i++) {
    for (const what of whats) {
      const r = spawnSync(process.execPath, [join(dir, 'cold.mjs'), READ_JS, file, what, SCAN_JS], { encoding: 'utf8' });
      if (r.status !== 0) throw new Error(r.stderr);
      runs.get(what).push(JSON.parse(r.stdout));
    }
  }
  return new Map([...runs].map(([w, rs]) => [w, [0, 1, 2, 3].map((k) => median(rs.map((r) => r[k])))]));
}

/** scanModule (and the Reader-based scan it replaced, when exported) vs a byte loop, warm and cold. */
export async function runScan() {
  const dir = mkdtempSync(join(tmpdir(), 'gcpatch-scan-'));
  const rounds = Number(process.env.GCPATCH_BENCH_COLD_ROUNDS ?? 9);
  try {
    writeFileSync(join(dir, 'cold.mjs'), COLD_SCRIPT);
    {
      // readTerm on small inputs: every form of a ~100 KB module read on its own (the driver reads
      // a form's term this way when it needs one).
      const src = bigModule(100 * 1024);
      const file = join(dir, 'small.gc');
      writeFileSync(file, src);
      const forms = read.scanModule(src).forms.map((f) => src.subarray(f.start, f.end));
      const warm = await timeMedian(() => {
        for (const f of forms) read.readTerm(f);
      }, 15, 5);
      const cold = coldMs(dir, file, ['readTerms'], rounds).get('readTerms');
      console.log(`readTerm of each of the ${forms.length} forms of a ${fmt(src.length / 1024, 0)} KB module: warm ${fmt(warm, 2)} ms (${fmt((warm * 1000) / forms.length, 2)} us/form); cold (with its scan) ${fmt(cold[0], 1)} ms wall, ${fmt(cold[1], 1)} ms CPU`);
    }
    const kinds = [['bytes', 'byte loop (count "(")', countOpen], ['scan', 'scanModule', read.scanModule]];
    if (read.scanModuleReader) kinds.push(['reader', 'Reader-based scan (before)', read.scanModuleReader]);
    kinds.push(['readModule', 'readModule (terms)', read.readModule]);
    for (const size of [1, 3]) {
      const src = bigModule(size * 1024 * 1024);
      const file = join(dir, `m${size}.gc`);
      writeFileSync(file, src);
      const mb = src.length / (1024 * 1024);
      console.log(`one ${fmt(mb, 2)} MB module (${read.scanModule(src).forms.length} forms): warm = median of 15 runs; cold = medians of ${rounds} fresh processes (wall ms, CPU ms; first call, then the first three calls)`);
      const cold = coldMs(dir, file, kinds.map((k) => k[0]), rounds);
      let base;
      for (const [key, label, fn] of kinds) {
        const warm = await timeMedian(() => fn(src), 15, 5);
        const [w1, c1, w3, c3] = cold.get(key);
        base ??= { warm, w1 };
        const rel = key === 'bytes' ? '' : `  ${fmt(warm / base.warm, 1)}x / ${fmt(w1 / base.w1, 1)}x the byte loop`;
        console.log(
          `  ${label.padEnd(27)} warm ${fmt(warm, 2).padStart(7)} ms = ${fmt(mb / (warm / 1000), 0).padStart(4)} MB/s | cold ${fmt(w1, 1).padStart(6)} ms = ${fmt(mb / (w1 / 1000), 0).padStart(3)} MB/s, CPU ${fmt(c1, 1).padStart(6)} | 3 calls ${fmt(w3, 1).padStart(6)}, CPU ${fmt(c3, 1).padStart(6)}${rel}`,
        );
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function run() {
  const encoder = new TextEncoder();
  const modules = [];
  let total = 0;
  for (let i = 0; total < 6 * 1024 * 1024; i++) {
    const bytes = encoder.encode(moduleSource('bench', i, 120));
    modules.push(bytes);
    total += bytes.length;
  }
  const mb = total / (1024 * 1024);
  const pipeline = await timeMedian(() => {
    for (const m of modules) hashModule(canonicalizeSource(m));
  }, 5);
  const raw = await timeMedian(() => {
    for (const m of modules) blake3(m);
  }, 5);
  const pipelineRate = mb / (pipeline / 1000);
  const rawRate = mb / (raw / 1000);
  console.log(`corpus: ${modules.length} modules, ${fmt(mb, 2)} MB`);
  console.log(`read+canonicalize+print+hash: median ${fmt(pipeline)} ms = ${fmt(pipelineRate)} MB/s`);
  console.log(`BLAKE3 alone (@noble/hashes):  median ${fmt(raw)} ms = ${fmt(rawRate)} MB/s`);
  console.log(`pipeline / BLAKE3 throughput ratio: ${fmt(pipelineRate / rawRate, 2)} (target >= 0.25)`);
  await runScan();
}

if (import.meta.url === `file://${process.argv[1]}`) {
  if (process.argv[2] === 'scan') await runScan();
  else await run();
}
