/**
 * A unified-style diff of one applied file, built from the applied changes (no general diff
 * algorithm needed: the changed regions are known). Used by `gcpatch edit-plan apply --diff`.
 */
import type { AppliedChange } from './apply.js';
import { lastStartAtOrBefore } from './positions.js';

/** Lines of `text`, each with its `\n` (the last one may lack it); no entry for the empty tail. */
function splitLines(text: string): { lines: string[]; starts: number[] } {
  const lines: string[] = [];
  const starts: number[] = [];
  let start = 0;
  while (start < text.length) {
    const newline = text.indexOf('\n', start);
    const end = newline === -1 ? text.length : newline + 1;
    starts.push(start);
    lines.push(text.slice(start, end));
    start = end;
  }
  return { lines, starts };
}

interface Block {
  oldStart: number;
  oldEnd: number;
  newStart: number;
  newEnd: number;
}

/**
 * Renders a unified diff (`--- a/path`, `+++ b/path`, `@@ -l,n +l,n @@` hunks with `context`
 * unchanged lines around changes; `\ No newline at end of file` where a side lacks a final newline).
 * @param path the plan path shown in the headers.
 * @param oldText, newText the source and output texts.
 * @param changes the applied changes in sorted order (`ApplyResult.changes`, UTF-16 offsets).
 * @param context unchanged lines shown around each change (default 3).
 * @returns the diff text, or `''` when the texts are equal.
 */
export function unifiedDiff(path: string, oldText: string, newText: string, changes: readonly AppliedChange[], context = 3): string {
  if (oldText === newText) return '';
  const before = splitLines(oldText);
  const after = splitLines(newText);
  const oldLine = (offset: number) => lineIndex(before, oldText.length, offset);
  const newLine = (offset: number) => lineIndex(after, newText.length, offset);

  // Blocks of lines touched by changes; changes on the same or adjacent lines join one block.
  const blocks: Block[] = [];
  for (const change of changes) {
    const block: Block = {
      oldStart: oldLine(change.sourceStart),
      oldEnd: Math.min(before.lines.length, oldLine(change.sourceEnd) + 1),
      newStart: newLine(change.outputStart),
      newEnd: Math.min(after.lines.length, newLine(change.outputEnd) + 1),
    };
    const last = blocks[blocks.length - 1];
    if (last !== undefined && block.oldStart <= last.oldEnd) {
      last.oldEnd = Math.max(last.oldEnd, block.oldEnd);
      last.newEnd = Math.max(last.newEnd, block.newEnd);
    } else blocks.push(block);
  }
  // Trim lines that are equal on both sides at the edges of each block.
  const trimmed = blocks.filter((b) => {
    while (b.oldStart < b.oldEnd && b.newStart < b.newEnd && before.lines[b.oldStart] === after.lines[b.newStart]) {
      b.oldStart++;
      b.newStart++;
    }
    while (b.oldStart < b.oldEnd && b.newStart < b.newEnd && before.lines[b.oldEnd - 1] === after.lines[b.newEnd - 1]) {
      b.oldEnd--;
      b.newEnd--;
    }
    return b.oldStart < b.oldEnd || b.newStart < b.newEnd;
  });

  let out = `--- a/${path}\n+++ b/${path}\n`;
  let i = 0;
  while (i < trimmed.length) {
    let j = i;
    while (j + 1 < trimmed.length && trimmed[j + 1]!.oldStart - trimmed[j]!.oldEnd <= 2 * context) j++;
    const first = trimmed[i]!;
    const last = trimmed[j]!;
    const oldFrom = Math.max(0, first.oldStart - context);
    const newFrom = first.newStart - (first.oldStart - oldFrom);
    const oldTo = Math.min(before.lines.length, last.oldEnd + context);
    const newTo = last.newEnd + (oldTo - last.oldEnd);
    const range = (from: number, to: number) => `${to - from === 0 ? from : from + 1},${to - from}`;
    out += `@@ -${range(oldFrom, oldTo)} +${range(newFrom, newTo)} @@\n`;
    let cursor = oldFrom;
    for (let k = i; k <= j; k++) {
      const b = trimmed[k]!;
      for (; cursor < b.oldStart; cursor++) out += line(' ', before.lines[cursor]!);
      for (let l = b.oldStart; l < b.oldEnd; l++) out += line('-', before.lines[l]!);
      for (let l = b.newStart; l < b.newEnd; l++) out += line('+', after.lines[l]!);
      cursor = b.oldEnd;
    }
    for (; cursor < oldTo; cursor++) out += line(' ', before.lines[cursor]!);
    i = j + 1;
  }
  return out;
}

/** Index of the line holding UTF-16 `offset`; `lines.length` at the end of a text ending in `\n`. */
function lineIndex(split: { lines: string[]; starts: number[] }, length: number, offset: number): number {
  const { lines, starts } = split;
  if (lines.length === 0) return 0;
  if (offset >= length) return lines[lines.length - 1]!.endsWith('\n') ? lines.length : lines.length - 1;
  return lastStartAtOrBefore(starts, offset);
}

function line(prefix: string, text: string): string {
  return text.endsWith('\n') ? prefix + text : `${prefix}${text}\n\\ No newline at end of file\n`;
}
