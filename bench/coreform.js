// CoreForm pipeline throughput: read + canonicalize + print + hash, against raw BLAKE3.
import { blake3 } from '@noble/hashes/blake3.js';
import { canonicalizeSource } from '../dist/coreform/canon.js';
import { hashModule } from '../dist/coreform/hash.js';
import { moduleSource } from './corpus.js';
import { fmt, timeMedian } from './util.js';

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
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
