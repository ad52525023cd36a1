/** Entry point of the GitHub Action bundle (`action/dist/index.js`): runs `main.ts` once. */
import { run } from './main.js';

// run() never rejects; the guard is for what it cannot catch (a failure while loading), so no stack trace reaches the log.
run().catch((error: unknown) => {
  process.stdout.write(`::error::gcpatch: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}\n`);
  process.exitCode = 1;
});
