import type { NodeEvent } from '@sandscope/api';
import { describe, expect, it } from 'vitest';
import { refusalClaim } from '../lib/refusal-claim';

const end = (node: string, data: Record<string, unknown>, seq: number): NodeEvent => ({ runId: 'r', seq, node, kind: 'end', at: '2026-12-05T00:00:00Z', data });

describe('what a run’s refusal claims (S-108)', () => {
  it('is the claim of the node that refused, adjudicate’s over assess_evidence’s', () => {
    expect(refusalClaim([end('assess_evidence', { refusal: 'unsure' }, 1)])).toBe('unsure');
    expect(refusalClaim([end('assess_evidence', { band: 'ambiguous' }, 1), end('adjudicate', { refusal: 'absent' }, 2)])).toBe('absent');
  });

  it('is none for a run that recorded none, and for a word that is no claim', () => {
    expect(refusalClaim([end('assess_evidence', { band: 'sufficient' }, 1)])).toBeNull();
    expect(refusalClaim([end('assess_evidence', { refusal: 'maybe' }, 1)])).toBeNull();
    expect(refusalClaim([{ ...end('assess_evidence', { refusal: 'unsure' }, 1), kind: 'start' }])).toBeNull();
    expect(refusalClaim([end('verify', { refusal: 'absent' }, 1)])).toBeNull();
  });
});
