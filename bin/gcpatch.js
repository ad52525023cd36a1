#!/usr/bin/env node
// The `gcpatch` command: a thin launcher for the compiled CLI in dist/.
import { main } from '../dist/cli/main.js';

main(process.argv).then(
  (code) => {
    process.exitCode = code;
  },
  (error) => {
    process.stderr.write(`gcpatch: internal error: ${error && error.message ? error.message : String(error)}\n`);
    process.exitCode = 70;
  },
);
