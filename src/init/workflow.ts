/**
 * The workflow file `gcpatch init` writes, `.github/workflows/gcpatch.yml` (docs/init.md "The
 * workflow"): the README's workflow with the Action pinned by a full commit SHA, and where that
 * reference comes from.
 */
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runGit } from '../git/exec.js';
import { ExitCode, GcError } from '../util/errors.js';
import { VERSION } from '../util/version.js';

/** Where the workflow goes, relative to the work tree top. */
export const WORKFLOW_PATH = '.github/workflows/gcpatch.yml';

/** The first line of the workflow init writes: undo removes only a file that still starts with it. */
export const WORKFLOW_MARK = '# Written by `gcpatch init` (docs/init.md). Edit freely; `gcpatch init --undo` removes it only while it is unchanged.';

/** An Action reference pinned by commit: `owner/name@<40 hex>`. */
export interface ActionRef {
  repository: string;
  commit: string;
  /** Where it came from: `--action`, or the gcpatch checkout this CLI runs from. */
  from: 'option' | 'checkout';
}

/**
 * Reads `--action OWNER/NAME@SHA`.
 * @throws GcError `usage/invalid-option` (exit 10) unless it is `owner/name@` and 40 lowercase hex digits.
 */
export function parseActionRef(text: string): ActionRef {
  const m = /^([A-Za-z0-9][A-Za-z0-9_.-]*\/[A-Za-z0-9_.-]+)@([0-9a-f]{40})$/.exec(text);
  if (!m) {
    throw new GcError(
      'usage/invalid-option',
      `--action ${JSON.stringify(text)} is not OWNER/NAME@<full 40-hex commit>: pin the Action by commit (docs/action.md "Pin the Action")`,
      {
        exitCode: ExitCode.invalidInput,
      },
    );
  }
  return { repository: m[1]!, commit: m[2]!, from: 'option' };
}

/**
 * The Action this CLI was built from, when it runs from a git checkout whose `origin` is on GitHub:
 * that repository at the checkout's commit. Undefined otherwise (an npm install, no remote).
 */
export function checkoutActionRef(): ActionRef | undefined {
  // src/init/*.ts and dist/init/*.js are two levels below the package root.
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
  const url = runGit(['remote', 'get-url', 'origin'], { cwd: root });
  const head = runGit(['rev-parse', '--verify', '-q', 'HEAD'], { cwd: root });
  if (url.status !== 0 || head.status !== 0) return undefined;
  const m = /github\.com[:/]([A-Za-z0-9][A-Za-z0-9_.-]*\/[A-Za-z0-9_.-]+?)(?:\.git)?\/?$/.exec(url.stdout.trim());
  const commit = head.stdout.trim();
  if (!m || !/^[0-9a-f]{40}$/.test(commit)) return undefined;
  return { repository: m[1]!, commit, from: 'checkout' };
}

/** The workflow's text for `ref` (the README's "Add the Action", pinned). */
export function workflowText(ref: ActionRef): string {
  return `${WORKFLOW_MARK}
name: gcpatch evidence
on:
  pull_request:

permissions:
  contents: read

jobs:
  verify:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v5
        with:
          fetch-depth: 0   # required: the base and head commits and the history between them
      - id: gcpatch
        uses: ${ref.repository}@${ref.commit}   # gcpatch v${VERSION}, pinned by commit
        with:
          packages: '**/package.toml'
          fail-on: error
          replay: true
      - if: always()
        uses: actions/upload-artifact@v4
        with:
          name: gcpatch-report
          path: \${{ steps.gcpatch.outputs.report-path }}
`;
}
