/**
 * docs/action.md "What each check means": one hostile store entry (≈200 KB nested 100,000 deep, whose canonical print
 * is quadratic) is the documented `audit/store-entry-unreadable` finding and the check goes on —
 * in the library, in the built CLI (`verify-pr`) and in the bundled Action (`npm run build`,
 * `npm run build:action` first). It used to stop everything with exit 10 `core/print/too-large`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkStoreEntry } from '../../src/verify-pr/evidence/store-evidence.js';
import { storeAddress } from '../../src/coreform/hash.js';
import { utf8 } from '../../src/util/bytes.js';
import { gcpatch } from '../helpers/cli.js';
import { commitAll, honestRenamePr, pullRequestEvent, runAction } from '../action/helpers.js';

const DEPTH = 100_000;
const deepVector = (): string => '['.repeat(DEPTH) + ']'.repeat(DEPTH);
const deepAcceptance = (): string =>
  `{:kind "genesis/acceptance-v0.2" :ok true :package {:name "shop" :version "0.1.0"} :obligations ${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}}`;

/** Adds `text` as a store entry of the package (named by its BLAKE3) and returns the address. */
function addEntry(pkg: string, text: string | Uint8Array): string {
  const bytes = typeof text === 'string' ? utf8(text) : text;
  const address = storeAddress(bytes);
  mkdirSync(join(pkg, '.genesis', 'store'), { recursive: true });
  writeFileSync(join(pkg, '.genesis', 'store', address), bytes);
  return address;
}

interface Finding {
  code: string;
  severity: string;
  subject?: string;
  message: string;
}

describe('a store entry that cannot be printed within the limits', () => {
  it.each([
    ['a 100,000-deep vector', deepVector],
    ['an acceptance with a 100,000-deep value', deepAcceptance],
  ])('%s: checkStoreEntry reports a problem and never throws', (_, make) => {
    const bytes = utf8(make());
    expect(bytes.length).toBeGreaterThan(190_000);
    const e = checkStoreEntry(storeAddress(bytes), 'f', bytes);
    expect(e).toMatchObject({ hashOk: true, term: undefined, canonical: false, kind: 'other' });
    expect(e.problem).toMatch(/cannot be printed within the limits/);
  });

  it('a PR adding it: verify-pr reports audit/store-entry-unreadable, goes on, and prints a report', () => {
    const { repo, pkg, head: honest } = honestRenamePr();
    const deep = addEntry(pkg, deepVector());
    const deepAcc = addEntry(pkg, deepAcceptance());
    const head = commitAll(repo, 'hostile entries');
    expect(head).not.toBe(honest);
    // JSON, default fail-on error: the finding is a warning (README), the rest verifies.
    const r = gcpatch(['verify-pr', '--base', 'main', '--head', head, '--dir', repo, '--json']);
    expect(r.stderr).not.toMatch(/core\/print\/too-large|at .*\.js:\d+/);
    expect(r.stdout.trim()).not.toBe('');
    const report = JSON.parse(r.stdout) as { ok: boolean; findings: Finding[]; packages: { replay: { status: string } }[] };
    const unreadable = report.findings.filter((f) => f.code === 'audit/store-entry-unreadable');
    expect(unreadable.map((f) => /entry ([0-9a-f]{12})/.exec(f.message)?.[1]).sort()).toEqual([deep.slice(0, 12), deepAcc.slice(0, 12)].sort());
    expect(unreadable.every((f) => f.severity === 'warning')).toBe(true);
    expect(report.packages[0]!.replay.status).toBe('reproduced'); // the check went on
    expect(r.status).toBe(0);
    expect(report.ok).toBe(true);
    // fail-on warning: the verification-failed exit code, with the text report.
    const strict = gcpatch(['verify-pr', '--base', 'main', '--head', head, '--dir', repo, '--fail-on', 'warning']);
    expect(strict.status).toBe(50);
    expect(strict.stdout).toContain('audit/store-entry-unreadable');
    expect(strict.stderr).not.toMatch(/core\/print\/too-large/);
  }, 120_000);

  it('with another broken entry in the same PR: exit 50 at the default fail-on, both reported', () => {
    const { repo, pkg } = honestRenamePr();
    const deep = addEntry(pkg, deepVector());
    writeFileSync(join(pkg, '.genesis', 'store', 'f'.repeat(64)), '{:kind "tampered"}');
    const head = commitAll(repo, 'hostile and tampered entries');
    const r = gcpatch(['verify-pr', '--base', 'main', '--head', head, '--dir', repo, '--json']);
    expect(r.status).toBe(50);
    const findings = (JSON.parse(r.stdout) as { findings: Finding[] }).findings;
    // The acceptance nobody re-ran is a notice (claimed, not re-run), never an error or a pass.
    expect(findings.filter((f) => f.code === 'audit/acceptance-not-rerun').every((f) => f.severity === 'notice')).toBe(true);
    const codes = findings
      .filter((f) => f.severity !== 'notice')
      .map((f) => f.code)
      .sort();
    expect(codes).toEqual(['audit/store-entry-unreadable', 'audit/store-hash-mismatch']);
    expect(deep).not.toBe('f'.repeat(64));
  }, 120_000);

  it('the bundled Action reports it as a warning annotation and writes its summary', () => {
    const { repo, pkg, base } = honestRenamePr();
    const deep = addEntry(pkg, deepVector());
    const head = commitAll(repo, 'hostile entry');
    const run = runAction(repo, { event: pullRequestEvent(base, head), inputs: { 'fail-on': 'warning' } });
    expect(run.stderr + run.stdout).not.toMatch(/core\/print\/too-large/);
    expect(run.status).toBe(1); // the step fails (fail-on warning)
    expect(run.report?.findings.filter((f) => f.severity !== 'notice').map((f) => f.code)).toEqual(['audit/store-entry-unreadable']);
    expect(run.annotations.some((a) => a.kind === 'warning' && a.message.includes('cannot be printed within the limits'))).toBe(true);
    expect(run.summary).toMatch(/cannot be printed within the limits/);
    expect(run.summary).toContain(deep.slice(0, 12));
  }, 120_000);
});
