/**
 * `:migrate-contract-signature` (GenesisCode `docs/spec/PATCH_SCHEMA.md`): rename the first parameter of
 * `(def <contract> (fn (p) …))` and every in-scope reference to it, respecting lexical shadowing
 * by nested `fn` parameters and `let` bindings.
 *
 * Scope rules (canonical CoreForm, docs/reference/coreform.md §1.3): only code positions hold references.
 * `(quote d)` data, vector elements and map keys are data and are left alone, as is the operator
 * symbol of `(prim op …)`. `let` binding expressions are evaluated in the enclosing scope; a binding
 * or `fn` parameter named `:from-param` shadows it in the body. To keep the rename
 * meaning-preserving, a binder or a free reference named `:to-param` inside the renamed scope is
 * rejected (`patch/param-capture`).
 */
import { int, listFrom, listItems, sym, kwMap, type MapTerm, type Term } from '../../coreform/term.js';
import { map } from '../../coreform/term.js';
import { PatchCode, patchError } from '../protocol/errors.js';
import { requireModule, withModule, type PackageState } from '../protocol/state.js';
import { recanonicalize, refactorEdit, strField, topLevelDef, type OpOutcome } from './common.js';
import { rewriteTerm, type RewriteStep } from './rewrite.js';

interface Scope {
  /** References to `from` here mean the renamed parameter. */
  inScope: boolean;
  /** A binder for `to` encloses this point (so a `to` here is not a free reference). */
  toBound: boolean;
}

function symbolNamesOf(t: Term): string[] | undefined {
  const items = listItems(t);
  if (items === undefined || !items.every((x) => x.kind === 'sym')) return undefined;
  return items.map((x) => (x as { name: string }).name);
}

/**
 * Rewrites references to `from` as `to` in a body expression.
 * @returns the rewritten body and the number of rewritten references.
 * @throws GcError `patch/param-capture`.
 */
export function renameBoundReferences(body: Term, from: string, to: string, where: string): { body: Term; count: number } {
  let count = 0;
  const capture = (why: string) => patchError(PatchCode.paramCapture, `${where}: renaming ${from} to ${to} would change meaning: ${why}`, { at: where });
  const binderScope = (scope: Scope, names: readonly string[]): Scope => {
    const shadowsFrom = names.includes(from);
    const bindsTo = names.includes(to);
    if (scope.inScope && bindsTo && !shadowsFrom) throw capture(`a nested binder named ${to} would capture the renamed parameter`);
    return { inScope: scope.inScope && !shadowsFrom, toBound: scope.toBound || bindsTo };
  };
  const visit = (t: Term, scope: Scope): RewriteStep<Scope> => {
    switch (t.kind) {
      case 'sym':
        if (scope.inScope && t.name === from) {
          count++;
          return { done: sym(to) };
        }
        if (scope.inScope && t.name === to && !scope.toBound) throw capture(`${to} is already referenced in the function body`);
        return { done: t };
      case 'vec':
        return { done: t }; // vector elements are data
      case 'map':
        return {
          children: t.entries.map(([, v]) => [v, scope] as [Term, Scope]),
          build: (values) => map(t.entries.map(([k], i) => [k, values[i]!] as const)),
        };
      case 'pair': {
        const items = listItems(t);
        if (items === undefined) return undefined;
        const head = items[0]!;
        const headName = head.kind === 'sym' ? head.name : undefined;
        if (headName === 'quote') return { done: t };
        if (headName === 'fn' && items.length >= 3) {
          const params = symbolNamesOf(items[1]!);
          if (params !== undefined) {
            const inner = binderScope(scope, params);
            return {
              children: items.slice(2).map((b) => [b, inner] as [Term, Scope]),
              build: (bodies) => listFrom([head, items[1]!, ...bodies]),
            };
          }
        }
        if (headName === 'let' && items.length >= 3) {
          const bindings = listItems(items[1]!)?.map(listItems);
          if (bindings !== undefined && bindings.every((b) => b !== undefined && b.length === 2 && b[0]!.kind === 'sym')) {
            const pairs = bindings as Term[][];
            const inner = binderScope(
              scope,
              pairs.map((b) => (b[0] as { name: string }).name),
            );
            return {
              children: [...pairs.map((b) => [b[1]!, scope] as [Term, Scope]), ...items.slice(2).map((b) => [b, inner] as [Term, Scope])],
              build: (values) => listFrom([head, listFrom(pairs.map((b, i) => listFrom([b[0]!, values[i]!]))), ...values.slice(pairs.length)]),
            };
          }
        }
        if (headName === 'prim' && items.length >= 2) {
          return {
            children: items.slice(2).map((x) => [x, scope] as [Term, Scope]),
            build: (args) => listFrom([head, items[1]!, ...args]),
          };
        }
        return { children: items.map((x) => [x, scope] as [Term, Scope]), build: (xs) => listFrom(xs) };
      }
      default:
        return { done: t };
    }
  };
  const out = rewriteTerm(body, { inScope: true, toBound: false }, visit);
  return { body: out, count };
}

/**
 * Applies a normalized `:migrate-contract-signature` op.
 * @returns the edit with `:detail {:contract :from-param :to-param :rewrite-count}` (symbols, int).
 * @throws GcError `patch/module-missing`; `patch/contract-shape` when there is no
 *   `(def <contract> (fn (<from-param>) …))`, or `:from-param` equals `:to-param`;
 *   `patch/param-capture`.
 */
export function applyMigrateContractSignature(state: PackageState, op: MapTerm): OpOutcome {
  const modulePath = strField(op, 'module-path');
  const contract = strField(op, 'contract-symbol');
  const from = strField(op, 'from-param');
  const to = strField(op, 'to-param');
  const forms = requireModule(state, modulePath, ':migrate-contract-signature');
  const shape = (why: string) => patchError(PatchCode.contractShape, `:migrate-contract-signature: ${modulePath} ${contract}: ${why}`, { at: modulePath });
  if (from === to) throw shape(':from-param and :to-param must differ');
  const index = forms.findIndex((f) => topLevelDef(f)?.name === contract);
  if (index < 0) throw shape(`no top-level (def ${contract} …)`);
  const def = topLevelDef(forms[index]!)!;
  const fnItems = listItems(def.rhs);
  if (fnItems === undefined || fnItems.length < 3 || fnItems[0]!.kind !== 'sym' || fnItems[0]!.name !== 'fn') {
    throw shape('the definition is not (fn (params) body)');
  }
  const params = symbolNamesOf(fnItems[1]!);
  if (params === undefined || params.length === 0) throw shape('the fn parameters must be a non-empty list of symbols');
  if (params[0] !== from) throw shape(`the first parameter is ${params[0]}, not ${from}`);
  if (params.slice(1).includes(to)) throw shape(`${to} is already a parameter`);
  let count = 0;
  const bodies = fnItems.slice(2).map((b) => {
    const r = renameBoundReferences(b, from, to, `${modulePath} ${contract}`);
    count += r.count;
    return r.body;
  });
  const newParams = listFrom([sym(to), ...params.slice(1).map(sym)]);
  const newForm = listFrom([sym('def'), sym(contract), listFrom([fnItems[0]!, newParams, ...bodies])]);
  const next = [...forms];
  next[index] = newForm;
  const after = recanonicalize(modulePath, next, [index]);
  const detail = kwMap({ contract: sym(contract), 'from-param': sym(from), 'to-param': sym(to), 'rewrite-count': int(count) });
  return {
    state: withModule(state, modulePath, after),
    edit: refactorEdit('migrate-contract-signature', modulePath, forms, after, detail),
  };
}
