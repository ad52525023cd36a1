// Refactor planning: build the closed request, plan and independently verify a rename across
// 1,000 modules (each module references the renamed symbol a few times), plus the edit-plan export.
import { canonicalizeSource } from '../dist/coreform/canon.js';
import { vec } from '../dist/coreform/term.js';
import { buildRefactorRequest } from '../dist/refactor/request.js';
import { planRefactor } from '../dist/refactor/plan.js';
import { verifyRefactorReport } from '../dist/refactor/verify.js';
import { refactorEditPlan } from '../dist/refactor/edit-plan-export.js';
import { fmt, timeMedian } from './util.js';

const FROM = 'bench/core::helper';
const TO = 'bench/core::renamed-helper';

/** A module of ~25 lines: a ::meta form, defs that call the helper, a map, quoted data, comments. */
function moduleText(i) {
  const defines = i === 0 ? `(def ${FROM} (fn (x) (prim int/add x 1)))\n` : '';
  return `; bench module ${i}
(def ::meta '{:exports [bench/m${i}::a bench/m${i}::b] :imports [${FROM}]})
${defines}
(def bench/m${i}::a
  (fn (n)
    (if (prim int/lt n ${i})
        (${FROM} n)
        (bench/m${i}::b (prim int/sub n 1)))))

(def bench/m${i}::b (fn (n) (let ((k (${FROM} n)) (j "${FROM} in a string")) [k j 'quoted])))

(def bench/m${i}::table {:helper ${FROM} :index ${i} :label "module ${i}" :tags [:x :y :z]})
`;
}

export async function run() {
  const count = 1000;
  const encoder = new TextEncoder();
  const sources = Array.from({ length: count }, (_, i) => ({ modulePath: `src/m${i}.gc`, bytes: encoder.encode(moduleText(i)) }));
  const modules = sources.map((s) => ({ modulePath: s.modulePath, forms: vec(canonicalizeSource(s.bytes)) }));
  const params = { refactorKind: 'rename', fromSymbol: FROM, toSymbol: TO };
  let request;
  const build = await timeMedian(() => {
    request = buildRefactorRequest(params, modules, { assumeCanonical: true });
  }, 7);
  let plan;
  const planMs = await timeMedian(() => {
    plan = planRefactor(request);
  }, 7);
  let verified;
  const verifyMs = await timeMedian(() => {
    verified = verifyRefactorReport(plan.report, request);
  }, 7);
  const exportMs = await timeMedian(() => refactorEditPlan(verified, sources), 5);
  const bytes = sources.reduce((n, s) => n + s.bytes.length, 0);
  console.log(`rename across ${count} modules (${fmt(bytes / 1024 / 1024, 2)} MB of source): ${plan.replacementCount} replacements, ${plan.patch.ops.length} ops`);
  console.log(`build request (print + hash-term): median ${fmt(build)} ms`);
  console.log(`plan (scan + conflicts + normalize + report): median ${fmt(planMs)} ms`);
  console.log(`verify (independent scan + all checks): median ${fmt(verifyMs)} ms`);
  console.log(`plan + verify: ${fmt(planMs + verifyMs)} ms`);
  console.log(`edit-plan export (lex + self-check canonicalization): median ${fmt(exportMs)} ms`);
  return { modules: count, buildMs: build, planMs, verifyMs, exportMs };
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
