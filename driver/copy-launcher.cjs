'use strict';
// Part of `npm run build:driver`: puts the launcher (driver/launch.cjs) next to the CommonJS bundle
// ncc wrote, and removes a stale `driver/dist/package.json` from the ESM bundle of gcpatch ≤ 0.1
// (its `"type": "module"` would make Node read the CommonJS bundle as ESM). Deterministic output.
const fs = require('node:fs');
const path = require('node:path');
const dist = path.join(__dirname, 'dist');
fs.copyFileSync(path.join(__dirname, 'launch.cjs'), path.join(dist, 'launch.cjs'));
fs.rmSync(path.join(dist, 'package.json'), { force: true });
fs.rmSync(path.join(dist, '.cache'), { recursive: true, force: true });
