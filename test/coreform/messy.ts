// Hand-formatted text for property tests: prints a term the way a person might write it — random
// whitespace, line breaks, `;` comments, blank lines, and `'x` sugar for (quote x) — so tests can
// check that tools keep the author's text. Iterative (explicit stack).
import { printAtom } from '../../src/coreform/print.js';
import type { Term } from '../../src/coreform/term.js';

/** The tests' deterministic generator (test/helpers/random.ts), so a fast-check seed reproduces the text. */
export { random as rng } from '../helpers/random.js';

const COMMENTS = ['; note', ';; why this is so', '; TODO: tidy', ';', '; café λ'];

/** Trivia between tokens: at least one separator when `need`, sometimes comments and blank lines. */
export function trivia(r: () => number, need: boolean): string {
  const x = r();
  if (x < 0.55) return need ? ' ' : '';
  if (x < 0.7) return need ? '  ' : ' ';
  if (x < 0.85) return '\n' + ' '.repeat(Math.floor(r() * 6));
  if (x < 0.93) return ' ' + COMMENTS[Math.floor(r() * COMMENTS.length)]! + '\n' + ' '.repeat(Math.floor(r() * 4));
  return '\n\n' + ' '.repeat(Math.floor(r() * 4));
}

function quoted(t: Term): Term | undefined {
  if (t.kind === 'pair' && t.car.kind === 'sym' && t.car.name === 'quote' && t.cdr.kind === 'pair' && t.cdr.cdr.kind === 'nil') return t.cdr.car;
  return undefined;
}

/** Prints `term` hand-formatted; reading the text gives back `term` exactly. */
export function messyPrint(term: Term, r: () => number): string {
  const out: string[] = [];
  type Job = { t: Term } | { s: string };
  const stack: Job[] = [{ t: term }];
  while (stack.length > 0) {
    const job = stack.pop()!;
    if ('s' in job) {
      out.push(job.s);
      continue;
    }
    const t = job.t;
    const q = quoted(t);
    if (q !== undefined && r() < 0.7) {
      out.push("'");
      stack.push({ t: q });
      continue;
    }
    let open: string;
    let close: string;
    let items: Term[];
    if (t.kind === 'pair') {
      items = [];
      let cur: Term = t;
      while (cur.kind === 'pair') {
        items.push(cur.car);
        cur = cur.cdr;
      }
      if (cur.kind !== 'nil') throw new Error('improper list');
      open = '(';
      close = ')';
    } else if (t.kind === 'vec') {
      items = [...t.items];
      open = '[';
      close = ']';
    } else if (t.kind === 'map') {
      items = t.entries.flatMap(([k, v]) => [k, v]);
      open = '{';
      close = '}';
    } else {
      out.push(t.kind === 'nil' && r() < 0.3 ? '()' : printAtom(t)!);
      continue;
    }
    out.push(open);
    const jobs: Job[] = [];
    items.forEach((item, i) => {
      jobs.push({ s: trivia(r, i > 0) }, { t: item });
    });
    let tail = trivia(r, false);
    if (tail.includes(';')) tail += ' ';
    jobs.push({ s: tail.includes(';') ? tail : tail.replace(/\n+$/, '') }, { s: close });
    for (let i = jobs.length - 1; i >= 0; i--) stack.push(jobs[i]!);
  }
  return out.join('');
}

/** A hand-formatted module: forms separated by blank lines and comments, maybe a header comment. */
export function messyModule(forms: readonly Term[], r: () => number): string {
  let text = r() < 0.5 ? ';; module header\n\n' : '';
  forms.forEach((f, i) => {
    if (i > 0) text += r() < 0.5 ? '\n\n' : r() < 0.5 ? '\n; about the next form\n' : '\n';
    text += messyPrint(f, r);
  });
  return text + (r() < 0.8 ? '\n' : '');
}
