import { ENGINE_ERROR_REMEDIES } from '../errors.ts';
import type { Clock, NodeEvent } from './events.ts';
import { outcomeOf } from './outcome.ts';
import type { RunResult } from './run-result.ts';

/** Approving a run that is not waiting for approval. A 409 at the HTTP boundary (docs/API.md). */
export class NotAwaitingApprovalError extends Error {
  override readonly name = 'NotAwaitingApprovalError';
  readonly code = 'not_awaiting_approval';
  readonly remedy = ENGINE_ERROR_REMEDIES.not_awaiting_approval;
  constructor(
    readonly runId: string,
    readonly terminal: string,
  ) {
    super(`run ${runId} ended in ${terminal}, not await_approval: there is nothing to approve.`);
  }
}

export interface ApprovalOptions {
  readonly runId?: string;
  readonly clock?: Clock;
  /** Who approved, for the record (a session id — not authentication, T-17). */
  readonly approvedBy?: string;
}

/**
 * Approval never resumes a run (seed ADR-0006). It returns a NEW run that points back
 * at the gated one: it starts from the gated run's verified draft and proposed
 * action, runs no model and no graph node but `emit`, and ends in emit with
 * `approvedFrom` set. The gated run is not touched — not even shared: the new
 * run is a deep copy — so its pause stays in the record for good.
 */
export function createApprovalRun(gated: RunResult, options: ApprovalOptions = {}): RunResult {
  if (gated.terminal !== 'await_approval') throw new NotAwaitingApprovalError(gated.runId, gated.terminal);
  const clock = options.clock ?? Date.now;
  const runId = options.runId ?? globalThis.crypto.randomUUID();
  const copy = structuredClone(gated);
  const startedAt = clock();
  const reason = `approved${options.approvedBy ? ` by ${options.approvedBy}` : ''}: run ${gated.runId} was gated at risk ${gated.risk?.score ?? 'unscored'} (threshold ${gated.risk?.threshold ?? 'n/a'}); this run emits its verified draft unchanged`;
  const start: NodeEvent = { type: 'node', runId, seq: 1, node: 'emit', kind: 'start', at: startedAt, data: { approvedFrom: gated.runId } };
  const endedAt = clock();
  const end: NodeEvent = {
    type: 'node',
    runId,
    seq: 2,
    node: 'emit',
    kind: 'end',
    at: endedAt,
    durationMs: endedAt - startedAt,
    data: { terminal: 'emit', verdict: copy.verdict, approvedFrom: gated.runId },
  };
  return {
    ...copy,
    runId,
    parentRunId: gated.runId,
    approvedFrom: gated.runId,
    terminal: 'emit',
    // Copied from a run that was held; the new terminal changes what it amounts to.
    outcome: outcomeOf(copy.verdict, 'emit'),
    reasons: [...copy.reasons, reason],
    attempts: [],
    trace: [start, end],
    providers: [],
    spend: { reservedUsd: 0, spentUsd: 0, ceilingUsd: copy.spend.ceilingUsd },
    timingsMs: { emit: endedAt - startedAt, total: endedAt - startedAt },
    startedAt,
    endedAt,
  };
}
