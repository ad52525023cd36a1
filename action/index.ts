/** Entry point of the GitHub Action bundle (`action/dist/index.js`): runs `main.ts` once. */
import { run } from './main.js';

void run();
