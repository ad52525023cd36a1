/**
 * Turns the Action's inputs and the GitHub context (event payload, environment) into one typed
 * settings object, up front (the actions/checkout `input-helper` pattern). Nothing else in the
 * Action reads inputs or environment variables.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import * as core from '@actions/core';
import type { FailOn } from '../src/verify-pr/report/findings.js';
import type { AuditOptions } from '../src/verify-pr/verify-pr.js';
import { parseGlobList } from '../src/verify-pr/walk/glob.js';
import { GcError } from '../src/util/errors.js';

/** Everything the Action needs to run, resolved from inputs, the event payload and the environment. */
export interface ActionSettings {
  /**
   * What to audit, as `auditPullRequest` (src/verify-pr/verify-pr.ts) takes it: `dir` is the checkout (GITHUB_WORKSPACE,
   * else the current directory); `base` is compared through its merge base with `head`.
   */
  audit: AuditOptions & { dir: string; packages: string[]; failOn: FailOn; replay: boolean };
  /** Where `base`/`head` came from, for the summary (`input`, `pull_request`, `push`, `GITHUB_SHA`). */
  baseSource: string;
  headSource: string;
  /** Where the JSON report is written (`RUNNER_TEMP`, else the workspace). */
  reportPath: string;
  eventName: string;
  /** The pull request number, when the event is a pull request. */
  pullRequest: number | undefined;
}

/** The subset of a webhook payload the Action reads. */
interface EventPayload {
  pull_request?: { number?: number; base?: { sha?: string }; head?: { sha?: string } };
  before?: string;
  after?: string;
}

const ZERO_SHA = /^0{40}$/;

function readEvent(path: string | undefined): EventPayload {
  if (path === undefined || path === '') return {};
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as EventPayload;
  } catch (error) {
    throw new GcError(
      'action/event-unreadable',
      `cannot read the event payload GITHUB_EVENT_PATH=${path}: ${error instanceof Error ? error.message : String(error)}`,
      {
        location: { file: path },
        cause: error,
      },
    );
  }
}

/** The typed refusal of one input: `action/invalid-input` (exit 10), `details.input` naming it. */
function invalidInput(input: string, message: string): GcError {
  return new GcError('action/invalid-input', message, { details: { input } });
}

/** The boolean input `name` (YAML 1.2 core schema: true/True/TRUE, false/False/FALSE), else `action/invalid-input`. */
function booleanInput(name: string): boolean {
  try {
    return core.getBooleanInput(name);
  } catch (error) {
    throw invalidInput(name, error instanceof Error ? error.message : String(error));
  }
}

/**
 * A revision of one side: the `<side>-ref` input, else the pull request's `<side>.sha`, else the
 * push's `before` (base) or `after` (head) unless it is the all-zero sha; `undefined` when none is
 * set. `source` names where it came from, for the summary.
 */
function eventRevision(side: 'base' | 'head', event: EventPayload): { rev: string; source: string } | undefined {
  const input = core.getInput(`${side}-ref`);
  if (input !== '') return { rev: input, source: `input ${side}-ref` };
  const pr = event.pull_request?.[side]?.sha;
  if (pr) return { rev: pr, source: `pull_request.${side}.sha` };
  const push = side === 'base' ? 'before' : 'after';
  const pushed = event[push];
  if (pushed && !ZERO_SHA.test(pushed)) return { rev: pushed, source: `push ${push}` };
  return undefined;
}

/**
 * Reads and validates every input.
 * @param env the environment (default `process.env`), for the GitHub context variables.
 * @throws GcError `action/invalid-input` (exit 10, `details.input` names the input to fix): bad
 *   `fail-on`, non-boolean `replay`, bad `shard`, or no base revision (neither `base-ref` nor a
 *   pull_request/push event: `details.input` is `base-ref`); `action/event-unreadable` (exit 10)
 *   when GITHUB_EVENT_PATH names a file that is not readable JSON.
 */
export function getSettings(env: NodeJS.ProcessEnv = process.env): ActionSettings {
  const event = readEvent(env.GITHUB_EVENT_PATH);
  const eventName = env.GITHUB_EVENT_NAME ?? '';
  const workspace = resolve(env.GITHUB_WORKSPACE || process.cwd());

  const failOn = core.getInput('fail-on') || 'error';
  if (failOn !== 'error' && failOn !== 'warning') throw invalidInput('fail-on', `input fail-on must be "error" or "warning", got ${JSON.stringify(failOn)}`);
  const replay = core.getInput('replay') === '' ? true : booleanInput('replay');
  const outsidePackage = core.getInput('outside-package') || 'notice';
  if (outsidePackage !== 'notice' && outsidePackage !== 'warning')
    throw invalidInput('outside-package', `input outside-package must be "notice" or "warning", got ${JSON.stringify(outsidePackage)}`);

  const base = eventRevision('base', event);
  if (base === undefined) {
    throw invalidInput(
      'base-ref',
      `no base revision: the ${eventName || 'current'} event is not a pull_request (or a push with a previous commit); set the base-ref input`,
    );
  }
  const head = eventRevision('head', event) ?? { rev: env.GITHUB_SHA || 'HEAD', source: env.GITHUB_SHA ? 'GITHUB_SHA' : 'HEAD' };
  const runner = core.getInput('obligation-runner');
  const shard = core.getInput('shard').trim();
  if (shard !== '' && !/^\d+\s*\/\s*\d+$/.test(shard)) throw invalidInput('shard', `input shard must be i/n (e.g. 2/4), got ${JSON.stringify(shard)}`);
  const reportDir = env.RUNNER_TEMP || workspace;
  return {
    audit: {
      dir: workspace,
      base: base.rev,
      head: head.rev,
      packages: parseGlobList(core.getInput('packages')),
      failOn,
      outsidePackage,
      replay,
      obligationRunner: runner === '' ? undefined : runner,
      shard: shard === '' ? undefined : shard,
    },
    baseSource: base.source,
    headSource: head.source,
    reportPath: join(reportDir, 'gcpatch-pr-audit.json'),
    eventName,
    pullRequest: event.pull_request?.number,
  };
}
