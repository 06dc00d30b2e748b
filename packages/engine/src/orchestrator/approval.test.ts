import { beforeAll, describe, expect, it } from 'vitest';
import { OfflineExtractiveModel } from '../models/offline-model.ts';
import { createApprovalRun, NotAwaitingApprovalError } from './approval.ts';
import { bareModelFactory } from './model-factory.ts';
import { createOrchestrator, type Orchestrator } from './orchestrator.ts';
import type { RunResult } from './run-result.ts';
import { corpusKnowledgeBase } from './testing/corpus-fixture.ts';

/** seed ADR-0006: approving a gated run creates a NEW run pointing back at it; the gated run is never resumed or edited. */
let orchestrator: Orchestrator;
let gated: RunResult;

beforeAll(async () => {
  orchestrator = createOrchestrator({ kb: await corpusKnowledgeBase(), models: bareModelFactory(new OfflineExtractiveModel()) });
  gated = await orchestrator.run({ question: 'Can we raise the orders-db connection pool ceiling during an incident?', workload: 'change' });
});

describe('createApprovalRun', () => {
  it('creates a new run from the gated run’s verified draft, ending in emit and linking back', () => {
    expect(gated.terminal).toBe('await_approval');
    const record = structuredClone(gated);
    let t = 1_800_000_000_000;
    const approved = createApprovalRun(gated, { runId: 'approval-1', clock: () => (t += 5), approvedBy: 'session-abc' });

    // The gated run's record is unchanged, field for field.
    expect(gated).toEqual(record);

    expect(approved.runId).toBe('approval-1');
    expect(approved.runId).not.toBe(gated.runId);
    expect(approved.parentRunId).toBe(gated.runId);
    expect(approved.approvedFrom).toBe(gated.runId);
    expect(approved.terminal).toBe('emit');
    // The outcome follows the new terminal: the gated run stays awaiting approval, the approval run answers.
    expect(gated.outcome).toBe('awaiting_approval');
    expect(approved.outcome).toBe(gated.verdict === 'partial' ? 'partial' : 'answered');
    expect(approved.claims).toEqual(gated.claims);
    expect(approved.sources).toEqual(gated.sources);
    expect(approved.action).toBe(gated.action);
    expect(approved.reasons[approved.reasons.length - 1]).toMatch(/^approved by session-abc: run .* was gated at risk/);
    // It ran nothing but emit: no model call, no spend.
    expect(approved.attempts).toEqual([]);
    expect(approved.providers).toEqual([]);
    expect(approved.spend.spentUsd).toBe(0);
    expect(approved.trace.map((e) => (e.type === 'node' ? [e.runId, e.seq, e.node, e.kind] : null))).toEqual([
      ['approval-1', 1, 'emit', 'start'],
      ['approval-1', 2, 'emit', 'end'],
    ]);

    // Nothing is shared: changing the new run cannot reach the gated one.
    (approved.claims[0] as { text: string }).text = 'edited';
    expect(gated).toEqual(record);
  });

  it('refuses to approve a run that is not awaiting approval', async () => {
    const emitted = await orchestrator.run({ question: 'Can we raise the report-scheduler job deadline to 60 minutes?', workload: 'change' });
    expect(emitted.terminal).toBe('emit');
    expect(() => createApprovalRun(emitted)).toThrow(NotAwaitingApprovalError);
    const approved = createApprovalRun(gated);
    expect(() => createApprovalRun(approved)).toThrow(/ended in emit, not await_approval/);
  });
});
