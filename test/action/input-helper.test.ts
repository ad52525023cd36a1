import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { getSettings } from '../../action/input-helper.js';
import { tempDir } from './helpers.js';
import { errorOf } from '../patch/helpers.js';

const saved = { ...process.env };

function withInputs(inputs: Record<string, string>): void {
  for (const k of Object.keys(process.env)) if (k.startsWith('INPUT_')) delete process.env[k];
  for (const [k, v] of Object.entries(inputs)) process.env[`INPUT_${k.toUpperCase()}`] = v;
}

function event(payload: unknown): string {
  const file = join(tempDir(), 'event.json');
  writeFileSync(file, JSON.stringify(payload));
  return file;
}

afterEach(() => {
  for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
  Object.assign(process.env, saved);
});

describe('input helper', () => {
  const base = 'a'.repeat(40);
  const head = 'b'.repeat(40);

  it('takes base and head from the pull_request payload and applies the defaults', () => {
    withInputs({ packages: '**/package.toml', 'fail-on': 'error', replay: 'true', 'base-ref': '', 'head-ref': '', 'obligation-runner': '' });
    const s = getSettings({
      GITHUB_EVENT_PATH: event({ pull_request: { number: 8, base: { sha: base }, head: { sha: head } } }),
      GITHUB_EVENT_NAME: 'pull_request',
      GITHUB_WORKSPACE: '/w',
      RUNNER_TEMP: '/rt',
    });
    expect(s).toEqual({
      audit: {
        dir: '/w',
        base,
        head,
        packages: ['**/package.toml'],
        failOn: 'error',
        outsidePackage: 'notice',
        replay: true,
        obligationRunner: undefined,
        shard: undefined,
      },
      baseSource: 'pull_request.base.sha',
      headSource: 'pull_request.head.sha',
      reportPath: '/rt/gcpatch-pr-audit.json',
      eventName: 'pull_request',
      pullRequest: 8,
    });
  });

  it('lets inputs override the event, and reads push before/after', () => {
    withInputs({ 'base-ref': 'main', packages: 'a/package.toml\nb/package.toml', 'fail-on': 'warning', replay: 'false', 'obligation-runner': 'make test' });
    const s = getSettings({ GITHUB_EVENT_PATH: event({ before: base, after: head }), GITHUB_WORKSPACE: '/w' });
    expect(s).toMatchObject({
      audit: { base: 'main', head, packages: ['a/package.toml', 'b/package.toml'], failOn: 'warning', replay: false, obligationRunner: 'make test' },
      baseSource: 'input base-ref',
      headSource: 'push after',
      reportPath: '/w/gcpatch-pr-audit.json',
    });
  });

  it('rejects a bad fail-on, a non-boolean replay and a missing base', () => {
    withInputs({ 'fail-on': 'never' });
    expect(() => getSettings({})).toThrow(/fail-on must be "error" or "warning"/);
    expect(errorOf(() => getSettings({}))).toMatchObject({ code: 'action/invalid-input', exitCode: 10, details: { input: 'fail-on' } });
    withInputs({ replay: 'yes' });
    expect(() => getSettings({})).toThrow(/replay/);
    expect(errorOf(() => getSettings({}))).toMatchObject({ code: 'action/invalid-input', details: { input: 'replay' } });
    withInputs({ shard: 'half' });
    expect(errorOf(() => getSettings({ GITHUB_EVENT_PATH: event({ before: 'a'.repeat(40) }) }))).toMatchObject({
      code: 'action/invalid-input',
      exitCode: 10,
      details: { input: 'shard' },
    });
    withInputs({});
    expect(errorOf(() => getSettings({ GITHUB_EVENT_PATH: '/nonexistent/event.json' }))).toMatchObject({ code: 'action/event-unreadable', exitCode: 10 });
    expect(() => getSettings({ GITHUB_EVENT_NAME: 'workflow_dispatch', GITHUB_EVENT_PATH: event({ before: '0'.repeat(40) }) })).toThrow(
      /no base revision: the workflow_dispatch event is not a pull_request.*set the base-ref input/,
    );
  });
});
