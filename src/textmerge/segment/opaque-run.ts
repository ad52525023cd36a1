/**
 * The opaque run of a reduced segmentation: a stretch of base's elements that neither side changed,
 * kept as one element that is never read (except where a name is looked for in it).
 */
import { readTerm } from '../../coreform/read.js';
import type { Term } from '../../coreform/term.js';
import { formsEndingBy } from './clean-cuts.js';
import { NotADefinition, type TextElement } from './element.js';

const nameEncoder = new TextEncoder();

/**
 * An unchanged run of base's elements that a reduced segmentation ({@link segmentReduced}) keeps
 * opaque: bytes all three sides share, aligned with itself by its key `run:<i>`, never read. Its
 * `kind` (`form`), `endsWithComment` and `formStart`/`formEnd` are those of its last element (a
 * form), as the render's boundary rules need them.
 */
export class RunElement extends NotADefinition implements TextElement {
  readonly kind = 'form' as const;
  readonly keyIndex = 0;
  constructor(
    public start: number,
    public end: number,
    public formStart: number,
    public formEnd: number,
    readonly endsWithComment: boolean,
    /** The run's number in the module (runs count from 0 in text order). */
    readonly run: number,
    /** Base's text and form bounds, and the run's start in base (to read its forms where asked). */
    readonly base: { text: Uint8Array; bounds: ArrayLike<number>; start: number },
  ) {
    super();
  }
  get keyBase(): string {
    return `run:${this.run}`;
  }
  get key(): string {
    return `run:${this.run}#0`;
  }
  get term(): Term | undefined {
    // The merge never reads a run (semantic checks that would need it give up on the reduction).
    throw new Error('internal: a run of unchanged elements has no single term');
  }
  /** The same run `delta` bytes further (a side whose change lies before it). */
  movedBy(delta: number): RunElement {
    return new RunElement(this.start + delta, this.end + delta, this.formStart + delta, this.formEnd + delta, this.endsWithComment, this.run, this.base);
  }
}

/**
 * True when some form of the run `e` satisfies `test`, reading only the forms that hold the UTF-8
 * bytes of `text` (so a run is read where a name occurs, not whole): the semantic pass's "does a
 * form of this side still mention NAME" (semantic-pass.ts).
 */
export function runHasForm(e: TextElement, text: string, test: (term: Term) => boolean): boolean {
  if (!(e instanceof RunElement)) throw new Error('internal: not a run of a reduced segmentation');
  const { text: src, bounds, start } = e.base;
  const end = start + (e.end - e.start);
  const hay = Buffer.from(src.buffer, src.byteOffset, src.length);
  const needle = nameEncoder.encode(text);
  for (let q = hay.indexOf(needle, start); q !== -1 && q + needle.length <= end;) {
    const f = formsEndingBy(bounds, q);
    if (f < bounds.length >> 1 && bounds[2 * f]! <= q) {
      // An occurrence inside form f: read it once, go on after it.
      if (test(readTerm(src.subarray(bounds[2 * f]!, bounds[2 * f + 1]!)))) return true;
      q = hay.indexOf(needle, bounds[2 * f + 1]!);
    } else q = hay.indexOf(needle, q + 1); // in a comment between forms
  }
  return false;
}

/** True when `e` is an opaque run of a reduced segmentation. */
export function isRun(e: TextElement): boolean {
  return e instanceof RunElement;
}

/** True when `e` and `f` are the same run of a reduced segmentation (on any side: the same bytes). */
export function sameRun(e: TextElement, f: TextElement): boolean {
  return e instanceof RunElement && f instanceof RunElement && e.run === f.run;
}
