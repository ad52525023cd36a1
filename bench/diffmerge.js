// Semantic diff and three-way merge of two 1,000-module workspaces, 10% of modules changed on each
// side (disjoint modules, so the merge is clean and embeds its base->merged diff), plus the
// independent verifiers. Runnable standalone: `npm run build && node bench/diffmerge.js`.
import { canonicalizeSource } from '../dist/coreform/canon.js';
import { diffWorkspaces } from '../dist/diff/diff.js';
import { verifyDiffReport } from '../dist/diff/verify.js';
import { mergeWorkspaces } from '../dist/merge/rules.js';
import { verifyMergeReport } from '../dist/merge/verify.js';
import { makeWorkspace, workspaceHash } from '../dist/workspace/workspace.js';
import { moduleSource } from './corpus.js';
import { fmt, timeMedian } from './util.js';

const MODULES = 1000;
const DEFS = 12;

/** `base` with every module whose index satisfies `pick` edited: one form replaced, every 4th also grown. */
function edited(base, pick, tag) {
  return makeWorkspace(
    base.modules.map((m, i) => {
      if (!pick(i)) return m;
      const forms = [...m.forms.items];
      forms[2] = canonicalizeSource(`(def bench/m${i}::${tag} (fn (x) (prim int/add x ${i})))`)[0];
      if (i % 4 === 0) forms.push(canonicalizeSource(`(def bench/m${i}::${tag}-extra ${i})`)[0]);
      return { modulePath: m.modulePath, forms };
    }),
  );
}

export async function run() {
  const base = makeWorkspace(
    Array.from({ length: MODULES }, (_, i) => ({ modulePath: `src/m${i}.gc`, forms: canonicalizeSource(moduleSource('bench', i, DEFS)) })),
  );
  const left = edited(base, (i) => i % 10 === 0, 'left');
  const right = edited(base, (i) => i % 10 === 5, 'right');
  const forms = base.modules.reduce((n, m) => n + m.forms.items.length, 0);
  console.log(`workspaces: ${MODULES} modules, ${forms} top-level forms; ${MODULES / 10} modules changed per side`);

  // Workspace objects cache their hash; every timed run starts from fresh copies, as one CLI run does.
  const fresh = (ws) => makeWorkspace(ws.modules, 'bench', { assumeCanonical: true });
  let diff;
  const diffMs = await timeMedian(() => {
    diff = diffWorkspaces(fresh(base), fresh(left), { intent: 'bench' });
  }, 5);
  const diffVerifyMs = await timeMedian(() => verifyDiffReport(diff.admitted, diff.report), 5);
  let merge;
  const mergeMs = await timeMedian(() => {
    merge = mergeWorkspaces(fresh(base), fresh(left), fresh(right), { intent: 'bench' });
  }, 5);
  const mergeVerifyMs = await timeMedian(() => verifyMergeReport(merge.admitted, merge.report), 5);
  const hashMs = await timeMedian(() => workspaceHash(fresh(base)), 5);

  console.log(`diff (base -> left, incl. normalize and hashes):   median ${fmt(diffMs)} ms`);
  console.log(`diff verifier (after the diff, as the CLI runs it): median ${fmt(diffVerifyMs)} ms`);
  console.log(`merge (clean, incl. embedded diff):                median ${fmt(mergeMs)} ms`);
  console.log(`merge verifier (incl. embedded diff verifier):     median ${fmt(mergeVerifyMs)} ms`);
  console.log(`one workspace hash-term (1,000 modules, 1.9 MB):   median ${fmt(hashMs)} ms`);
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
