/** What the explainers and checks of one commit share: the walk's result so far, the commit's start state and evidence, where to record. */
import type { PackageState } from '../../patch/protocol/state.js';
import type { ApplyEvidence } from '../evidence/apply-evidence.js';
import type { CommitExplanation, PackageFindings } from '../report/findings.js';
import type { ListKey } from '../checks/manifest-keys.js';
import type { StartState } from './merge-start.js';
import type { CommitPackageSnapshot } from '../evidence/package-at-commit.js';
import type { RefactorEvidence } from '../evidence/refactor-evidence.js';

/** What the history walk (`explainHistory` in `./explain.ts`) found, besides the rows and findings it recorded. */
export interface HistoryResult {
  commits: CommitExplanation[];
  /** Apply reports replayed, in the order checked. */
  applied: string[];
  /** Modules explained by evidence somewhere in the range. */
  explainedByEvidence: Set<string>;
  unexplained: Set<string>;
  mismatches: Set<string>;
  replayFailed: boolean;
  /** Refactor plans checked (re-planned) during the walk. */
  replanned: Set<string>;
  /** Commits of the range whose package could not be read (or had none). */
  unreadable: string[];
  /** The readable packages the walk read (commits of the range and their parents), for the dangling-reference check. */
  snapshots: CommitPackageSnapshot[];
  /** The items (`net-change.ts`) whose content at the head no verified step produced. */
  dirty: Set<string>;
  millis: number;
}

/** A result with nothing found yet. */
export function emptyHistoryResult(): HistoryResult {
  return {
    commits: [],
    applied: [],
    explainedByEvidence: new Set(),
    unexplained: new Set(),
    mismatches: new Set(),
    replayFailed: false,
    replanned: new Set(),
    unreadable: [],
    snapshots: [],
    dirty: new Set(),
    millis: 0,
  };
}

/** One commit's evidence as it explains the commit: what the replay (or, without replay, the patches) gives. */
export interface EvidenceOutcome {
  /** The replayed state, or `undefined` without replay. */
  final: PackageState | undefined;
  withEvidence: boolean;
  anyOnNewParent: boolean;
  /** Without replay: the modules and keys the verified patches name, and the list entries they remove. */
  namedModules: Set<string>;
  namedKeys: Set<string>;
  removedEntries: Map<ListKey, Set<string>>;
}

/** The per-commit context the checks (`check-modules.ts`, `check-manifest.ts`, `check-policies.ts`) share. */
export interface CommitCheck {
  at: string;
  now: CommitPackageSnapshot;
  start: StartState & { state: PackageState };
  ev: EvidenceOutcome;
  explanation: CommitExplanation;
  touchedBefore: Set<string>;
  base: CommitPackageSnapshot;
  dir: string;
  out: PackageFindings;
  result: HistoryResult;
  /** The items (`net-change.ts`) this commit changed and no verified step explains; the checks add to it. */
  dirty: Set<string>;
}

/** What the evidence steps of one commit share: its start state, the evidence it adds, where to record. */
export interface CommitEvidence {
  start: StartState & { state: PackageState };
  applies: readonly ApplyEvidence[];
  plans: readonly RefactorEvidence[];
  /** Names the state a step ran on, for messages (`i` earlier patches of the commit). */
  label: (i: number) => string;
  at: string;
  explanation: CommitExplanation;
  result: HistoryResult;
  out: PackageFindings;
}
