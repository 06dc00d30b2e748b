import type { NodeEvent } from '@sandscope/api';
import { describe, expect, it } from 'vitest';
import { askAgainOf, consoleHref } from '../lib/ask-again';

const event = (node: string, kind: NodeEvent['kind'], data: NodeEvent['data']): NodeEvent => ({
  runId: 'r',
  seq: 0,
  node,
  kind,
  at: '2026-12-06T00:00:00Z',
  data,
});
const QUESTION = 'restart the servce, the alret fired';

describe('askAgainOf (S-180)', () => {
  it('offers the question again with each slip assess_evidence kept replaced by the library’s word', () => {
    const spans = [
      event('assess_evidence', 'start', null),
      event('assess_evidence', 'end', {
        band: 'insufficient',
        nearMisses: [
          { written: 'servce', at: 12, library: ['service', 'serve'] },
          { written: 'alret', at: 24, library: ['alert'] },
        ],
      }),
    ];
    expect(askAgainOf(QUESTION, spans)).toEqual(['restart the service, the alert fired', 'restart the serve, the alert fired']);
  });

  it('is empty for a run recorded before S-180 or another node, and skips what is not a slip', () => {
    expect(askAgainOf(QUESTION, [event('assess_evidence', 'end', { band: 'insufficient' })])).toEqual([]);
    expect(askAgainOf(QUESTION, [event('retrieve', 'end', { nearMisses: [{ written: 'alret', at: 24, library: ['alert'] }] })])).toEqual([]);
    expect(askAgainOf(QUESTION, [event('assess_evidence', 'end', { nearMisses: 'alret' })])).toEqual([]);
    const mixed = [7, { written: 'alret', at: -1, library: ['alert'] }, { written: 'alret', at: 24, library: ['alert'] }];
    expect(askAgainOf(QUESTION, [event('assess_evidence', 'end', { nearMisses: mixed })])).toEqual(['restart the servce, the alert fired']);
    expect(askAgainOf(QUESTION, [])).toEqual([]);
  });
});

describe('consoleHref', () => {
  it('fills the console in with the question and workload, encoded', () => {
    expect(consoleHref('is the alert & the pager ok?', 'change')).toBe('/?q=is+the+alert+%26+the+pager+ok%3F&workload=change');
  });
});
