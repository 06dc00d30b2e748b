import { type ApprovalRecord, getApproval } from './approval-repository.ts';
import { type ClaimRecord, listClaims } from './citation-repository.ts';
import type { Queryable } from './database.ts';
import { type FeedbackRecord, getFeedback } from './feedback-repository.ts';
import { listProviderEvents, type ProviderEventRecord } from './provider-event-repository.ts';
import { getRunRecord, listChildRuns, listSpans, type RunRecord, type RunSummary, type SpanRecord } from './run-repository.ts';
import { type RunSpend, spendForRun } from './spend-ledger-repository.ts';

/** Everything recorded about one run — what a reviewer opens months later. */
export interface RunDetail {
  readonly run: RunRecord;
  readonly spans: SpanRecord[];
  /** Claims grouped with the passages cited for each. */
  readonly claims: ClaimRecord[];
  readonly providerEvents: ProviderEventRecord[];
  readonly spend: RunSpend;
  /** The gated run this one approves, if it is an approval run. */
  readonly parent: RunSummary | null;
  /** Runs pointing back at this one (its approval run, if it was gated and approved). */
  readonly children: RunSummary[];
  /** The approval this run takes part in, as gated run or as approval run. */
  readonly approval: ApprovalRecord | null;
  /** A person's mark on this run (one per run; the latest replaces earlier ones). */
  readonly feedback: FeedbackRecord | null;
}

/** One run with its trace, claims, router events, spend and family; null when there is no such run. */
export async function getRun(db: Queryable, runId: string): Promise<RunDetail | null> {
  const run = await getRunRecord(db, runId);
  if (!run) return null;
  const [spans, claims, providerEvents, spend, parent, children, approval, feedback] = await Promise.all([
    listSpans(db, run.id),
    listClaims(db, run.id),
    listProviderEvents(db, run.id),
    spendForRun(db, run.id),
    run.parentRunId ? getRunRecord(db, run.parentRunId) : Promise.resolve(null),
    listChildRuns(db, run.id),
    getApproval(db, run.id),
    getFeedback(db, run.id),
  ]);
  return { run, spans, claims, providerEvents, spend, parent: parent ? summaryOf(parent) : null, children, approval, feedback };
}

function summaryOf(r: RunRecord): RunSummary {
  const { score: _s, answer: _a, risk: _r, result: _res, error: _e, corpusVersion: _c, tokensIn: _i, tokensOut: _o, ...summary } = r;
  return summary;
}
