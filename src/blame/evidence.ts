/** The one door from `blame/` into `verify-pr/`: read packages at commits, verify the head's evidence, and explain commits with the PR check's routes. */
import { printTerm } from '../coreform/print.js';
import type { GitRepository } from '../git/repository.js';
import { checkApplyReport, type ApplyEvidence } from '../verify-pr/evidence/apply-evidence.js';
import { explainHistory } from '../verify-pr/walk/explain-history.js';
import { AuditCode, PackageFindings, type CommitExplanation } from '../verify-pr/report/findings.js';
import { listStoreAtCommit, readPackageAtCommit, type CommitPackageSnapshot, type ModuleCache } from '../verify-pr/evidence/package-at-commit.js';
import { checkRefactorReport, type RefactorEvidence } from '../verify-pr/evidence/refactor-evidence.js';
import { manifestDifferences } from '../verify-pr/evidence/replay.js';
import { CommitStore } from '../verify-pr/evidence/store-evidence.js';

export { readPackageAtCommit, manifestDifferences };
export { signaturesIntroduced, type SignedAcceptance } from '../verify-pr/checks/signature-policy.js';
export type { CommitPackageSnapshot, ModuleCache };

/** One piece of evidence a commit added, as blame, why and log show it. */
export type EvidenceItem =
  | {
      kind: 'refactor-plan';
      /** Store address (hex64). */
      address: string;
      /** The request's `refactor-kind`: `rename`, `move`, `extract`. */
      refactorKind: string;
      from: string;
      to: string;
      /** The request's `target-module-path` (`''` when the refactor names none). */
      target: string;
      /** How the PR check used it: `recorded-state`, `actual-parent`, `not-applied`, `failed`. */
      route: string;
    }
  | {
      kind: 'apply-report';
      address: string;
      /** The patch's `:intent`. */
      intent: string;
      /** The patch's `:provenance`, in canonical print. */
      provenance: string;
      /** The refactor-plan report whose patch this applies, when one is in the store. */
      plan: string | null;
      route: string;
    };

/**
 * How one commit's change to the package is explained, from the PR check's per-commit route
 * (docs/audit.md "How a change is explained"). `how`:
 * - `refactor`: applied refactor evidence (a plan and its apply report);
 * - `patch`: applied apply reports and no refactor plan;
 * - `merge`: the structural merge of the parents (with or without evidence);
 * - `hand-edit`: nothing explains it (or it contradicts its evidence);
 * - `introduced`: the commit adds the package (no parent has it, or it is a root commit);
 * - `boundary`: the walk stopped at the commit (shallow clone, `--since`): its parents are not read;
 * - `unchanged`: the commit changes nothing evidence must explain (formatting, a version bump).
 */
export interface CommitRoute {
  how: 'refactor' | 'patch' | 'merge' | 'hand-edit' | 'introduced' | 'boundary' | 'unchanged';
  /**
   * The PR check's route (`src/verify-pr/findings.ts` `CommitExplanation.route`), or `introduced`,
   * `boundary`, `merge-base-missing` (a merge whose merge base a shallow clone lacks).
   */
  route: string;
  /** True when every check of the explanation passed; false for a hand edit or a failed check. */
  verified: boolean;
  evidence: EvidenceItem[];
  /** Modules (and `package.toml`) the commit changed without an explanation. */
  unexplained: string[];
  /** Modules whose content contradicts the evidence or merge that should explain them. */
  mismatched: string[];
  /** Messages of the failed checks of the commit's own evidence. */
  problems: string[];
}

/**
 * The head's evidence store, checked lazily: only the entries the commits being explained add are
 * verified (`src/verify-pr/refactor-evidence.ts`, `src/verify-pr/apply-evidence.ts`), each once.
 * The store is append-only, so the head's store holds the evidence of every earlier commit.
 */
export class HeadEvidence {
  /** Verified refactor plans and apply reports so far, by store address. */
  readonly refactors = new Map<string, RefactorEvidence>();
  readonly applies = new Map<string, ApplyEvidence>();
  /** Rows and findings of every check (static checks and the per-commit replays). */
  readonly findings: PackageFindings;
  private readonly checked = new Set<string>();
  private store: Promise<CommitStore> | undefined;
  private readonly listings = new Map<string, Promise<Map<string, string>>>();

  constructor(
    private readonly repo: GitRepository,
    private readonly head: string,
    private readonly dir: string,
  ) {
    this.findings = new PackageFindings(dir);
  }

  private listing(commit: string): Promise<Map<string, string>> {
    let p = this.listings.get(commit);
    if (p === undefined) this.listings.set(commit, (p = listStoreAtCommit(this.repo, commit, this.dir)));
    return p;
  }

  /**
   * The store entries `commit` adds: in its store and in no parent's (sorted).
   * @throws GcError `git/missing-commit` (exit 70).
   */
  async fresh(commit: string, parents: readonly string[]): Promise<string[]> {
    const [mine, ...theirs] = await Promise.all([commit, ...parents].map((o) => this.listing(o)));
    return [...mine!.keys()].filter((a) => !theirs.some((l) => l.has(a))).sort();
  }

  /** Statically checks the refactor-plan and apply-report entries among `addresses` (each once). */
  async check(addresses: Iterable<string>): Promise<void> {
    this.store ??= this.listing(this.head).then((l) => new CommitStore(this.repo, this.head, this.dir, l));
    const store = await this.store;
    for (const address of addresses) {
      if (this.checked.has(address)) continue;
      this.checked.add(address);
      const entry = await store.entry(address);
      if (entry === undefined) continue;
      if (!entry.hashOk) {
        this.findings.fail('store', address, 'hash', {
          code: AuditCode.storeHashMismatch,
          message: `evidence-store entry ${address.slice(0, 12)} does not hash to its name (BLAKE3 of its bytes differs): the entry was edited or corrupted`,
          file: entry.file,
        });
        continue;
      }
      if (entry.term === undefined || !entry.canonical) continue;
      if (entry.kind === 'refactor-plan') {
        const r = await checkRefactorReport(entry, store, [], this.findings);
        if (r !== undefined) this.refactors.set(address, r);
      } else if (entry.kind === 'apply-report') {
        const a = await checkApplyReport(entry, store, [], this.findings);
        if (a !== undefined) this.applies.set(address, a);
      }
    }
  }
}

/** One commit to explain: its oid, parents and subject (the PR check's `RangeCommit`). */
export interface CommitToExplain {
  oid: string;
  parents: string[];
  subject: string;
  /** Committer time, seconds since the epoch. */
  time: number;
}

/**
 * Explains each commit (parents first; every parent must be readable: no root or shallow-boundary
 * commit) with the PR check's walk (`src/verify-pr/explain.ts` `explainHistory`), then turns its routes
 * into {@link CommitRoute}s with the evidence's refactor kind/from/to and patch intent/provenance.
 * @param base the package the walk starts from (restoring it is a revert, not a hidden edit).
 * @returns route by commit oid, for every commit given.
 * @throws GcError `git/missing-commit` (exit 70).
 */
export async function explainCommits(
  repo: GitRepository,
  dir: string,
  base: CommitPackageSnapshot,
  commits: readonly CommitToExplain[],
  modules: ModuleCache,
  evidence: HeadEvidence,
): Promise<Map<string, CommitRoute>> {
  for (const c of commits) await evidence.check(await evidence.fresh(c.oid, c.parents));
  const history = await explainHistory({ repo, dir, base, commits, modules, refactors: evidence.refactors, applies: evidence.applies }, evidence.findings);
  const failedRows = new Map<string, string[]>();
  for (const row of evidence.findings.rows) {
    if (row.result !== 'fail') continue;
    let list = failedRows.get(row.evidence);
    if (list === undefined) failedRows.set(row.evidence, (list = []));
    list.push(row.detail);
  }
  const out = new Map<string, CommitRoute>();
  for (const c of history.commits) out.set(c.commit, await routeOf(c, evidence, failedRows));
  return out;
}

async function routeOf(c: CommitExplanation, evidence: HeadEvidence, failedRows: ReadonlyMap<string, string[]>): Promise<CommitRoute> {
  const items: EvidenceItem[] = c.evidence.map((e) => describeEvidence(e.address, e.kind, e.route, evidence));
  const problems: string[] = [];
  for (const e of c.evidence) for (const p of failedRows.get(e.address) ?? []) problems.push(p);
  if (c.route === 'unexplained') {
    // Evidence the commit added that failed the static checks never reached the walk: name it.
    for (const address of await evidence.fresh(c.commit, c.parents)) {
      if (c.evidence.some((e) => e.address === address)) continue;
      for (const p of failedRows.get(address) ?? []) problems.push(p);
    }
  }
  const applied = items.filter((i) => i.route === 'recorded-state' || i.route === 'actual-parent');
  const how: CommitRoute['how'] =
    c.route === 'unexplained'
      ? 'hand-edit'
      : c.route === 'merge' || c.route === 'merge+evidence'
        ? 'merge'
        : c.route === 'unchanged'
          ? 'unchanged'
          : applied.some((i) => i.kind === 'refactor-plan')
            ? 'refactor'
            : 'patch';
  const verified = how !== 'hand-edit' && problems.length === 0 && c.mismatched.length === 0 && !items.some((i) => i.route === 'failed');
  return { how, route: c.route, verified, evidence: items, unexplained: [...c.unexplained], mismatched: [...c.mismatched], problems };
}

/** A rename or move a commit's own refactor evidence made: the definition `to` was `from`. */
export interface Relocation {
  /** `rename` or `move`. */
  refactorKind: string;
  from: string;
  to: string;
  /** The module the definition moved into (`''` for a rename). */
  target: string;
  /** Store address of the refactor-plan report. */
  address: string;
}

/**
 * The renames and moves made by the refactor evidence `commit` adds (store entries in no parent's
 * store): a statically verified, safe refactor plan whose patch an apply report of the same commit
 * applied. Whether the whole commit then verifies is {@link explainCommits}'s answer.
 * @throws GcError `git/missing-commit` (exit 70).
 */
export async function relocationsOf(commit: string, parents: readonly string[], evidence: HeadEvidence): Promise<Relocation[]> {
  const fresh = await evidence.fresh(commit, parents);
  if (fresh.length === 0) return [];
  await evidence.check(fresh);
  const appliedPatches = new Set(fresh.map((a) => evidence.applies.get(a)?.patch.patchH).filter((h): h is string => h !== undefined));
  const out: Relocation[] = [];
  for (const address of fresh) {
    const plan = evidence.refactors.get(address);
    if (plan === undefined || !plan.verified.safe || !appliedPatches.has(plan.verified.patchH)) continue;
    const r = plan.request;
    if (r.refactorKind !== 'rename' && r.refactorKind !== 'move') continue;
    out.push({ refactorKind: r.refactorKind, from: r.fromSymbol, to: r.toSymbol, target: r.targetModulePath, address });
  }
  return out;
}

function describeEvidence(address: string, kind: string, route: string, evidence: HeadEvidence): EvidenceItem {
  const plan = evidence.refactors.get(address);
  if (kind === 'refactor-plan' && plan !== undefined) {
    const r = plan.request;
    return { kind: 'refactor-plan', address, refactorKind: r.refactorKind, from: r.fromSymbol, to: r.toSymbol, target: r.targetModulePath, route };
  }
  const apply = evidence.applies.get(address);
  const linked = apply === undefined ? undefined : [...evidence.refactors.values()].find((r) => r.verified.safe && r.verified.patchH === apply.patch.patchH);
  return {
    kind: 'apply-report',
    address,
    intent: apply?.fields.intent ?? '',
    provenance: apply === undefined ? '{}' : printTerm(apply.fields.provenance).trim(),
    plan: linked?.address ?? null,
    route,
  };
}
