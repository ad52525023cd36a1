/** The byte classes and delimiter codes of the CoreForm grammar, shared by the reader and the fast scans. */

// Character classes.
export const C_WS = 1;
export const C_DELIM = 2;
export const C_DIGIT = 4;
export const CLASS = new Uint8Array(256);
for (const c of [0x20, 0x09, 0x0a, 0x0d]) CLASS[c] = C_WS | C_DELIM;
for (const c of '()[]{}\'";') CLASS[c.charCodeAt(0)] = C_DELIM;
for (let c = 0x30; c <= 0x39; c++) CLASS[c] = C_DIGIT;

// Hex digit values, 255 = not a hex digit.
export const HEX = new Uint8Array(256).fill(255);
for (let i = 0; i < 10; i++) HEX[0x30 + i] = i;
for (let i = 0; i < 6; i++) {
  HEX[0x41 + i] = 10 + i;
  HEX[0x61 + i] = 10 + i;
}

export const OPEN_LIST = 0x28; // (
export const CLOSE_LIST = 0x29; // )
export const OPEN_VEC = 0x5b; // [
export const CLOSE_VEC = 0x5d; // ]
export const OPEN_MAP = 0x7b; // {
export const CLOSE_MAP = 0x7d; // }
export const QUOTE = 0x27; // '
export const DQUOTE = 0x22; // "
export const BACKSLASH = 0x5c;
export const SEMI = 0x3b;
export const LF = 0x0a;
export const MINUS = 0x2d;
export const LOWER_B = 0x62;

/** Container frame kinds on the reader's explicit stack. */
export const F_LIST = 0;
export const F_VEC = 1;
export const F_MAP = 2;
export const F_QUOTE = 3;

// Byte classes of scanValid's dispatch (scanValid spells them as literals: in the interpreter,
// where a cold process runs it first, a module constant costs a load per use). The opening
// delimiters come first, numbered as the frame kinds F_LIST, F_VEC, F_MAP, F_QUOTE.
//   0 (   1 [   2 {   3 '   4 )   5 ]   6 }   7 space/tab/LF/CR   8 ;   9 "   10 digit   11 -
//   12 b   13 any other byte (a symbol constituent)   [14: `b"`, assigned in the loop]
export const SCAN = new Uint8Array(256).fill(13);
SCAN[OPEN_LIST] = F_LIST;
SCAN[OPEN_VEC] = F_VEC;
SCAN[OPEN_MAP] = F_MAP;
SCAN[QUOTE] = F_QUOTE;
SCAN[CLOSE_LIST] = 4;
SCAN[CLOSE_VEC] = 5;
SCAN[CLOSE_MAP] = 6;
for (const c of [0x20, 0x09, 0x0a, 0x0d]) SCAN[c] = 7;
SCAN[SEMI] = 8;
SCAN[DQUOTE] = 9;
for (let c = 0x30; c <= 0x39; c++) SCAN[c] = 10;
SCAN[MINUS] = 11;
SCAN[LOWER_B] = 12;
