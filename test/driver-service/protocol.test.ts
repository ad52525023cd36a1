// The hand-over's pieces without processes: request files (as the line writes them), replies, and
// the line's service part (sh syntax, git's %-escaping, the variables it forwards).
import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { serviceHandOverPart, serviceStartPart } from '../../src/driver-service/line.js';
import { FORWARDED_ENV, PROTOCOL, formatReply, formatRequest, parseRequest, type ServiceRequest } from '../../src/driver-service/protocol.js';
import { driverCommand, expandDriverLine, serviceLineOptions, shQuote } from '../../src/driver-setup/line.js';

const field = fc.string({ unit: fc.constantFrom('a', 'é', ' ', "'", '"', '$', '%', '\n', '=', '\\', '`') });

describe('request files', () => {
  it("round-trip: what formatRequest writes (the line's printf fields) parses back to the same request", () => {
    fc.assert(
      fc.property(
        fc.record({
          version: field,
          cwd: field,
          manifest: fc.boolean(),
          args: fc.array(field, { minLength: 8, maxLength: 8 }),
          env: fc.array(fc.option(field, { nil: undefined }), { minLength: FORWARDED_ENV.length, maxLength: FORWARDED_ENV.length }),
        }),
        ({ version, cwd, manifest, args, env }) => {
          const req: ServiceRequest = {
            version,
            cwd,
            args: [...(manifest ? ['--manifest'] : []), ...args],
            env: Object.fromEntries(FORWARDED_ENV.map((n, i) => [n, env[i]])),
          };
          expect(parseRequest(formatRequest(req))).toEqual(req);
        },
      ),
    );
  });

  it('refuses another protocol, a cut file, a wrong mode or a garbled variable', () => {
    const req: ServiceRequest = { version: '0.1.0', cwd: '/r', args: ['O', 'A', 'B', '7', 'm.gc', 'base', 'ours', 'theirs'], env: {} };
    const good = Buffer.from(formatRequest(req));
    expect(parseRequest(good)).toBeDefined();
    expect(parseRequest(good.subarray(0, good.length - 1))).toBeUndefined();
    expect(parseRequest(Buffer.from(good.toString().replace(PROTOCOL, 'gcpatch-service-0')))).toBeUndefined();
    expect(parseRequest(Buffer.from(good.toString().replace('\0gc\0', '\0xx\0')))).toBeUndefined();
    expect(parseRequest(Buffer.from(good.toString().replace('\0HOME\0', '\0HOMER\0')))).toBeUndefined();
  });

  it("reads what the line's own printf writes, with unset, empty and odd variables", () => {
    const part = serviceHandOverPart({ folderExpression: '"$K"', version: '0.1.0' }, 'gc').join('');
    const printf = /printf '%s\\0' .*? >"\$q"/.exec(part)![0].replace('>"$q"', '');
    const script = `p=m.gc b=base o=ours t=theirs a=.merge_file_A; ${printf.replace('%O', '.merge_file_O').replace('%B', '.merge_file_B').replace('%L', '9')}`;
    const r = spawnSync('sh', ['-c', `cd /tmp && v=0.1.0 ${script}`], {
      env: { PATH: process.env.PATH!, HOME: "/h o'me", GIT_DIR: '', GCPATCH_DRIVER: '0', GIT_CONFIG_PARAMETERS: "'merge.conflictStyle=diff3'" },
    });
    expect(parseRequest(r.stdout)).toEqual({
      version: '0.1.0',
      cwd: '/tmp',
      args: ['.merge_file_O', '.merge_file_A', '.merge_file_B', '9', 'm.gc', 'base', 'ours', 'theirs'],
      env: expect.objectContaining({
        HOME: "/h o'me",
        GIT_DIR: '',
        GCPATCH_DRIVER: '0',
        GIT_CONFIG_PARAMETERS: "'merge.conflictStyle=diff3'",
        GIT_WORK_TREE: undefined,
        TMPDIR: undefined,
      }),
    });
  });
});

describe('replies', () => {
  it('a status line, then each message line prefixed with ":"', () => {
    expect(formatReply(0, '')).toBe('=0\n');
    expect(formatReply(1, 'gcpatch: m.gc: one\ngcpatch: m.gc: two\n')).toBe('=1\n:gcpatch: m.gc: one\n:gcpatch: m.gc: two\n');
  });

  it('cuts messages beyond the limit at a line and says so', () => {
    const text = Array.from({ length: 100 }, (_, i) => `gcpatch: line ${i}`).join('\n');
    const reply = formatReply(1, text, 200);
    expect(Buffer.byteLength(reply)).toBeLessThan(300);
    expect(reply.endsWith(':gcpatch: (further messages cut)\n')).toBe(true);
    expect(
      reply
        .split('\n')
        .slice(1, -2)
        .every((l) => /^:gcpatch: line \d+$/.test(l)),
    ).toBe(true);
  });
});

describe('the line with the service', () => {
  for (const scope of ['local', 'global'] as const) {
    for (const mode of ['gc', 'manifest'] as const) {
      it(`${scope} ${mode}: valid sh after git's expansion, every literal % doubled`, () => {
        const line = driverCommand(shQuote("/data/100%/it's"), mode, serviceLineOptions(scope, '0.1.0'));
        // Only git's placeholders and %% remain.
        expect(
          line
            .replace(/%%/g, '')
            .match(/%./g)!
            .every((p) => ['%O', '%A', '%B', '%L', '%P', '%S', '%X', '%Y'].includes(p)),
        ).toBe(true);
        const expanded = expandDriverLine(line, { O: 'o', A: 'a', B: 'b', L: 7, P: 'p.gc', S: 's', X: 'x', Y: 'y' });
        expect(expanded).toContain("printf '%s\\0' gcpatch-service-2");
        expect(expanded).toContain(`--serve "$1" "$3"' sh "$k" "$d" "$v"`);
        expect(spawnSync('sh', ['-n', '-c', expanded]).status).toBe(0);
      });
    }
  }

  it('the start part runs only after a direct merge and never on the hand-over path', () => {
    const line = driverCommand(shQuote('/d'), 'gc');
    expect(line.indexOf(serviceStartPart().replace(/%/g, '%%'))).toBeGreaterThan(line.indexOf('node "$d/launch.cjs" --wrapped'));
    expect(driverCommand(shQuote('/d'), 'gc', false)).not.toContain('--serve');
  });
});
