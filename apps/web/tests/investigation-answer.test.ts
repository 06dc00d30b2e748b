import { investigationMessageSchema } from '@sandscope/api/investigations';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { InvestigationAnswer } from '../components/investigation-answer';

/*
 * An answer's tool-call cards as the server renders them: a call the planner or
 * the model made to a jailed tool (seed #21) says it ran in the sandbox, and an
 * in-process tool's card does not.
 */
const message = investigationMessageSchema.parse({
  id: 2,
  role: 'assistant',
  text: 'values.json sets orders-db.pool.max = 100',
  result: {
    claims: [
      {
        text: 'values.json sets orders-db.pool.max = 100 (read with jq, run in the sandbox)',
        citations: [{ kind: 'file', path: 'values.json', startLine: 2, endLine: 2 }],
      },
    ],
    citations: [{ kind: 'file', path: 'values.json', startLine: 2, endLine: 2 }],
    toolCalls: [
      { tool: 'search_files', args: { pattern: 'pool' }, ok: true },
      { tool: 'jq', args: { filter: '.', path: 'values.json', raw: true }, ok: true, sandboxed: true },
    ],
    unknown: [],
    notes: [],
    mode: 'offline',
  },
  metrics: { promptTokens: 10, completionTokens: 5, elapsedMs: 3, costUsd: 0, provider: 'offline' },
  createdAt: '2026-11-30T15:00:00.000Z',
});

describe('tool-call cards', () => {
  it('mark the calls that ran in the sandbox, and only those', () => {
    const html = renderToStaticMarkup(createElement(InvestigationAnswer, { investigationId: 'inv-1', message }));
    const card = (tool: string) => new RegExp(`<li class="tool-card[^"]*" data-tool="${tool}">(.*?)</li>`).exec(html)?.[1] ?? '';
    expect(card('jq')).toMatch(/class="tag tag-sandboxed"[^>]*>sandboxed</);
    expect(card('search_files')).not.toMatch(/sandboxed/);
  });
});

/*
 * S-063: a turn that answers from a runbook's steps prints them as the run page does — numbered as in the runbook,
 * a command one block — not as one list of every claim, numbered by the order they were found.
 */
describe('runbook claims in a turn', () => {
  const passage = [
    '1. Stop the writers.',
    '2. Promote the replica:',
    '',
    '   ```sh',
    '   pgctl promote \\',
    '     --replica db-2',
    '   ```',
    '3. Point the pooler at db-2.',
  ].join('\n');
  const cite = { kind: 'passage', chunkId: 'failover#steps' };
  const turn = (passages: unknown[]) =>
    investigationMessageSchema.parse({
      id: 3,
      role: 'assistant',
      text: '',
      result: {
        claims: [
          { text: 'app.log line 4312: pool exhausted', citations: [{ kind: 'file', path: 'app.log', startLine: 4312, endLine: 4312 }] },
          ...['Stop the writers.', 'Promote the replica:', 'pgctl promote \\', '  --replica db-2', 'Point the pooler at db-2.'].map((text) => ({
            text,
            citations: [cite],
          })),
        ],
        citations: [cite],
        toolCalls: [],
        unknown: [],
        notes: [],
        mode: 'offline',
        ...(passages.length ? { passages } : {}),
      },
      metrics: null,
      createdAt: '2026-12-03T04:00:00.000Z',
    });
  const render = (passages: unknown[]) => renderToStaticMarkup(createElement(InvestigationAnswer, { investigationId: 'inv-1', message: turn(passages) }));

  it("are numbered as in the runbook, with the command's lines in one block that can be pasted", () => {
    const html = render([{ chunkId: 'failover#steps', doc: 'failover.md', heading: 'Steps', text: passage }]);
    const steps = [...html.matchAll(/<li value="(\d+)">.*?<\/li>/g)].map((m) => m[1]);
    expect(steps).toEqual(['1', '2', '3']);
    expect(html).toMatch(/<pre class="claim-text"><code>pgctl promote \\\n {2}--replica db-2<\/code><\/pre>/);
    expect(html).toContain('app.log line 4312: pool exhausted');
    expect(html.match(/data-citation="failover#steps"/g)).toHaveLength(4);
  });

  it('are lines of their own when the turn was stored without its passages (before they were kept)', () => {
    const html = render([]);
    expect(html).not.toMatch(/<li value=/);
    expect(html.match(/<div class="claim-prose">/g)).toHaveLength(6);
  });
});
