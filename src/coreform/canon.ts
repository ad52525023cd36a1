/**
 * Canonicalization of source forms into canonical CoreForm (docs/reference/coreform.md §1.3), applied per
 * top-level form.
 *
 * - Data positions (vector elements, map keys, the datum of `quote`) are never desugared. Under
 *   data, lists/vectors are rebuilt element-wise as data and maps/improper lists are kept as-is,
 *   which makes data canonicalization the identity: data subterms are returned unchanged.
 * - Code positions: top-level forms, map values (a map in code position keeps its keys and
 *   canonicalizes its values), and the sub-expressions of code lists.
 * - A list in code position: `()` is nil; the nine reserved heads `quote def fn if begin let prim
 *   seal unseal` are checked for their exact shapes (a malformed reserved form is an error, never
 *   an application); anything else is an application, made left-nested binary
 *   (`(f a b)` → `((f a) b)`, `(f)` → `f`).
 *
 * Errors: `GcError` with code {@link CANON_INVALID_FORM} (`core/canon/invalid-form`), exit code 10,
 * message `canonicalize form <ordinal>: <reason>` where `<ordinal>` is the 0-based index of the
 * top-level form in its module, and `details: { ordinal, reason }`. The reasons are:
 *
 * - `improper list in code position`
 * - `(quote ...) expects exactly 1 argument`
 * - `(def ...) expects exactly 2 arguments`
 * - `(def ...) name must be a symbol`
 * - `(fn ...) expects a parameter list and at least one body expression`
 * - `(fn ...) parameters must be a list`
 * - `(fn ...) expects at least one parameter`
 * - `(fn ...) parameters must be symbols`
 * - `(fn ...) duplicate parameter: <name>`
 * - `(if ...) expects exactly 3 arguments`
 * - `(begin ...) expects at least 1 argument`
 * - `(let ...) expects a binding list and at least one body expression`
 * - `(let ...) bindings must be a list`
 * - `(let ...) binding must be a list of a name and an expression`
 * - `(let ...) binding name must be symbol`
 * - `(let ...) duplicate binding: <name>`
 * - `(prim ...) expects an operator symbol`
 * - `(prim ...) operator must be a symbol`
 * - `(seal ...) expects 0 or 2 arguments`
 * - `(unseal ...) expects exactly 2 arguments`
 *
 * Everything is iterative (explicit work stack), so 100,000-deep nesting is safe. Idempotent.
 */
import { GcError } from '../util/errors.js';
import { lineColumn, readModule, readModuleSpans, type ReadModuleResult, type SpannedModule } from './read.js';
import { NIL, listItems, termsEqual, type MapTerm, type PairTerm, type Term } from './term.js';

/** Error code of every canonicalization failure. */
export const CANON_INVALID_FORM = 'core/canon/invalid-form';

/** The nine reserved heads of §1.3 (exact symbol spelling). */
export const RESERVED_HEADS: ReadonlySet<string> = new Set(['quote', 'def', 'fn', 'if', 'begin', 'let', 'prim', 'seal', 'unseal']);

const SYM_FN: Term = { kind: 'sym', name: 'fn' };
const SYM_BEGIN: Term = { kind: 'sym', name: 'begin' };
const SYM_LET: Term = { kind: 'sym', name: 'let' };

/** A pending rebuild: pops `n` canonicalized children from the value stack and builds a term. */
class Frame {
  constructor(
    readonly n: number,
    readonly build: (vals: Term[], base: number) => Term,
  ) {}
}

function cons(car: Term, cdr: Term): Term {
  return { kind: 'pair', car, cdr };
}

/** `(head a b ...)` from a head term and `vals[base..]`. */
function listWith(head: readonly Term[], vals: Term[], base: number, end = vals.length): Term {
  let out: Term = NIL;
  for (let i = end - 1; i >= base; i--) out = cons(vals[i]!, out);
  for (let i = head.length - 1; i >= 0; i--) out = cons(head[i]!, out);
  return out;
}

function canonError(ordinal: number, reason: string): GcError {
  return new GcError(CANON_INVALID_FORM, `canonicalize form ${ordinal}: ${reason}`, {
    details: { ordinal, reason },
  });
}

/**
 * `(fn (p …) body …)`: checks the parameters and queues the body; the frame curries the
 * parameters into nested one-parameter `fn`s and wraps several body expressions in `begin`.
 */
function pushFn(tasks: (Term | Frame)[], items: Term[], fail: (reason: string) => GcError): void {
  const argc = items.length - 1;
  if (argc < 2) throw fail('(fn ...) expects a parameter list and at least one body expression');
  const params = listItems(items[1]!);
  if (params === undefined) throw fail('(fn ...) parameters must be a list');
  if (params.length === 0) throw fail('(fn ...) expects at least one parameter');
  const seen = new Set<string>();
  for (const p of params) {
    if (p.kind !== 'sym') throw fail('(fn ...) parameters must be symbols');
    if (seen.has(p.name)) throw fail(`(fn ...) duplicate parameter: ${p.name}`);
    seen.add(p.name);
  }
  const k = argc - 1;
  tasks.push(
    new Frame(k, (vs, base) => {
      let body = k === 1 ? vs[base]! : listWith([SYM_BEGIN], vs, base);
      for (let i = params.length - 1; i >= 0; i--) {
        body = cons(SYM_FN, cons(cons(params[i]!, NIL), cons(body, NIL)));
      }
      return body;
    }),
  );
  for (let i = items.length - 1; i >= 2; i--) tasks.push(items[i]!);
}

/**
 * `(let ((name expr) …) body …)`: checks the bindings and queues their expressions and the body;
 * several body expressions are wrapped in `begin`.
 */
function pushLet(tasks: (Term | Frame)[], items: Term[], fail: (reason: string) => GcError): void {
  const argc = items.length - 1;
  if (argc < 2) throw fail('(let ...) expects a binding list and at least one body expression');
  const bindings = listItems(items[1]!);
  if (bindings === undefined) throw fail('(let ...) bindings must be a list');
  const names: Term[] = [];
  const exprs: Term[] = [];
  const seen = new Set<string>();
  for (const b of bindings) {
    const parts = listItems(b);
    if (parts === undefined || parts.length !== 2) {
      throw fail('(let ...) binding must be a list of a name and an expression');
    }
    const name = parts[0]!;
    if (name.kind !== 'sym') throw fail('(let ...) binding name must be symbol');
    if (seen.has(name.name)) throw fail(`(let ...) duplicate binding: ${name.name}`);
    seen.add(name.name);
    names.push(name);
    exprs.push(parts[1]!);
  }
  const m = names.length;
  const k = argc - 1;
  tasks.push(
    new Frame(m + k, (vs, base) => {
      let bs: Term = NIL;
      for (let i = m - 1; i >= 0; i--) bs = cons(cons(names[i]!, cons(vs[base + i]!, NIL)), bs);
      const body = k === 1 ? vs[base + m]! : listWith([SYM_BEGIN], vs, base + m);
      return cons(SYM_LET, cons(bs, cons(body, NIL)));
    }),
  );
  for (let i = items.length - 1; i >= 2; i--) tasks.push(items[i]!);
  for (let i = m - 1; i >= 0; i--) tasks.push(exprs[i]!);
}

/**
 * Canonicalizes one top-level form (a code position; a top-level vector is data, a top-level
 * map keeps its keys and canonicalizes its values). Implements docs/reference/coreform.md §1.3.
 * @param form the raw term as read.
 * @param ordinal 0-based index of the form in its module, used only in error messages.
 * @returns the canonical term (data subterms are shared with `form`, not copied).
 * @throws GcError `core/canon/invalid-form` "canonicalize form <ordinal>: <reason>".
 */
export function canonicalizeForm(form: Term, ordinal = 0): Term {
  const tasks: (Term | Frame)[] = [form];
  const vals: Term[] = [];
  const fail = (reason: string): GcError => canonError(ordinal, reason);

  while (tasks.length > 0) {
    const task = tasks.pop()!;
    if (task instanceof Frame) {
      const base = vals.length - task.n;
      const v = task.build(vals, base);
      vals.length = base;
      vals.push(v);
      continue;
    }
    if (task.kind === 'map') {
      const m: MapTerm = task;
      if (m.entries.length === 0) {
        vals.push(m);
        continue;
      }
      tasks.push(
        new Frame(m.entries.length, (vs, base) => ({
          kind: 'map',
          entries: m.entries.map((e, i) => [e[0], vs[base + i]!] as const),
        })),
      );
      for (let i = m.entries.length - 1; i >= 0; i--) tasks.push(m.entries[i]![1]);
      continue;
    }
    if (task.kind !== 'pair') {
      // Atoms are themselves; vectors are data.
      vals.push(task);
      continue;
    }
    const items = listItems(task);
    if (items === undefined) throw fail('improper list in code position');
    const head = items[0]!;
    const argc = items.length - 1;
    if (head.kind === 'sym' && RESERVED_HEADS.has(head.name)) {
      switch (head.name) {
        case 'quote':
          if (argc !== 1) throw fail('(quote ...) expects exactly 1 argument');
          vals.push(task as PairTerm);
          continue;
        case 'def': {
          if (argc !== 2) throw fail('(def ...) expects exactly 2 arguments');
          const name = items[1]!;
          if (name.kind !== 'sym') throw fail('(def ...) name must be a symbol');
          tasks.push(new Frame(1, (vs, base) => listWith([head, name], vs, base)), items[2]!);
          continue;
        }
        case 'fn':
          pushFn(tasks, items, fail);
          continue;
        case 'if':
          if (argc !== 3) throw fail('(if ...) expects exactly 3 arguments');
          pushList(tasks, items, [head], 1);
          continue;
        case 'begin':
          if (argc < 1) throw fail('(begin ...) expects at least 1 argument');
          pushList(tasks, items, [head], 1);
          continue;
        case 'let':
          pushLet(tasks, items, fail);
          continue;
        case 'prim': {
          if (argc < 1) throw fail('(prim ...) expects an operator symbol');
          const op = items[1]!;
          if (op.kind !== 'sym') throw fail('(prim ...) operator must be a symbol');
          pushList(tasks, items, [head, op], 2);
          continue;
        }
        case 'seal':
          if (argc !== 0 && argc !== 2) throw fail('(seal ...) expects 0 or 2 arguments');
          pushList(tasks, items, [head], 1);
          continue;
        case 'unseal':
          if (argc !== 2) throw fail('(unseal ...) expects exactly 2 arguments');
          pushList(tasks, items, [head], 1);
          continue;
      }
    }
    // Application.
    if (items.length === 1) {
      tasks.push(head);
      continue;
    }
    const n = items.length;
    tasks.push(
      new Frame(n, (vs, base) => {
        let acc = vs[base]!;
        for (let i = 1; i < n; i++) acc = cons(acc, cons(vs[base + i]!, NIL));
        return acc;
      }),
    );
    for (let i = n - 1; i >= 0; i--) tasks.push(items[i]!);
  }
  return vals[0]!;
}

/** Schedules `(prefix... canon(items[from..]))`. */
function pushList(tasks: (Term | Frame)[], items: Term[], prefix: Term[], from: number): void {
  tasks.push(new Frame(items.length - from, (vs, base) => listWith(prefix, vs, base)));
  for (let i = items.length - 1; i >= from; i--) tasks.push(items[i]!);
}

/**
 * Canonicalizes every top-level form of a module (docs/reference/coreform.md §1.3, §1.6); form `i` uses
 * ordinal `i` in error messages.
 * @throws GcError `core/canon/invalid-form`.
 */
export function canonicalizeModule(forms: readonly Term[]): Term[] {
  return forms.map((f, i) => canonicalizeForm(f, i));
}

/**
 * Reads a module (`readModule`, §1.2) and canonicalizes each form: the "canonical module" of §1.6.
 * @param source UTF-8 bytes or a JS string.
 * @throws GcError `core/parse/*` from the reader unchanged; `core/canon/invalid-form` with
 *   `location.offset` (0-based byte), `line` and `column` (1-based) of the offending top-level form.
 */
export function canonicalizeSource(source: Uint8Array | string): Term[] {
  return canonicalizeRead(readModule(source));
}

/**
 * {@link canonicalizeSource} that also keeps what the reader saw: the forms with their node spans
 * (`readModuleSpans`), for a caller that edits the text afterwards (the format-preserving apply,
 * `src/patch/render/render.ts`). One reader pass gives both.
 * @returns `module`, the spanned read, and `forms`, equal to `canonicalizeSource(source)`.
 * @throws GcError as {@link canonicalizeSource}.
 */
export function canonicalizeSourceSpans(source: Uint8Array | string): { module: SpannedModule; forms: Term[] } {
  const module = readModuleSpans(source);
  return { module, forms: canonicalizeRead(module) };
}

function canonicalizeRead({ source: bytes, forms }: ReadModuleResult): Term[] {
  return forms.map((f, i) => {
    try {
      return canonicalizeForm(f.term, i);
    } catch (e) {
      if (e instanceof GcError && e.code === CANON_INVALID_FORM) {
        throw e.withLocation({ offset: f.start, ...lineColumn(bytes, f.start) });
      }
      throw e;
    }
  });
}

/**
 * True when `form` is already canonical: `canonicalizeForm(form)` succeeds and is structurally
 * equal to `form`. Never throws.
 */
export function isCanonicalForm(form: Term): boolean {
  try {
    return termsEqual(canonicalizeForm(form, 0), form);
  } catch {
    return false;
  }
}
