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
