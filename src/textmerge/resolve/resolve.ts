/**
 * Step 3 of the text merge, resolution: GenesisCode `docs/spec/SEMANTIC_PATCH_MERGE_v0.1.md` rules 1–3 on each aligned
 * element's text; both changed → merged inside (part by part, else a line-level diff3), kept only
 * when clean and it reads back as one element of the same kind and name; delete/modify and
 * divergent add/add are conflicts.
 */
import { canonicalizeForm } from '../../coreform/canon.js';
import { readTerm } from '../../coreform/read.js';
import { termsEqual } from '../../coreform/term.js';
import { GcError } from '../../util/errors.js';
import { isTimeout } from '../common/deadline.js';
import { body, sameBody, type Aligned, type InnerConflicts, type Resolution, type SideModule } from '../align/merge-records.js';
import { concatBytes, diff3, sameBytes, type MarkerOptions } from '../common/diff3.js';
import type { SegmentedModule, TextElement } from '../segment/element.js';
import { segmentModule } from '../segment/segments.js';
import { mergeFormTree, type TreeMerge } from './tree-merge.js';
import { readingOf, renderTree } from './tree-merge-output.js';

/**
 * Merges an element present on some sides (indices -1 when absent) by the v0.1 rules 1–3 applied to
 * its text, with a line-level diff3 when both sides changed it.
 */
export function resolveElement(
  a: Aligned,
  B: SideModule,
  O: SideModule,
  T: SideModule,
  deadline: number,
  prefer: 'ours' | 'theirs',
  markers: MarkerOptions,
  messages: string[],
): Resolution {
  const { b, o, t } = a;
  // Element bodies compared in place (no subarrays: this runs once per element of the module).
  // Each side is compared with base first (and the answer kept for the semantic pass): an element
  // neither side changed costs two comparisons.
  if (o >= 0 && t >= 0) {
    if (b >= 0) {
      const oSame = sameBody(O, o, B, b);
      const tSame = sameBody(T, t, B, b);
      a.changedO = oSame ? 1 : 2;
      a.changedT = tSame ? 1 : 2;
      if (oSame && tSame) return prefer === 'ours' ? { kind: 'take', side: 'ours', index: o } : { kind: 'take', side: 'theirs', index: t };
      if (oSame) return { kind: 'take', side: 'theirs', index: t };
      if (tSame) return { kind: 'take', side: 'ours', index: o };
    }
    if (sameBody(O, o, T, t)) return prefer === 'ours' ? { kind: 'take', side: 'ours', index: o } : { kind: 'take', side: 'theirs', index: t };
    if (b < 0) return { kind: 'conflict', code: 'form/divergent-add', b, o, t };
    const merged = mergeInside(b, o, t, B, O, T, deadline, markers, messages);
    return merged ?? { kind: 'conflict', code: 'form/divergent-edit', b, o, t };
  }
  if (o >= 0) {
    if (b < 0) return { kind: 'take', side: 'ours', index: o };
    return sameBody(O, o, B, b) ? { kind: 'deleted' } : { kind: 'conflict', code: 'form/delete-modify', b, o, t };
  }
  if (t >= 0) {
    if (b < 0) return { kind: 'take', side: 'theirs', index: t };
    return sameBody(T, t, B, b) ? { kind: 'deleted' } : { kind: 'conflict', code: 'form/delete-modify', b, o, t };
  }
  return { kind: 'deleted' };
}

/** The three parts of an element's text: attached comments above, the form, a comment after it. */
function parts(s: SideModule, i: number): Uint8Array[] {
  const e = s.m.elements[i]!;
  const t = s.m.text;
  return [t.subarray(e.start, e.formStart), t.subarray(e.formStart, e.formEnd), t.subarray(e.formEnd, e.end)];
}

/** v0.1 rules 1–3 on one piece of text, then a clean line-level diff3, else undefined. */
function mergePart(b: Uint8Array, o: Uint8Array, t: Uint8Array, deadline: number): Uint8Array | undefined {
  if (sameBytes(o, t) || sameBytes(t, b)) return o;
  if (sameBytes(o, b)) return t;
  const r = diff3(b, o, t, deadline);
  if (r.conflicts > 0) return undefined;
  const lines: Uint8Array[] = [];
  for (const c of r.chunks) if (c.kind === 'ok') for (const line of c.lines) lines.push(line);
  return concatBytes(lines);
}

/** Canonical equality of two form texts (undefined when either does not canonicalize). */
function sameCanonical(a: Uint8Array, b: Uint8Array): boolean {
  try {
    return termsEqual(canonicalizeForm(readTerm(a)), canonicalizeForm(readTerm(b)));
  } catch (error) {
    if (error instanceof GcError) return false;
    throw error;
  }
}

/**
 * Merges the form part of an element both sides changed: rules 1–3, then the tree
 * merge (tree.ts) when clean, then rule "formatting versus code" (one side's change has the same
 * canonical form as base: the other side's text), then a clean line-level diff3.
 * @returns clean bytes, or the tree merge with conflicts (`tree`), or undefined.
 */
function mergeFormPart(
  b: Uint8Array,
  o: Uint8Array,
  t: Uint8Array,
  deadline: number,
  messages: string[],
): { bytes: Uint8Array } | { tree: TreeMerge } | undefined {
  if (sameBytes(o, t) || sameBytes(t, b)) return { bytes: o };
  if (sameBytes(o, b)) return { bytes: t };
  const tree = mergeFormTree(b, o, t, deadline);
  if (tree && tree.conflicts === 0) {
    for (const m of tree.renames) messages.push(m);
    return { bytes: readingOf(tree.segments, 'ours') };
  }
  if (sameCanonical(o, b)) return { bytes: t };
  if (sameCanonical(t, b)) return { bytes: o };
  const line = mergePart(b, o, t, deadline);
  if (line) return { bytes: line };
  return tree && tree.renames.length === 0 ? { tree } : undefined;
}

/**
 * Merges one element both sides changed: first part by part (attached comments, form by
 * {@link mergeFormPart}, trailing comment; so a comment edit on one side and a code edit on the
 * other combine), else a line-level diff3 of the whole text, else the tree merge's conflicts marked
 * inside the form. Kept only when the result (and, with conflicts, each side's reading of it) reads
 * back as exactly one element of the base element's kind (and def name).
 */
export function mergeInside(
  b: number,
  o: number,
  t: number,
  B: SideModule,
  O: SideModule,
  T: SideModule,
  deadline: number,
  markers: MarkerOptions,
  messages: string[],
): Resolution | undefined {
  const baseEl = B.m.elements[b]!;
  const candidates: (() => { bytes: Uint8Array; inner?: InnerConflicts } | undefined)[] = [];
  let treeConflict: (() => { bytes: Uint8Array; inner?: InnerConflicts } | undefined) | undefined;
  if (baseEl.kind === 'form' && O.m.elements[o]!.kind === 'form' && T.m.elements[t]!.kind === 'form') {
    candidates.push(() => {
      const pb = parts(B, b);
      const po = parts(O, o);
      const pt = parts(T, t);
      const pre = mergePart(pb[0]!, po[0]!, pt[0]!, deadline);
      const post = mergePart(pb[2]!, po[2]!, pt[2]!, deadline);
      if (!pre || !post) return undefined;
      const local: string[] = [];
      const form = mergeFormPart(pb[1]!, po[1]!, pt[1]!, deadline, local);
      if (!form) return undefined;
      if ('bytes' in form) {
        for (const m of local) messages.push(m);
        return { bytes: concatBytes([pre, form.bytes, post]) };
      }
      // Conflicts inside the form: tried after the whole-text line merge.
      treeConflict = () => {
        const segs = [pre, ...form.tree.segments, post];
        const r = renderTree(segs, markers);
        return { bytes: r.bytes, inner: { markerLines: r.markerLines, ours: readingOf(segs, 'ours'), theirs: readingOf(segs, 'theirs') } };
      };
      return undefined;
    });
  }
  candidates.push(() => {
    const m = mergePart(body(B, b), body(O, o), body(T, t), deadline);
    return m ? { bytes: m } : undefined;
  });
  candidates.push(() => treeConflict?.());
  const readsAsElement = (bytes: Uint8Array): TextElement | undefined => {
    let seg: SegmentedModule;
    try {
      seg = segmentModule(bytes, deadline, false);
    } catch (error) {
      if (error instanceof GcError && !isTimeout(error)) return undefined;
      throw error;
    }
    if (seg.elements.length !== 1) return undefined;
    const e = seg.elements[0]!;
    if (e.start !== 0 || e.end !== bytes.length || e.kind !== baseEl.kind || e.defName !== baseEl.defName) return undefined;
    return e;
  };
  for (const candidate of candidates) {
    const c = candidate();
    if (!c) continue;
    if (c.inner) {
      const eo = readsAsElement(c.inner.ours);
      const et = readsAsElement(c.inner.theirs);
      if (!eo || !et) continue;
      return { kind: 'merged', bytes: c.bytes, endsWithComment: false, inner: c.inner };
    }
    const e = readsAsElement(c.bytes);
    if (!e) continue;
    return { kind: 'merged', bytes: c.bytes, endsWithComment: e.endsWithComment };
  }
  return undefined;
}
