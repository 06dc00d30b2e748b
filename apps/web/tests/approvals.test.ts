import { describe, expect, it } from 'vitest';
import type { RunSummary } from '@sandscope/api';
import { approvalOf, gatedOnPage } from '../lib/approvals';

/* What the runs list says became of a gated run (lib/approvals.ts). */

const child = (id: string, terminal: 'emit' | null, createdAt: string) => ({ id, terminal, createdAt });

describe('approvalOf', () => {
  it('no child run: still awaiting approval', () => {
    expect(approvalOf([])).toEqual({ kind: 'awaiting' });
  });

  it('approved by the earliest child that reached a terminal, whatever the order given', () => {
    const children = [
      child('late', 'emit', '2026-01-01T00:00:02Z'),
      child('lost-race', null, '2026-01-01T00:00:00Z'),
      child('first', 'emit', '2026-01-01T00:00:01Z'),
    ];
    expect(approvalOf(children)).toEqual({ kind: 'approved', by: 'first' });
  });

  it('a child with no terminal is an approval that did not finish, not an approval', () => {
    expect(approvalOf([child('a', null, '2026-01-01T00:00:00Z'), child('b', null, '2026-01-01T00:00:01Z')])).toEqual({ kind: 'unfinished', by: 'b' });
  });
});

describe('gatedOnPage', () => {
  const row = (id: string, terminal: RunSummary['terminal'], parentRunId: string | null): RunSummary => ({
    id,
    question: 'q',
    workload: 'change',
    status: 'completed',
    terminal,
    verdict: 'answered',
    outcome: terminal === 'await_approval' ? 'awaiting_approval' : 'answered',
    band: 'sufficient',
    score: 1,
    costUsd: 0,
    createdAt: '2026-01-01T00:00:00Z',
    parentRunId,
  });

  it('lists each gated run with the child runs the same page shows', () => {
    const gated = gatedOnPage([
      row('child', 'emit', 'gated'),
      row('gated', 'await_approval', null),
      row('other', 'await_approval', null),
      row('orphan', 'emit', 'elsewhere'),
    ]);
    expect([...gated.keys()]).toEqual(['gated', 'other']);
    expect(gated.get('gated')?.map((c) => c.id)).toEqual(['child']);
    expect(gated.get('other')).toEqual([]);
  });
});
