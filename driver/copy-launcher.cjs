'use strict';
// Part of `npm run build:driver`: puts the launcher (driver/launch.cjs) next to the CommonJS bundle
// ncc wrote, and removes a stale `driver/dist/package.json` from the ESM bundle of gcpatch ≤ 0.1
// (its `"type": "module"` would make Node read the CommonJS bundle as ESM), and rewrites the bundle
// in ASCII. Deterministic output.
const fs = require('node:fs');
const path = require('node:path');

/**
 * `text` (the bundle's JavaScript) in ASCII: every other character as a `\uXXXX` escape (valid in
 * JS strings, templates, regular expressions, identifiers and comments alike), so the launcher
 * reads it as a one-byte string without decoding UTF-8. An escape right after a backslash would
 * read as an escaped backslash: such a text throws instead.
 */
function toAscii(text) {
  if (/\\[\u0080-\uffff]/.test(text)) throw new Error('a non-ASCII character follows a backslash; cannot write the bundle in ASCII');
  return text.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

if (require.main === module) {
  const dist = path.join(__dirname, 'dist');
  fs.copyFileSync(path.join(__dirname, 'launch.cjs'), path.join(dist, 'launch.cjs'));
  const bundle = path.join(dist, 'index.js');
  const text = fs.readFileSync(bundle, 'utf8');
  const ascii = toAscii(text);
  if (ascii !== text) fs.writeFileSync(bundle, ascii);
  fs.rmSync(path.join(dist, 'package.json'), { force: true });
  fs.rmSync(path.join(dist, '.cache'), { recursive: true, force: true });
}

module.exports = { toAscii };
