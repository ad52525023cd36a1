// Scale inputs the unit tests check at a smaller size (test/coreform/*.test.ts, test/patch/node-index.test.ts,
// test/editplan/positions.test.ts): a 20 MB module read (readModule), read and canonicalized, printed and hashed; 100,000-deep
// terms read, canonicalized, compared, projected to JSON and printed; a node id 100,000 steps deep; a
// 200,000-line index. Each result is checked before it is timed. Run alone with `node bench/scale.js`
// (after `npm run build`) or through `npm run bench`.
import { canonicalizeForm, canonicalizeSource } from '../dist/coreform/canon.js';
import { blake3 } from '@noble/hashes/blake3.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { hashModule, semanticNodeId } from '../dist/coreform/hash.js';
import { termToJson } from '../dist/coreform/json.js';
import { printModule } from '../dist/coreform/print.js';
import { readModule, readTerm } from '../dist/coreform/read.js';
import { NIL, int, kw, listFrom, sym, termsEqual, vec } from '../dist/coreform/term.js';
import { LineIndex } from '../dist/editplan/index.js';
import { resolveNodeId } from '../dist/patch/protocol/node-index.js';
import { stringifyJson } from '../dist/util/json.js';
import { fmt, timeMedian } from './util.js';

const DEPTH = 100_000;

function check(ok, what) {
  if (!ok) throw new Error(`bench/scale.js: ${what}`);
}

async function bigModule() {
  const unit =
    '(def pkg/mod::f (fn (x y) (core/int::add x (prim core/int::mul y 12345)))) ; comment\n' + '{:k "a string with \\n escape" :v [1 2 3 b"\\x00\\xff"]}\n';
  const count = Math.ceil((20 * 1024 * 1024) / unit.length);
  const source = unit.repeat(count);
  const unitPrint = printModule(canonicalizeSource(unit));
  const bytes = new TextEncoder().encode(source);
  let read;
  const reading = await timeMedian(() => (read = readModule(bytes)), 3, 0);
  check(read.forms.length === count * 2 && read.trailingStart === bytes.length - 1, '20 MB module read');
  let forms;
  let printed;
  const canon = await timeMedian(() => (forms = canonicalizeSource(source)), 3, 0);
  const print = await timeMedian(() => (printed = printModule(forms)), 3, 0);
  check(forms.length === count * 2 && printed.length === unitPrint.length * count + (count - 1), '20 MB module');
  const encoded = new TextEncoder().encode(`GCv0.2\0module\0${printed}`);
  let hash;
  const hashing = await timeMedian(() => (hash = hashModule(forms)), 3, 0);
  check(hash === bytesToHex(blake3(encoded)), '20 MB module hash');
  const mb = source.length / (1024 * 1024);
  console.log(
    `${fmt(mb, 1)} MB module (${forms.length} forms): read ${fmt(reading, 0)} ms = ${fmt(mb / (reading / 1000), 1)} MB/s, read+canonicalize ${fmt(canon, 0)} ms = ${fmt(mb / (canon / 1000), 1)} MB/s, ` +
      `print ${fmt(print, 0)} ms, hash ${fmt(hashing, 0)} ms (medians of 3)`,
  );
}

async function deepTerms() {
  const collapse = '('.repeat(DEPTH) + 'x' + ')'.repeat(DEPTH);
  let t;
  const read = await timeMedian(() => (t = readTerm(collapse)), 3, 1);
  const canon = await timeMedian(() => check(termsEqual(canonicalizeForm(t, 0), sym('x')), 'collapse'), 3, 1);
  const chain = readTerm('(f '.repeat(DEPTH) + 'x' + ')'.repeat(DEPTH));
  const chainCanon = await timeMedian(() => check(termsEqual(canonicalizeForm(chain, 0), chain), 'chain'), 3, 1);
  const printCollapse = await timeMedian(() => check(printModule(canonicalizeSource(collapse)) === 'x\n', 'print collapse'), 3, 1);
  let a = NIL;
  let b = NIL;
  let data = NIL;
  for (let i = 0; i < DEPTH; i++) {
    a = listFrom([a]);
    b = listFrom([b]);
    data = listFrom([sym('x'), data]);
  }
  const compare = await timeMedian(() => check(termsEqual(a, b), 'compare'), 3, 1);
  const json = await timeMedian(() => check(stringifyJson(termToJson(data)).length > 2_000_000, 'json'), 3, 1);
  const long = readTerm(`(${'x '.repeat(DEPTH)})`);
  const id = semanticNodeId('d.gc', vec([vec([kw('form'), int(0)]), ...Array(DEPTH).fill(vec([kw('pair-cdr')]))]));
  const nodeId = await timeMedian(() => check(resolveNodeId('d.gc', [long], id).length === DEPTH + 1, 'node id'), 3, 1);
  console.log(
    `${DEPTH}-deep terms (medians of 3, ms): read ${fmt(read, 0)}, canonicalize (collapse) ${fmt(canon, 0)}, canonicalize (chain) ${fmt(chainCanon, 0)}, ` +
      `read+canonicalize+print ${fmt(printCollapse, 0)}, compare ${fmt(compare, 0)}, JSON ${fmt(json, 0)}, node id resolve ${fmt(nodeId, 0)}`,
  );
}

async function lineIndex() {
  const lines = 200_000;
  const source = 'x\n'.repeat(lines) + 'last';
  let index;
  const build = await timeMedian(() => (index = new LineIndex(source)), 5, 1);
  check(index.resolve(lines + 1, 4) === source.length, 'line index');
  const resolveAll = await timeMedian(
    () => {
      for (let line = 1; line <= lines; line++) index.resolve(line, 1);
    },
    5,
    1,
  );
  console.log(`line index of ${lines} lines: build ${fmt(build, 1)} ms, resolve every line ${fmt(resolveAll, 1)} ms (medians of 5)`);
}

export async function run() {
  await bigModule();
  await deepTerms();
  await lineIndex();
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
