/**
 * `:path` vectors of `:replace-node` (GenesisCode `docs/spec/PATCH_SCHEMA.md` "Path encoding"): decoding the step terms
 * and building them. Steps: `[:form i]` (first step only), `[:pair-car]`, `[:pair-cdr]`,
 * `[:vec i]`, `[:map key-term]`. Indices are 0-based.
 */
import { int, kw, vec, type Term, type VecTerm } from '../../coreform/term.js';
import { printTerm } from '../../coreform/print.js';
import { PatchCode, patchError } from './errors.js';

/** One decoded path step. `index` is 0-based. */
export type PathStep =
  | { readonly tag: 'form'; readonly index: number }
  | { readonly tag: 'pair-car' }
  | { readonly tag: 'pair-cdr' }
  | { readonly tag: 'vec'; readonly index: number }
  | { readonly tag: 'map'; readonly key: Term };

function indexOf(t: Term | undefined): number | undefined {
  if (t === undefined || t.kind !== 'int' || t.value < 0n || t.value > BigInt(Number.MAX_SAFE_INTEGER)) return undefined;
  return Number(t.value);
}

/**
 * Decodes and validates a `:path` term: a non-empty vector whose first step is `[:form i]` and
 * whose other steps are `[:pair-car]`, `[:pair-cdr]`, `[:vec i]` or `[:map key]`.
 * @param t the `:path` field; @param at where it sits, for messages.
 * @throws GcError `patch/wrong-type` when `t` is not a vector, `patch/invalid-path` otherwise.
 */
export function decodePath(t: Term, at = ':path'): PathStep[] {
  if (t.kind !== 'vec') throw patchError(PatchCode.wrongType, `${at} must be a vector of steps, got ${t.kind}`, { at });
  if (t.items.length === 0) throw patchError(PatchCode.invalidPath, `${at} is empty; it must start with [:form i]`, { at });
  return t.items.map((step, i): PathStep => {
    const where = `${at}[${i}]`;
    const bad = (why: string) => patchError(PatchCode.invalidPath, `${where} ${why}`, { at: where });
    if (step.kind !== 'vec' || step.items.length === 0 || step.items[0]!.kind !== 'sym') {
      throw bad('must be a vector starting with a step tag such as :form, :pair-car, :pair-cdr, :vec or :map');
    }
    const tag = (step.items[0] as { name: string }).name;
    const n = step.items.length;
    switch (tag) {
      case ':form': {
        if (i !== 0) throw bad('[:form i] may only be the first step');
        const index = indexOf(step.items[1]);
        if (n !== 2 || index === undefined) throw bad('must be [:form i] with a non-negative integer i');
        return { tag: 'form', index };
      }
      case ':pair-car':
      case ':pair-cdr':
        if (i === 0) throw bad('the first step must be [:form i]');
        if (n !== 1) throw bad(`must be [${tag}] with no argument`);
        return { tag: tag === ':pair-car' ? 'pair-car' : 'pair-cdr' };
      case ':vec': {
        if (i === 0) throw bad('the first step must be [:form i]');
        const index = indexOf(step.items[1]);
        if (n !== 2 || index === undefined) throw bad('must be [:vec i] with a non-negative integer i');
        return { tag: 'vec', index };
      }
      case ':map':
        if (i === 0) throw bad('the first step must be [:form i]');
        if (n !== 2) throw bad('must be [:map key-term]');
        return { tag: 'map', key: step.items[1]! };
      default:
        throw bad(`has unknown step tag ${tag}`);
    }
  });
}

/** Builds the CoreForm term of one step (`[:form 0]`, `[:pair-car]`, …). */
export function stepTerm(step: PathStep): VecTerm {
  switch (step.tag) {
    case 'form':
      return vec([kw('form'), int(step.index)]);
    case 'pair-car':
      return vec([kw('pair-car')]);
    case 'pair-cdr':
      return vec([kw('pair-cdr')]);
    case 'vec':
      return vec([kw('vec'), int(step.index)]);
    case 'map':
      return vec([kw('map'), step.key]);
  }
}

/** Builds the path term (vector of step vectors) of `steps`. */
export function pathTerm(steps: readonly PathStep[]): VecTerm {
  return vec(steps.map(stepTerm));
}

/** `:path-repr`: the canonical print of the path term (multi-line for one or more steps). */
export function pathRepr(steps: readonly PathStep[]): string {
  return printTerm(pathTerm(steps));
}
