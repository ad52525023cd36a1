// comparePolicies: which capability policy changes widen (docs/reference/caps-policy.md, docs/security.md).
import { describe, expect, it } from 'vitest';
import { comparePolicies } from '../../src/verify-pr/checks/caps-policy.js';

const verdict = (a: string | undefined, b: string | undefined): 'same' | 'widened' | 'changed' => {
  const c = comparePolicies(a, b);
  return c.widened.length > 0 ? 'widened' : c.changed.length > 0 ? 'changed' : 'same';
};

describe('comparePolicies', () => {
  it.each([
    ['equal text', 'allow = []\n', 'allow = []\n', 'same'],
    ['equal TOML, other spelling', 'allow = ["a/b::c"]\n', "allow = [ 'a/b::c' ]  # same\n", 'same'],
    ['an op allowed', 'allow = []\n', 'allow = ["io/net::http-request"]\n', 'widened'],
    ['an op removed', 'allow = ["io/fs::read", "sys/time::now"]\n', 'allow = ["sys/time::now"]\n', 'changed'],
    ['an op replaced', 'allow = ["io/fs::read"]\n', 'allow = ["io/fs::write"]\n', 'widened'],
    ['no policy, then one allowing an op', undefined, 'allow = ["io/fs::read"]\n', 'widened'],
    ['no policy, then an empty one', undefined, 'allow = []\n', 'same'],
    ['a policy removed', 'allow = ["io/fs::read"]\n', undefined, 'changed'],
    ['a budget raised', 'allow = []\n[runtime]\nmax_effect_ops = 10\n', 'allow = []\n[runtime]\nmax_effect_ops = 20\n', 'widened'],
    ['a budget lowered', 'allow = []\n[runtime]\nmax_effect_ops = 20\n', 'allow = []\n[runtime]\nmax_effect_ops = 10\n', 'changed'],
    ['a budget removed', 'allow = []\n[runtime]\nmax_effect_ops = 20\n', 'allow = []\n', 'widened'],
    ['a budget added', 'allow = []\n', 'allow = []\n[task]\nmax_workers = 2\n', 'changed'],
    // red-team round 6: an absent default_workers is the machine's parallelism (at least 1), not unbounded
    ['default_workers added above 1', 'allow = []\n', 'allow = []\n[task]\ndefault_workers = 64\n', 'widened'],
    ['default_workers added at 1', 'allow = []\n', 'allow = []\n[task]\ndefault_workers = 1\n', 'changed'],
    ['default_workers removed', 'allow = []\n[task]\ndefault_workers = 2\n', 'allow = []\n', 'widened'],
    ['default_workers lowered', 'allow = []\n[task]\ndefault_workers = 4\n', 'allow = []\n[task]\ndefault_workers = 2\n', 'changed'],
    ['default_workers set to 0 (the loader refuses it)', 'allow = []\n[task]\ndefault_workers = 4\n', 'allow = []\n[task]\ndefault_workers = 0\n', 'widened'],
    ['allow_http turned on', 'allow = []\n[store]\nallow_http = false\n', 'allow = []\n[store]\nallow_http = true\n', 'widened'],
    ['allow_http turned off', 'allow = []\n[store]\nallow_http = true\n', 'allow = []\n[store]\nallow_http = false\n', 'changed'],
    ['a remote allowlist entry added', 'allow = []\n[store]\nremote_allow = []\n', 'allow = []\n[store]\nremote_allow = ["https://x/v1/"]\n', 'widened'],
    [
      'a sandbox base_dir changed',
      'allow = ["io/fs::read"]\n["io/fs::read"]\nbase_dir = "data"\n',
      'allow = ["io/fs::read"]\n["io/fs::read"]\nbase_dir = "/"\n',
      'widened',
    ],
    ['a sandbox base_dir removed', 'allow = ["io/fs::read"]\n["io/fs::read"]\nbase_dir = "data"\n', 'allow = ["io/fs::read"]\n', 'widened'],
    ['a new version that does not parse', 'allow = []\n', 'allow = [\n', 'widened'],
    ['an old version that did not parse, then an empty one', 'allow = [\n', 'allow = []\n', 'same'],
    // effective grants (docs/reference/caps-policy.md "Effective grants")
    ['an empty [op."X"] table added (allow defaults to true)', 'allow = []\n', 'allow = []\n[op."io/net::http-request"]\n', 'widened'],
    ['an [op."X"] table with a timeout added', 'allow = []\n', 'allow = []\n[op."io/net::http-request"]\ntimeout_ms = 5\n', 'widened'],
    ['[op."X"] allow = "false" (not a boolean: still granted)', 'allow = []\n', 'allow = []\n[op."io/fs::read"]\nallow = "false"\n', 'widened'],
    ['[op."X"] allow = false removes an allowed op', 'allow = ["io/fs::read"]\n', 'allow = ["io/fs::read"]\n[op."io/fs::read"]\nallow = false\n', 'changed'],
    ['an allowed op spelled as a table instead', 'allow = ["io/fs::read"]\n', 'allow = []\n[op."io/fs::read"]\n', 'same'],
    ['an op timeout lowered', 'allow = []\n[op."io/fs::read"]\ntimeout_ms = 50\n', 'allow = []\n[op."io/fs::read"]\ntimeout_ms = 10\n', 'changed'],
    ['an op timeout removed (no timeout)', 'allow = []\n[op."io/fs::read"]\ntimeout_ms = 50\n', 'allow = []\n[op."io/fs::read"]\n', 'widened'],
    // red-team round 5: the runner reads timeout_ms.filter(|ms| *ms > 0), so 0 (or a negative one, clamped to 0) is no timeout
    [
      'an op timeout lowered to 0 (no timeout where it is used)',
      'allow = []\n[op."io/fs::read"]\ntimeout_ms = 50\n',
      'allow = []\n[op."io/fs::read"]\ntimeout_ms = 0\n',
      'widened',
    ],
    [
      'an op timeout set negative (clamped to 0: no timeout)',
      'allow = []\n[op."io/fs::read"]\ntimeout_ms = 50\n',
      'allow = []\n[op."io/fs::read"]\ntimeout_ms = -1\n',
      'widened',
    ],
    [
      'an op timeout of 0 replaced by a real one',
      'allow = []\n[op."io/fs::read"]\ntimeout_ms = 0\n',
      'allow = []\n[op."io/fs::read"]\ntimeout_ms = 10\n',
      'changed',
    ],
    ['create_dirs turned on', 'allow = []\n[op."io/fs::write"]\n', 'allow = []\n[op."io/fs::write"]\ncreate_dirs = true\n', 'widened'],
    [
      'an op field gcpatch does not know, changed',
      'allow = []\n[op."io/net::http-request"]\nurl_allow = ["https://a/"]\n',
      'allow = []\n[op."io/net::http-request"]\nurl_allow = []\n',
      'widened',
    ],
    [
      'log.inline_max_bytes set to 0 (the loader reads it as unset)',
      'allow = []\n[log]\ninline_max_bytes = 100\n',
      'allow = []\n[log]\ninline_max_bytes = 0\n',
      'widened',
    ],
    ['a field gcpatch does not know in [runtime]', 'allow = []\n', 'allow = []\n[runtime]\nmystery = 1\n', 'widened'],
    ['an unknown top-level key (the loader refuses the policy)', 'allow = []\n', 'allow = []\nextra = 1\n', 'widened'],
    ['version changed (read and ignored)', 'allow = []\n', 'version = 2\nallow = []\n', 'changed'],
  ] as const)('%s: %s', (_name, a, b, expected) => {
    expect(verdict(a, b)).toBe(expected);
  });

  it('describes each widening', () => {
    const c = comparePolicies('allow = ["sys/time::now"]\n', 'allow = ["sys/time::now", "io/fs::write"]\n[runtime]\nmax_effect_ops = 5\n');
    expect(c.widened).toEqual(['allow + "io/fs::write"']);
    expect(c.changed).toEqual(['runtime.max_effect_ops: (absent) → 5']);
  });
});
