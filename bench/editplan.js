// weavatrix.edit-plan.v1 at scale: decode, validate and apply a plan of 100,000 edits over a 10 MB
// file, then the same plan as a filesystem transaction. Run alone with `node bench/editplan.js`
// (after `npm run build`) or through `npm run bench`.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { applyEdits, applyPlanToRoot, decodeEditPlan, serializeEditPlan, sha256Hex, validateEditPlan } from '../dist/editplan/index.js';
import { fmt, timeMedian } from './util.js';

const LINES = 100_000;
const RUNS = 5;

/** A 10,000,000-byte source: 100,000 lines of 100 bytes, each calling getUser once. */
function makeSource() {
  const line = 'const value = getUser(input); // ' + 'p'.repeat(66) + '\n';
  return line.repeat(LINES);
}

/** The plan renaming every call, edits listed in reverse order so that the sort does real work. */
function makePlan(source) {
  const edits = [];
  for (let line = LINES; line >= 1; line--) {
    edits.push({ startLine: line, startChar: 14, endLine: line, endChar: 21, before: 'getUser', after: 'getCustomer', provenance: 'EXACT_LSP' });
  }
  return {
    schemaVersion: 'weavatrix.edit-plan.v1',
    operation: 'rename_symbol',
    files: [{ path: 'src/big.ts', sha256: sha256Hex(Buffer.from(source, 'utf8')), edits }],
  };
}

const planLimits = { maxEditsPerFile: LINES };
const applyLimits = { maxEdits: LINES };

export async function run() {
  const source = makeSource();
  const plan = makePlan(source);
  const json = serializeEditPlan(plan);
  let peakHeap = 0;
  const sample = () => {
    peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
  };

  let output = '';
  const decode = await timeMedian(() => {
    decodeEditPlan(json);
    sample();
  }, RUNS);
  const validate = await timeMedian(() => {
    validateEditPlan(plan, planLimits);
    sample();
  }, RUNS);
  const apply = await timeMedian(() => {
    output = applyEdits(source, plan.files[0].edits, { limits: applyLimits }).text;
    sample();
  }, RUNS);
  const validateApply = await timeMedian(() => {
    validateEditPlan(plan, planLimits);
    applyEdits(source, plan.files[0].edits, { limits: applyLimits });
    sample();
  }, RUNS);

  const root = mkdtempSync(join(tmpdir(), 'gcpatch-bench-editplan-'));
  let transaction;
  try {
    mkdirSync(join(root, 'src'));
    const target = join(root, 'src', 'big.ts');
    transaction = await timeMedian(() => {
      writeFileSync(target, source);
      applyPlanToRoot(plan, root, { planLimits, applyLimits });
      sample();
    }, RUNS);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }

  const mb = Buffer.byteLength(source) / 1e6;
  console.log(`plan: ${LINES.toLocaleString('en')} edits over one ${fmt(mb, 1)} MB file (plan JSON ${fmt(json.length / 1e6, 1)} MB), median of ${RUNS} runs`);
  console.log(`decode plan JSON:            ${fmt(decode)} ms`);
  console.log(`validate plan:               ${fmt(validate)} ms`);
  console.log(`apply edits (in memory):     ${fmt(apply)} ms (${fmt(mb / (apply / 1000))} MB/s source)`);
  console.log(`validate + apply:            ${fmt(validateApply)} ms`);
  console.log(`filesystem transaction:      ${fmt(transaction)} ms (hash, apply, stage, fsync, journal, commit)`);
  console.log(`output: ${fmt(Buffer.byteLength(output) / 1e6, 1)} MB`);
  console.log(`peak heap used: ${fmt(peakHeap / 1048576)} MiB; max RSS: ${fmt(process.resourceUsage().maxRSS / 1024)} MiB`);
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
