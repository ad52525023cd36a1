/** CLI commands over CoreForm: `fmt`, `hash`, `parse`, `verify-pins`. Thin: read, call, render. */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { hashModule, hashTerm } from '../coreform/hash.js';
import { termToJson } from '../coreform/json.js';
import { printModule } from '../coreform/print.js';
import { lineColumn, readModule, readTerm } from '../coreform/read.js';
import { canonicalizeForm } from '../coreform/canon.js';
import { vec } from '../coreform/term.js';
import { writeFileAtomic } from '../util/atomic.js';
import { bytesEqual, utf8 } from '../util/bytes.js';
import { ExitCode, ioError, isGcError } from '../util/errors.js';
import { canonicalizeFile, loadPackage, pinFindings, pinsVerified } from '../workspace/package.js';
import { discoverManifest, repinCommand } from '../workspace/discover.js';
import { addPackageOptions, printJson, type CliContext } from './context.js';
import { recoverFirst } from './recover.js';
import { exitHelp } from './exit-help.js';

/** Reads a file's bytes, mapping failures to `io/*` errors (exit 70). */
export function readInput(file: string): Uint8Array {
  try {
    return readFileSync(file);
  } catch (error) {
    throw ioError(error, file, 'read');
  }
}

function withFile<T>(file: string, bytes: Uint8Array, fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    if (isGcError(error)) {
      const loc = error.location.offset !== undefined ? lineColumn(bytes, error.location.offset) : {};
      throw error.withLocation({ file, ...loc });
    }
    throw error;
  }
}

/** Registers `fmt`, `hash`, `parse` and `verify-pins` on `program`. */
export function registerCoreformCommands(program: Command, ctx: CliContext): void {
  registerFormatCommands(program, ctx);
  registerReadCommands(program, ctx);
}

/** `gcpatch fmt` and `gcpatch hash`: canonical print and hashes of modules. */
function registerFormatCommands(program: Command, ctx: CliContext): void {
  program
    .command('fmt')
    .summary('print .gc files in canonical form (--check, --write)')
    .description(
      'Print .gc files in canonical form (GenesisCode `genesis fmt`: comments dropped, CRLF → LF).\n' +
        exitHelp([
          ['ok', 'ok'],
          ['conflicts', 'with --check, when any file is not canonical'],
          ['invalidInput', 'on a parse error'],
        ]) +
        '.',
    )
    .argument('<files...>', '.gc module files')
    .option('--check', 'report files that are not canonical; write nothing')
    .option('--write', 'rewrite files in place (atomically) with their canonical text')
    .option('--json', 'machine-readable output')
    .action((files: string[], opts: { check?: boolean; write?: boolean; json?: boolean }) => {
      // Every file is read and formatted before anything is written: one bad file writes nothing.
      const formatted = files.map((file) => {
        const bytes = readInput(file);
        const forms = canonicalizeFile(bytes, file);
        const text = withFile(file, bytes, () => printModule(forms));
        const encoded = utf8(text);
        return { file, text, encoded, canonical: bytesEqual(encoded, bytes) };
      });
      const results: { file: string; canonical: boolean; written: boolean }[] = [];
      for (const f of formatted) {
        let written = false;
        if (opts.write && !f.canonical) {
          writeFileAtomic(f.file, f.encoded);
          written = true;
        }
        results.push({ file: f.file, canonical: f.canonical, written });
        if (!opts.check && !opts.write && !opts.json) ctx.stdout(f.text);
      }
      if (opts.check && results.some((r) => !r.canonical)) ctx.exitCode = ExitCode.conflicts;
      if (opts.json) {
        printJson(ctx, { ok: ctx.exitCode === 0, files: results });
      } else if (opts.check || opts.write) {
        for (const r of results) {
          if (r.written) ctx.stdout(`formatted ${r.file}\n`);
          else if (!r.canonical) ctx.stdout(`not canonical: ${r.file}\n`);
        }
      }
    });

  program
    .command('hash')
    .summary('print the module hash (or hash-term) of files')
    .description(
      'Print the GenesisCode hash of each file as `<hex64>  <path>`.\n' +
        '--module (default): hash-module of the canonical forms (the package.toml pin).\n' +
        '--term: hash-term of the single term the file holds, read as written (e.g. a .gcpatch).',
    )
    .argument('<files...>', 'files to hash')
    .option('--module', 'hash-module of the canonicalized module (default)')
    .option('--term', 'hash-term of one term (not canonicalized)')
    .option('--json', 'machine-readable output')
    .action((files: string[], opts: { module?: boolean; term?: boolean; json?: boolean }) => {
      const out: { file: string; hash: string; kind: 'module' | 'term' }[] = [];
      for (const file of files) {
        const bytes = readInput(file);
        if (opts.term) out.push({ file, kind: 'term', hash: withFile(file, bytes, () => hashTerm(readTerm(bytes))) });
        else {
          const forms = canonicalizeFile(bytes, file);
          out.push({ file, kind: 'module', hash: withFile(file, bytes, () => hashModule(forms)) });
        }
      }
      if (opts.json) printJson(ctx, { ok: true, hashes: out });
      else for (const h of out) ctx.stdout(`${h.hash}  ${h.file}\n`);
    });
}

/** `gcpatch parse` and `gcpatch verify-pins`: reading modules and checking a package's pins. */
function registerReadCommands(program: Command, ctx: CliContext): void {
  program
    .command('parse')
    .summary('print the forms of a .gc file as JSON')
    .description(
      'Read a .gc file and print its top-level forms as JSON (mapping documented in docs/coreform.md, "JSON projection").\n' +
        'Forms are canonicalized unless --raw (`canonicalized`); each form carries its byte span [start, end).\n' +
        '`canonical` is true when the file is already in canonical print (what `fmt --check` checks).\n' +
        'The JSON is compact (one line) so that deeply nested terms stay small.',
    )
    .argument('<file>', '.gc module file')
    .option('--json', 'JSON output (the only format; accepted for symmetry)')
    .option('--raw', 'print the forms as read, without canonicalization')
    .action((file: string, opts: { raw?: boolean }) => {
      const bytes = readInput(file);
      const module = withFile(file, bytes, () => readModule(bytes));
      const forms = module.forms.map((f, i) => {
        const term = opts.raw ? f.term : withFile(file, bytes, () => canonicalizeForm(f.term, i));
        return { start: f.start, end: f.end, term: termToJson(term) };
      });
      const canonical = opts.raw ? undefined : vec(module.forms.map((f, i) => canonicalizeForm(f.term, i)));
      // `canonical` means what `fmt --check` means: the file's bytes are its canonical print.
      // Whether the forms below were canonicalized (not --raw) is `canonicalized`.
      const printed = canonical ? withFile(file, bytes, () => utf8(printModule(canonical.items))) : undefined;
      const isCanonical =
        printed !== undefined ? bytesEqual(printed, bytes) : withFile(file, bytes, () => bytesEqual(utf8(printModule(canonicalizeFile(bytes, file))), bytes));
      printJson(
        ctx,
        {
          ok: true,
          file,
          canonical: isCanonical,
          canonicalized: !opts.raw,
          moduleHash: canonical ? withFile(file, bytes, () => hashModule(canonical.items)) : undefined,
          forms,
        },
        0,
      );
    });

  const verifyPins = program
    .command('verify-pins')
    .summary("check each module's hash against its package.toml pin")
    .description(
      "Compare each module's computed hash with its package.toml pin.\n" +
        exitHelp([
          ['ok', 'when every pin matches'],
          ['verificationFailed', 'on any mismatch, missing or empty pin'],
        ]) +
        '.',
    );
  addPackageOptions(verifyPins).action((opts: { pkg?: string; json?: boolean }) => {
    const manifest = discoverManifest(opts.pkg);
    recoverFirst(ctx, manifest);
    const pkg = loadPackage(manifest);
    const findings = pinFindings(pkg);
    const ok = pinsVerified(findings);
    if (!ok) ctx.exitCode = ExitCode.verificationFailed;
    if (opts.json) {
      printJson(ctx, { ok, package: resolve(pkg.manifestFile), findings, fix: ok ? null : repinCommand(pkg.dir) });
      return;
    }
    for (const f of findings) {
      const detail = f.status === 'ok' ? '' : f.status === 'mismatch' ? ` pinned ${f.pin} but computed ${f.computed}` : ` (computed ${f.computed})`;
      ctx.stdout(`${f.status.padEnd(11)} ${f.path}${detail}\n`);
    }
    const empty = findings.filter((f) => f.status === 'empty-pin').length;
    ctx.stdout(
      ok
        ? `all ${findings.length} module pins verified\n`
        : empty > 0 && empty === findings.filter((f) => f.status !== 'ok').length
          ? `${empty} empty pin${empty === 1 ? '' : 's'} (hash = "", left by a merge where both sides changed the module): run \`${repinCommand(pkg.dir)}\` to re-pin\n`
          : `pin verification failed: review the modules, then run \`${repinCommand(pkg.dir)}\` to re-pin\n`,
    );
  });
}
