/**
 * `gcpatch blame MODULE`, `gcpatch why SYMBOL`, `gcpatch log [MODULE|SYMBOL]`: a package's history
 * by definition and by evidence (`src/blame/`, docs/audit.md). Thin: parse options, open the
 * history, call the library, render as text (like `git blame` / `git log`) or `--json`. The library is
 * imported when a command runs, so the other `gcpatch` commands do not load it.
 */
import type { Command } from 'commander';
import type { Attribution, BlameReport } from '../blame/blame.js';
import type { SemanticChange } from '../blame/changes.js';
import type { CommitRoute, EvidenceItem, SignedAcceptance } from '../blame/evidence.js';
import type { LogReport } from '../blame/log.js';
import type { Signature } from '../blame/walk.js';
import type { WhyReport } from '../blame/why.js';
import { ExitCode, GcError } from '../util/errors.js';
import { PKG_OPTION, printJson, type CliContext } from './context.js';
import { formLabel } from './describe.js';
import { exitTable } from './exit-help.js';

interface HistoryOptions {
  pkg?: string;
  rev: string;
  since?: string;
  json?: boolean;
}

const short = (oid: string): string => oid.slice(0, 12);

/** `YYYY-MM-DD HH:MM:SS ±hhmm` in the signature's own time zone (as `git log --date=iso`). */
export function formatDate(s: Signature): string {
  const d = new Date((s.time + s.tz * 60) * 1000);
  const p = (n: number): string => String(n).padStart(2, '0');
  const tz = `${s.tz < 0 ? '-' : '+'}${p(Math.floor(Math.abs(s.tz) / 60))}${p(Math.abs(s.tz) % 60)}`;
  return `${d.getUTCFullYear()}-${p(d.getUTCMonth() + 1)}-${p(d.getUTCDate())} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())} ${tz}`;
}

/** The evidence of a commit as text: a refactor with its plan and apply report, a patch with its intent and provenance. */
function evidenceText(items: readonly EvidenceItem[]): string {
  const parts: string[] = [];
  for (const e of items) {
    if (e.kind === 'refactor-plan') {
      const applies = items
        .filter((a) => a.kind === 'apply-report' && a.plan === e.address)
        .map((a) => `, apply ${short(a.address)}`)
        .join('');
      parts.push(`refactor ${e.refactorKind} ${e.from} → ${e.to}${e.target === '' ? '' : ` into ${e.target}`} (plan ${short(e.address)}${applies})`);
    } else if (e.plan === null || !items.some((p) => p.address === e.plan)) {
      parts.push(`patch ${JSON.stringify(e.intent)}${e.provenance === '{}' ? '' : ` ${e.provenance}`} (apply ${short(e.address)})`);
    }
  }
  return parts.join(', ');
}

/** One line saying how a commit's change is explained and whether that verified. */
export function explanationText(route: CommitRoute, boundary: string | null = null): string {
  if (boundary === 'shallow') return 'history stops here (shallow clone): older changes are not in this clone';
  if (boundary === 'since') return 'not changed since --since';
  const applied = route.evidence.filter((e) => e.route === 'recorded-state' || e.route === 'actual-parent' || e.route === 'failed');
  const verified = route.verified ? 'verified' : `NOT verified${route.problems.length > 0 ? `: ${route.problems[0]}` : ''}`;
  switch (route.how) {
    case 'boundary':
      return 'history stops here';
    case 'introduced':
      return 'introduced with the package (no earlier version to explain it against)';
    case 'unchanged':
      return 'no change that needs evidence (formatting, comments or manifest values)';
    case 'merge':
      return `structural merge of the parents${applied.length > 0 ? ` and ${evidenceText(applied)}` : ''}, ${verified}`;
    case 'hand-edit': {
      const tried = applied.length > 0 ? `; its evidence ${evidenceText(applied)} does not reproduce it` : '';
      const failed = route.problems.length > 0 && applied.length === 0 ? `; its evidence did not verify: ${route.problems[0]}` : '';
      return `hand edit, not explained by evidence${tried}${failed}`;
    }
    default:
      return `${evidenceText(applied)}, ${verified}`;
  }
}

function changeVerb(a: Attribution): string {
  if (a.change === 'renamed' || a.change === 'moved') return `${a.change} from ${a.from!.symbol}${a.change === 'moved' ? ` (${a.from!.module})` : ''}`;
  return a.change;
}

function shallowNote(shallow: readonly string[]): string[] {
  return shallow.map((o) => `history stops at ${short(o)}: this clone is shallow (git fetch --unshallow for the rest)`);
}

/** Renders a blame like `git blame`: one line per top-level form; `^` marks a boundary commit. */
export function renderBlame(report: BlameReport, labels: readonly string[]): string {
  const width = Math.max(...report.forms.map((f) => f.author.name.length), 1);
  const lineWidth = String(Math.max(...report.forms.map((f) => f.line), 1)).length;
  const lines = report.forms.map((f, i) => {
    const mark = f.boundary === 'shallow' || f.boundary === 'since' ? '^' : ' ';
    const what = f.boundary === 'shallow' || f.boundary === 'since' ? '' : `${changeVerb(f)}: `;
    const via = f.via === null ? '' : ` (via merge ${short(f.via)})`;
    const signed = f.signed.length === 0 ? '' : `; ${f.signed.map(signedText).join('; ')}`;
    return `${mark}${short(f.commit)} (${f.author.name.padEnd(width)} ${formatDate(f.author).slice(0, 10)} ${String(f.line).padStart(lineWidth)}) ${labels[i]}  — ${what}${explanationText(f.explanation, f.boundary)}${via}${signed}`;
  });
  return [...lines, ...shallowNote(report.shallow)].join('\n') + '\n';
}

function commitHeader(commit: string, parents: readonly string[], author: Signature, subject: string): string[] {
  const out = [`commit ${commit}`];
  if (parents.length > 1) out.push(`Merge: ${parents.map(short).join(' ')}`);
  out.push(`Author: ${author.name} <${author.email}>`, `Date:   ${formatDate(author)}`, '', `    ${subject}`, '');
  return out;
}

/** Renders a why trail newest first, like `git log --follow`, and where it ends. */
export function renderWhy(report: WhyReport): string {
  const out: string[] = [`${report.symbol} (${report.module}), newest first:`, ''];
  for (const e of report.trail) {
    out.push(...commitHeader(e.commit, [], e.author, e.subject));
    out.push(`    ${e.boundary === 'shallow' || e.boundary === 'since' ? 'present' : changeVerb(e)}: ${e.symbol} (${e.module})`);
    out.push(`    explained: ${explanationText(e.explanation, e.boundary)}`, '');
  }
  const end = report.end;
  const at = short(end.commit);
  if (end.reason === 'shallow') out.push(`The trail stops at ${at}: this clone is shallow; the definition is older (git fetch --unshallow for the rest).`);
  else if (end.reason === 'since') out.push(`The trail stops at ${at}: --since; the definition is older.`);
  else if (end.reason === 'introduced') out.push(`The trail ends at ${at}, which introduced the package.`);
  else {
    out.push(`The trail ends at ${at}, which added the definition${end.removed.length === 0 ? '.' : ` and removed ${end.removed.join(', ')}.`}`);
    if (end.removed.length > 0) {
      out.push('If it was renamed from one of those, the rename was made by hand: it is a removal and an addition that no evidence');
      out.push('links (gcpatch refactor plan/apply records a rename as evidence, and why follows it).');
    }
  }
  return out.join('\n') + '\n';
}

function changeText(c: SemanticChange): string {
  const pad = (s: string): string => s.padEnd(9);
  switch (c.kind) {
    case 'module-added':
    case 'module-removed':
      return `${pad(c.kind === 'module-added' ? 'added' : 'removed')} module ${c.module}${c.symbols.length === 0 ? '' : ` (${c.symbols.length} definition${c.symbols.length === 1 ? '' : 's'})`}`;
    case 'manifest':
      return `${pad('manifest')} ${c.keys.join(', ')}`;
    case 'renamed':
    case 'moved':
      return `${pad(c.kind)} ${c.from.symbol} → ${c.symbol}${c.kind === 'moved' ? ` (${c.from.module} → ${c.module})` : ` (${c.module})`}${c.byEvidence ? ', by evidence' : ', by hand'}`;
    case 'exports':
    case 'imports':
    case 'caps':
      return `${pad(c.kind)} ${c.module}: ${[...c.added.map((s) => `+${s}`), ...c.removed.map((s) => `-${s}`)].join(' ')}`;
    default:
      return `${pad(c.kind)} ${c.symbol ?? c.key} (${c.module})`;
  }
}

/** One signed acceptance a commit logged, for people. */
export function signedText(g: SignedAcceptance): string {
  return `signed: acceptance ${short(g.acceptance)} by ${g.signer}${g.verified ? '' : ' (does not verify)'} (transparency entry ${short(g.entry)}, package record ${short(g.packageArtifact)})`;
}

/** Renders a log like `git log`: a header per commit, its explanation, then its semantic changes. */
export function renderLog(report: LogReport): string {
  const out: string[] = [];
  for (const e of report.commits) {
    out.push(...commitHeader(e.commit, e.parents, e.author, e.subject));
    out.push(`    explained: ${explanationText(e.explanation)}`);
    for (const g of e.signed) out.push(`    ${signedText(g)}`);
    if (e.changes.length === 0) out.push('    no semantic change (formatting, comments, evidence or other files)');
    for (const c of e.changes) out.push(`    ${changeText(c)}`);
    out.push('');
  }
  if (report.commits.length === 0)
    out.push(
      'no commit changes the package' + (report.filter === null ? '' : ` in ${'module' in report.filter ? report.filter.module : report.filter.symbol}`),
    );
  if (report.truncated) out.push(`(--max-count ${report.maxCount}: older commits not shown)`);
  out.push(...shallowNote(report.shallow));
  return out.join('\n') + '\n';
}

function positiveCount(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < 1) {
    throw new GcError('usage/invalid-option', `log: --max-count must be a positive integer, got ${JSON.stringify(value)}`, {
      exitCode: ExitCode.invalidInput,
      details: { option: '--max-count', value },
    });
  }
  return n;
}

const EXIT_HELP = exitTable([
  ['ok', 'ok (hand edits and evidence that does not verify are reported, not errors: use verify-pr to gate)'],
  ['invalidInput', 'invalid input: an unknown revision, package, module or symbol; a package unreadable at the revision'],
  ['io', 'the revision is missing from the object store (a shallow clone)'],
]);

function withHistoryOptions(command: Command): Command {
  return command
    .option('--pkg <path>', PKG_OPTION)
    .option('--rev <rev>', 'the revision to start from', 'HEAD')
    .option('--since <rev>', 'stop at commits reachable from REV (they show as boundaries, marked ^)')
    .option('--json', 'print the JSON report (docs/audit.md)')
    .addHelpText('after', EXIT_HELP);
}

/** Registers `blame`, `why` and `log` on `program`. */
export function registerBlameCommands(program: Command, ctx: CliContext): void {
  withHistoryOptions(
    program
      .command('blame')
      .summary('for each top-level form of a module, the commit that last changed it and how that is explained')
      .description(
        'For every top-level form of MODULE, the commit that last changed its canonical form (reformatting ' +
          'and comments do not count), with author and date, and how that change is explained: the refactor ' +
          'plan (kind, from, to), the patch (intent, provenance, address), a structural merge, or a hand edit ' +
          'not explained by evidence, and whether the explanation verified. Reads git objects only.',
      )
      .argument('<module>', 'a .gc module: its path from the current directory, or inside --pkg'),
  ).action(async (module: string, opts: HistoryOptions) => {
    const [{ history, module: path }, { blameModule }] = await Promise.all([openHistory(opts, module), import('../blame/blame.js')]);
    const report = await blameModule(history, path!);
    if (opts.json) printJson(ctx, report);
    else {
      const head = (await history.readable(history.head))!;
      const forms = head.byPath.get(path!)!.forms;
      ctx.stdout(
        renderBlame(
          report,
          report.forms.map((f) => formLabel(forms[f.index])),
        ),
      );
    }
  });

  withHistoryOptions(
    program
      .command('why')
      .summary('the history of one definition, following renames and moves made by evidence')
      .description(
        'The commits that changed SYMBOL, newest first, back to the one that introduced it. A rename or move ' +
          'recorded by refactor evidence is followed under the old name; a rename by hand is a removal and an ' +
          'addition, and the trail ends there (it says so).',
      )
      .argument('<symbol>', 'a defined symbol, e.g. shop/price::total'),
  ).action(async (symbol: string, opts: HistoryOptions) => {
    const [{ history }, { whySymbol }] = await Promise.all([openHistory(opts), import('../blame/why.js')]);
    const report = await whySymbol(history, symbol);
    if (opts.json) printJson(ctx, report);
    else ctx.stdout(renderWhy(report));
  });

  withHistoryOptions(
    program
      .command('log')
      .summary('per commit that changed the package (or a module or definition), its semantic changes and their explanation')
      .description(
        'Per commit that changed the package, newest first: definitions added, removed, changed, renamed and moved, ' +
          '::meta exports/imports/caps, manifest keys, each commit with its explanation. With MODULE (a path ending ' +
          'in .gc) or SYMBOL, only the commits that changed it.',
      )
      .argument('[target]', 'a module path (ends in .gc) or a symbol')
      .option('--max-count <n>', 'at most N commits'),
  ).action(async (target: string | undefined, opts: HistoryOptions & { maxCount?: string }) => {
    const maxCount = opts.maxCount === undefined ? undefined : positiveCount(opts.maxCount);
    const isModule = target !== undefined && target.endsWith('.gc');
    const [{ history, module }, { logPackage }] = await Promise.all([openHistory(opts, isModule ? target : undefined), import('../blame/log.js')]);
    const filter = target === undefined ? undefined : isModule ? { module: module! } : { symbol: target };
    const report = await logPackage(history, filter, maxCount);
    if (opts.json) printJson(ctx, report);
    else ctx.stdout(renderLog(report));
  });
}

/**
 * Opens the package history the options name (`openPackageHistory` of src/blame/open.ts, loaded
 * when a command runs), with `module` resolved inside it when given.
 */
async function openHistory(opts: HistoryOptions, module?: string): ReturnType<typeof import('../blame/open.js').openPackageHistory> {
  const { openPackageHistory } = await import('../blame/open.js');
  return openPackageHistory({
    rev: opts.rev,
    ...(opts.pkg !== undefined ? { pkg: opts.pkg } : {}),
    ...(opts.since !== undefined ? { since: opts.since } : {}),
    ...(module !== undefined ? { module } : {}),
  });
}
