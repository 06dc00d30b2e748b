import type { RunDetail, RunSummary } from '@sandscope/api';
import type { Problem } from './problems';

/*
 * What became of a run that stopped for approval, for the runs list. The agent
 * never resumes a gated run: approving it creates a NEW run whose parentRunId is
 * the gated run (seed ADR-0006), and records the approval once that run has written
 * its steps. A run that loses a race to approve first fails without a terminal,
 * as does one that broke — so a gated run is approved by the earliest child run
 * that reached a terminal; a child without one is an approval that did not finish.
 * The gated run's own outcome stays `awaiting_approval`: the list shows what
 * happened next beside it, not instead of the record.
 */

export type Approval =
  | { readonly kind: 'approved'; readonly by: string }
  | { readonly kind: 'unfinished'; readonly by: string }
  | { readonly kind: 'awaiting' }
  /** The gated run's children could not be read; the list says it does not know. */
  | { readonly kind: 'unknown' };

type Child = Pick<RunDetail['children'][number], 'id' | 'terminal' | 'createdAt'>;

/** The approval state from a gated run's child runs (in any order). */
export function approvalOf(children: readonly Child[]): Approval {
  const byAge = [...children].sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  const done = byAge.find((c) => c.terminal !== null);
  if (done) return { kind: 'approved', by: done.id };
  const last = byAge[byAge.length - 1];
  return last ? { kind: 'unfinished', by: last.id } : { kind: 'awaiting' };
}

/** The page's gated runs, with the child runs the page itself lists for each. */
export function gatedOnPage(runs: readonly RunSummary[]): Map<string, Child[]> {
  const gated = new Map<string, Child[]>(runs.filter((r) => r.terminal === 'await_approval').map((r) => [r.id, []]));
  for (const r of runs) if (r.parentRunId) gated.get(r.parentRunId)?.push({ id: r.id, terminal: r.terminal, createdAt: r.createdAt });
  return gated;
}

/**
 * The agent's 409 for a gated run that an earlier approval used up, read from its message (run-service.ts words it
 * "run <gated> was already approved by run <approval>.", or without the id for a loser of a race). `by` is the run
 * that approval created, when the message names it. Null for any other refusal, which keeps its own code.
 */
export function alreadyApproved(problem: Pick<Problem, 'code' | 'message'>): { readonly by: string | null } | null {
  if (problem.code !== 'not_awaiting_approval' || !problem.message) return null;
  const m = /\bwas already approved(?: by run ([A-Za-z0-9_-]{1,100}))?/.exec(problem.message);
  return m ? { by: m[1] ?? null } : null;
}

/**
 * The run to link as a gated run's approval: the one the query names if it is one of the run's children (a crafted
 * link must not point the page elsewhere), else the child that approved it, else none.
 */
export function approvingRun(children: readonly Child[], claimed: string | undefined): string | null {
  if (claimed && children.some((c) => c.id === claimed)) return claimed;
  const approval = approvalOf(children);
  return approval.kind === 'approved' ? approval.by : null;
}
