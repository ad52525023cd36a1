/**
 * The elements the structural text merge aligns: a top-level form with its attached comments, or a
 * free-standing comment block, as spans of a module's LF-normalized text (0-based byte offsets).
 */
import { readTerm } from '../../coreform/read.js';
import { decodeSlice } from '../../util/bytes.js';
import type { Term } from '../../coreform/term.js';
import type { ByteKeyTable } from './keys.js';

/** One aligned unit of a module's text. */
export interface TextElement {
  /** `form`: a top-level form with its attached comments; `comment`: a free-standing comment block. */
  kind: 'form' | 'comment';
  /** Body span `[start, end)`: from the first attached comment (or the form) to the end of the form's last line's comment, or of the form. */
  start: number;
  end: number;
  /**
   * Alignment key, unique within the module: `def:<name>#<k>` for `(def NAME …)`,
   * `form:<canonical print>#<k>` for other forms ({@link contentKey}), `comment:<text>#<k>` for
   * comment blocks,
   * where `<k>` counts earlier elements with the same key.
   */
  key: string;
  /**
   * The key in parts, so that alignment compares without building `key`: `keyIsDef`
   * true: `keyBase` is the def NAME; false: `keyBase` is the key's text before `#<k>`. `keyIndex`
   * is `<k>` (-1 when the module was split without keys).
   */
  keyBase: string;
  keyIsDef: boolean;
  keyIndex: number;
  /** The form's own span `[formStart, formEnd)` (comment blocks: the body span). */
  formStart: number;
  formEnd: number;
  /** The defined name for `(def NAME …)` forms (decoded from the text when first asked for). */
  readonly defName: string | undefined;
  /** True for `(def NAME …)` forms (`defName` is then defined), without decoding the name. */
  isDef: boolean;
  /**
   * The name's UTF-8 bytes as `nameSrc[nameStart, nameEnd)` and their FNV-1a hash `nameHash`, so
   * that alignment matches definitions without decoding names; `nameSrc` undefined
   * for elements that are not definitions.
   */
  nameSrc: Uint8Array | undefined;
  nameStart: number;
  nameEnd: number;
  nameHash: number;
  /**
   * The element's index in the module it was segmented in. An element {@link segmentLike} reuses
   * in a side keeps its index in base, so `base.elements[e.position] === e` tells that it is base's
   * element (and aligns with it).
   */
  position: number;
  /** The form's term as read (not canonicalized); undefined for comment blocks. */
  term: Term | undefined;
  /** True when the body ends inside a `;` comment, so whatever follows must start on a new line. */
  endsWithComment: boolean;
}

/**
 * The separator before element `i` of `m` (the whitespace between element `i - 1` and element `i`;
 * for element 0 the lead, `[0, elements[0].start)`), as a span.
 */
export function separatorBefore(m: SegmentedModule, i: number): { start: number; end: number } {
  return { start: i === 0 ? 0 : m.elements[i - 1]!.end, end: m.elements[i]!.start };
}

/** A module split into elements (see the file comment). */
export interface SegmentedModule {
  /** The LF-normalized text the offsets refer to. */
  text: Uint8Array;
  elements: TextElement[];
  /** Whitespace after the last element, or the whole text when it has no element: `[trailStart, text.length)`. */
  trailStart: number;
  /**
   * Definition names (their bytes) → occurrences and the index of the first (`ByteKeyTable.first`);
   * undefined when split without keys.
   */
  defs?: ByteKeyTable | undefined;
  /** Other keys' texts → occurrences, and → the index of the first; undefined as `defs`. */
  others?: Map<string, number> | undefined;
  othersFirst?: Map<string, number> | undefined;
}

/**
 * A form element whose term is read from its bytes only when asked for: the merge compares forms
 * by their text and needs terms only for the keys of forms that are not `(def NAME …)`.
 */
export class FormElement implements TextElement {
  readonly kind = 'form' as const;
  /** The key text of a form that is not a definition (see `keyBase`). */
  otherKey = '';
  keyIsDef = false;
  keyIndex = -1;
  isDef = false;
  nameSrc: Uint8Array | undefined = undefined;
  nameStart = 0;
  nameEnd = 0;
  nameHash = 0;
  position = -1;
  endsWithComment = false;
  cached: Term | undefined;
  decoded: string | undefined;
  constructor(
    private readonly text: Uint8Array,
    public start: number,
    public end: number,
    public formStart: number,
    public formEnd: number,
  ) {}
  get term(): Term {
    return (this.cached ??= readTerm(this.text.subarray(this.formStart, this.formEnd)));
  }
  get defName(): string | undefined {
    if (!this.isDef) return undefined;
    return (this.decoded ??= decodeSlice(this.nameSrc!, this.nameStart, this.nameEnd));
  }
  get keyBase(): string {
    return this.keyIsDef ? this.defName! : this.otherKey;
  }
  get key(): string {
    return fullKey(this);
  }
  /**
   * A copy of this element for the same bytes at `delta` bytes further in `text` (a side of a merge
   * whose base this element belongs to: {@link segmentLike}), with key index `keyIndex`.
   */
  movedTo(text: Uint8Array, delta: number, baseText: Uint8Array, keyIndex: number): FormElement {
    const el = new FormElement(text, this.start + delta, this.end + delta, this.formStart + delta, this.formEnd + delta);
    el.otherKey = this.otherKey;
    el.keyIsDef = this.keyIsDef;
    el.keyIndex = keyIndex;
    el.isDef = this.isDef;
    el.nameHash = this.nameHash;
    el.endsWithComment = this.endsWithComment;
    el.cached = this.cached; // the same bytes read as the same (immutable) term
    el.decoded = this.decoded;
    if (this.nameSrc === baseText) {
      el.nameSrc = text;
      el.nameStart = this.nameStart + delta;
      el.nameEnd = this.nameEnd + delta;
    } else {
      el.nameSrc = this.nameSrc;
      el.nameStart = this.nameStart;
      el.nameEnd = this.nameEnd;
    }
    return el;
  }
}

/** The fields of an element that defines no name: nothing to match by name, no name bytes. */
export abstract class NotADefinition {
  readonly keyIsDef = false;
  readonly defName = undefined;
  readonly isDef = false;
  readonly nameSrc = undefined;
  readonly nameStart = 0;
  readonly nameEnd = 0;
  readonly nameHash = 0;
  position = -1;
}

/** A free-standing comment block. */
export class CommentElement extends NotADefinition implements TextElement {
  readonly kind = 'comment' as const;
  keyBase = '';
  keyIndex = -1;
  readonly term = undefined;
  readonly endsWithComment = true;
  constructor(
    public start: number,
    public end: number,
    public formStart: number,
    public formEnd: number,
  ) {
    super();
  }
  get key(): string {
    return fullKey(this);
  }
  /** A copy `delta` bytes further, with key index `keyIndex` (see `FormElement.movedTo`). */
  movedTo(delta: number, keyIndex: number): CommentElement {
    const el = new CommentElement(this.start + delta, this.end + delta, this.formStart + delta, this.formEnd + delta);
    el.keyBase = this.keyBase;
    el.keyIndex = keyIndex;
    return el;
  }
}

/** `key` from its parts (`''` without keys). */
function fullKey(e: { keyBase: string; keyIsDef: boolean; keyIndex: number }): string {
  if (e.keyIndex < 0) return '';
  return `${e.keyIsDef ? `def:${e.keyBase}` : e.keyBase}#${e.keyIndex}`;
}
