/**
 * Structural navigation and replacement along `:path` steps (GenesisCode `docs/spec/PATCH_SCHEMA.md` "Path encoding").
 * Iterative, so deep terms (long lists, deep nesting) do not overflow the stack.
 */
import { printAtom } from '../../coreform/print.js';
import { compareTerms, type MapTerm, type Term } from '../../coreform/term.js';
import { PatchCode, patchError } from './errors.js';
import type { PathStep } from './path.js';

function describeKey(t: Term): string {
  return printAtom(t) ?? t.kind;
}

function findMapIndex(m: MapTerm, key: Term): number {
  let lo = 0;
  let hi = m.entries.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const c = compareTerms(m.entries[mid]![0], key);
    if (c === 0) return mid;
    if (c < 0) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/** Descends one step from `node`; `depth` is the step's 0-based position, for messages. */
function descend(node: Term, step: PathStep, depth: number): Term {
  const at = `step ${depth}`;
  switch (step.tag) {
    case 'form':
      throw patchError(PatchCode.invalidPath, `${at}: [:form i] may only be the first step`, { at });
    case 'pair-car':
    case 'pair-cdr':
      if (node.kind !== 'pair') throw patchError(PatchCode.pathStepMismatch, `${at}: [:${step.tag}] needs a pair, found ${node.kind}`, { at });
      return step.tag === 'pair-car' ? node.car : node.cdr;
    case 'vec':
      if (node.kind !== 'vec') throw patchError(PatchCode.pathStepMismatch, `${at}: [:vec ${step.index}] needs a vector, found ${node.kind}`, { at });
      if (step.index >= node.items.length) {
        throw patchError(PatchCode.vecIndexOutOfRange, `${at}: [:vec ${step.index}] is out of range (vector has ${node.items.length} elements)`, { at });
      }
      return node.items[step.index]!;
    case 'map': {
      if (node.kind !== 'map') throw patchError(PatchCode.pathStepMismatch, `${at}: [:map …] needs a map, found ${node.kind}`, { at });
      const i = findMapIndex(node, step.key);
      if (i < 0) throw patchError(PatchCode.mapKeyMissing, `${at}: the map has no key ${describeKey(step.key)}`, { at });
      return node.entries[i]![1];
    }
  }
}

function formAt(forms: readonly Term[], steps: readonly PathStep[]): number {
  const first = steps[0];
  if (first === undefined || first.tag !== 'form') throw patchError(PatchCode.invalidPath, 'a path must start with [:form i]');
  if (first.index >= forms.length) {
    throw patchError(PatchCode.formIndexOutOfRange, `[:form ${first.index}] is out of range: the module has ${forms.length} top-level forms`, {
      at: 'step 0',
    });
  }
  return first.index;
}

/**
 * The node at `steps` in a module's forms.
 * @throws GcError `patch/form-index-out-of-range`, `patch/vec-index-out-of-range`,
 *   `patch/map-key-missing`, `patch/path-step-mismatch`, `patch/invalid-path`.
 */
export function getAt(forms: readonly Term[], steps: readonly PathStep[]): Term {
  let node = forms[formAt(forms, steps)]!;
  for (let i = 1; i < steps.length; i++) node = descend(node, steps[i]!, i);
  return node;
}

/**
 * Replaces the node at `steps` with `replacement` and returns the new top-level form and its index
 * (other forms are untouched; ancestors are rebuilt, siblings shared).
 * @throws GcError as {@link getAt}.
 */
export function replaceAt(forms: readonly Term[], steps: readonly PathStep[], replacement: Term): { index: number; form: Term } {
  const index = formAt(forms, steps);
  const ancestors: Term[] = [forms[index]!];
  for (let i = 1; i < steps.length; i++) ancestors.push(descend(ancestors[i - 1]!, steps[i]!, i));
  let built = replacement;
  for (let i = steps.length - 1; i >= 1; i--) {
    const parent = ancestors[i - 1]!;
    const step = steps[i]!;
    switch (step.tag) {
      case 'pair-car':
        built = { kind: 'pair', car: built, cdr: (parent as { cdr: Term }).cdr };
        break;
      case 'pair-cdr':
        built = { kind: 'pair', car: (parent as { car: Term }).car, cdr: built };
        break;
      case 'vec': {
        const items = [...(parent as { items: readonly Term[] }).items];
        items[step.index] = built;
        built = { kind: 'vec', items };
        break;
      }
      case 'map': {
        const m = parent as MapTerm;
        const entries = [...m.entries];
        const k = findMapIndex(m, step.key);
        entries[k] = [entries[k]![0], built];
        built = { kind: 'map', entries };
        break;
      }
      case 'form':
        break;
    }
  }
  return { index, form: built };
}
