#!/usr/bin/env node
// The `gcpatch` command: a thin launcher for the compiled CLI in dist/.
import { main } from '../dist/cli/main.js';

// A reader that stops early (`gcpatch fmt big.gc | head`) closes the pipe: end quietly.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error) => {
    if (error && error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
}

main(process.argv).then(
  (code) => {
    process.exitCode = code;
  },
  (error) => {
    process.stderr.write(`gcpatch: internal error: ${error && error.message ? error.message : String(error)}\n`);
    process.exitCode = 70;
  },
);
