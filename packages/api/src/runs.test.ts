import type { Band as EngineBand, Terminal as EngineTerminal, Verdict as EngineVerdict, Workload as EngineWorkload } from '@sandscope/engine';
import type { ProviderRunEvent } from '@sandscope/engine/orchestrator';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { type Band, type ProviderEventKind, runResultSchema, runSummarySchema, type Terminal, type Verdict, type Workload } from './runs.ts';

// The contract lists the engine's vocabularies as values (zod needs them); these fail to compile if either side moves.
expectTypeOf<Verdict>().toEqualTypeOf<EngineVerdict>();
expectTypeOf<Band>().toEqualTypeOf<EngineBand>();
expectTypeOf<Terminal>().toEqualTypeOf<EngineTerminal>();
expectTypeOf<Workload>().toEqualTypeOf<EngineWorkload>();
expectTypeOf<ProviderEventKind>().toEqualTypeOf<ProviderRunEvent['kind']>();

const escalated = {
  runId: 'r1',
  parentRunId: null,
  verdict: 'answered',
  band: 'sufficient',
  score: 9.9,
  reasons: ['escalated: the model call failed (all_providers_failed) and cannot be retried in this run'],
  answer: 'Escalated to a person: no draft could be verified against the passages.',
  claims: [],
  sources: [],
  degraded: false,
  terminal: 'escalate',
  outcome: 'escalated',
  workload: 'triage',
  risk: null,
  action: null,
};

describe('runResultSchema', () => {
  it('parses a result and keeps its outcome', () => {
    expect(runResultSchema.parse(escalated).outcome).toBe('escalated');
  });

  it('refuses a result without an outcome, or with one outside the vocabulary', () => {
    const { outcome: _, ...without } = escalated;
    expect(runResultSchema.safeParse(without).success).toBe(false);
    expect(runResultSchema.safeParse({ ...escalated, outcome: 'escalate' }).success).toBe(false);
  });
});

describe('runSummarySchema', () => {
  it('allows a run with no outcome yet (still running)', () => {
    const running = {
      id: 'r2',
      question: 'q',
      workload: 'triage',
      status: 'running',
      terminal: null,
      verdict: null,
      outcome: null,
      band: null,
      score: null,
      costUsd: 0,
      createdAt: '2026-01-01T00:00:00Z',
      parentRunId: null,
    };
    expect(runSummarySchema.parse(running).outcome).toBeNull();
  });
});
