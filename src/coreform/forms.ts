/** Top-level forms as the tools compare them: the name a `(def NAME …)` defines, and equality of form lists. */
import { listItems, termsEqual, type Term } from './term.js';

/**
 * The name a top-level form `(def NAME …)` defines: `NAME` when the form is a proper list of at
 * least two items whose head is the symbol `def` and whose second item is a symbol; otherwise
 * `undefined`. Works on raw (as read) and canonical terms alike.
 */
export function defName(form: Term): string | undefined {
  if (form.kind !== 'pair' || form.car.kind !== 'sym' || form.car.name !== 'def') return undefined;
  const items = listItems(form);
  if (!items || items.length < 2) return undefined;
  const name = items[1]!;
  return name.kind === 'sym' ? name.name : undefined;
}

/**
 * True when two lists of forms are equal term by term. `undefined` stands for an absent module and
 * is equal only to `undefined`.
 */
export function formsEqual(a: readonly Term[] | undefined, b: readonly Term[] | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!termsEqual(a[i]!, b[i]!)) return false;
  return true;
}
