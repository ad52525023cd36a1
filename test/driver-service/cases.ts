/** The three sides the warm merge service's tests merge: adjacent one-line definitions, and a real conflict. */

// Adjacent one-line definitions: git's line merge conflicts, the structural merge does not.
export const BASE = '(def app/m::a 1)\n(def app/m::b 2)\n(def app/m::c 3)\n';
export const OURS = '(def app/m::a 10)\n(def app/m::b 2)\n(def app/m::c 3)\n';
export const THEIRS = '(def app/m::a 1)\n(def app/m::b 20)\n(def app/m::c 3)\n';
export const MERGED = '(def app/m::a 10)\n(def app/m::b 20)\n(def app/m::c 3)\n';
// Both sides change c: a real conflict, markers from the driver.
export const C_OURS = '(def app/m::a 1)\n(def app/m::b 2)\n(def app/m::c 30)\n';
export const C_THEIRS = '(def app/m::a 1)\n(def app/m::b 2)\n(def app/m::c 300)\n';
