// comparePolicies: which capability policy changes widen (docs/reference/caps-policy.md, docs/security.md).
import { describe, expect, it } from 'vitest';
import { comparePolicies } from '../../src/verify-pr/caps-policy.js';

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
    ['allow_http turned on', 'allow = []\n[store]\nallow_http = false\n', 'allow = []\n[store]\nallow_http = true\n', 'widened'],
    ['allow_http turned off', 'allow = []\n[store]\nallow_http = true\n', 'allow = []\n[store]\nallow_http = false\n', 'changed'],
    ['a remote allowlist entry added', 'allow = []\n[store]\nremote_allow = []\n', 'allow = []\n[store]\nremote_allow = ["https://x/v1/"]\n', 'widened'],
    ['a sandbox base_dir changed', 'allow = ["io/fs::read"]\n["io/fs::read"]\nbase_dir = "data"\n', 'allow = ["io/fs::read"]\n["io/fs::read"]\nbase_dir = "/"\n', 'widened'],
    ['a sandbox base_dir removed', 'allow = ["io/fs::read"]\n["io/fs::read"]\nbase_dir = "data"\n', 'allow = ["io/fs::read"]\n', 'widened'],
    ['a new version that does not parse', 'allow = []\n', 'allow = [\n', 'widened'],
    ['an old version that did not parse, then an empty one', 'allow = [\n', 'allow = []\n', 'same'],
  ] as const)('%s: %s', (_name, a, b, expected) => {
    expect(verdict(a, b)).toBe(expected);
  });

  it('describes each widening', () => {
    const c = comparePolicies('allow = ["sys/time::now"]\n', 'allow = ["sys/time::now", "io/fs::write"]\n[runtime]\nmax_effect_ops = 5\n');
    expect(c.widened).toEqual(['allow + "io/fs::write"']);
    expect(c.changed).toEqual(['runtime.max_effect_ops: (absent) → 5']);
  });
});
