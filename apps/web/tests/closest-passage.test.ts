import type { NodeEvent } from '@sandscope/api';
import { describe, expect, it } from 'vitest';
import { closestPassages } from '../lib/closest-passage';

const event = (node: string, kind: NodeEvent['kind'], data: NodeEvent['data']): NodeEvent => ({
  runId: 'r',
  seq: 0,
  node,
  kind,
  at: '2026-12-05T00:00:00Z',
  data,
});

describe('closestPassages (S-107, S-172)', () => {
  it('reads the passages the decision named, best first, from the assess_evidence span that ended', () => {
    const spans = [
      event('assess_evidence', 'start', null),
      event('assess_evidence', 'end', { band: 'insufficient', closest: 'runbook-x.md#mitigation', nextClosest: ['runbook-x.md#impact', 'faq.md#pool'] }),
    ];
    expect(closestPassages(spans)).toEqual(['runbook-x.md#mitigation', 'runbook-x.md#impact', 'faq.md#pool']);
  });

  it('reads the one passage of a run recorded before S-172, and skips what is not an id', () => {
    expect(closestPassages([event('assess_evidence', 'end', { closest: 'a.md#b' })])).toEqual(['a.md#b']);
    expect(closestPassages([event('assess_evidence', 'end', { closest: 'a.md#b', nextClosest: [7, '', 'a.md#b', 'c.md#d'] })])).toEqual(['a.md#b', 'c.md#d']);
  });

  it('is empty for a run recorded before the span kept it, for nothing retrieved, and for a value that is not an id', () => {
    expect(closestPassages([event('assess_evidence', 'end', { band: 'insufficient' })])).toEqual([]);
    expect(closestPassages([event('assess_evidence', 'end', { closest: null, nextClosest: ['a.md#b'] })])).toEqual([]);
    expect(closestPassages([event('assess_evidence', 'end', { closest: 42 })])).toEqual([]);
    expect(closestPassages([event('retrieve', 'end', { closest: 'a.md#b' })])).toEqual([]);
    expect(closestPassages([])).toEqual([]);
  });
});
