import type { RunDetail, RunSummary } from '@sandscope/api';

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
