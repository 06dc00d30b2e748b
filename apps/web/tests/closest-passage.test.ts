import type { NodeEvent } from '@sandscope/api';
import { describe, expect, it } from 'vitest';
import { closestPassage } from '../lib/closest-passage';

const event = (node: string, kind: NodeEvent['kind'], data: NodeEvent['data']): NodeEvent => ({
  runId: 'r',
  seq: 0,
  node,
  kind,
  at: '2026-12-05T00:00:00Z',
  data,
});

describe('closestPassage (S-107)', () => {
  it('reads the passage the decision named from the assess_evidence span that ended', () => {
    const spans = [event('assess_evidence', 'start', null), event('assess_evidence', 'end', { band: 'insufficient', closest: 'runbook-x.md#mitigation' })];
    expect(closestPassage(spans)).toBe('runbook-x.md#mitigation');
  });

  it('is null for a run recorded before the span kept it, for nothing retrieved, and for a value that is not an id', () => {
    expect(closestPassage([event('assess_evidence', 'end', { band: 'insufficient' })])).toBeNull();
    expect(closestPassage([event('assess_evidence', 'end', { closest: null })])).toBeNull();
    expect(closestPassage([event('assess_evidence', 'end', { closest: 42 })])).toBeNull();
    expect(closestPassage([event('retrieve', 'end', { closest: 'a.md#b' })])).toBeNull();
    expect(closestPassage([])).toBeNull();
  });
});
