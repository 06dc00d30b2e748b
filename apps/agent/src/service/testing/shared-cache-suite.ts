import { expect } from 'vitest';
import { appDepsOf, createApp } from '../../http/app.ts';
import { parseSse } from '../../http/testing/sse-events.ts';
import type { AgentService } from '../compose.ts';
import type { RunResultView } from '../run-views.ts';

export const SHARED_CACHE_TOKEN = 'shared-cache-token-0123456789abcdef';
const QUESTION = 'What is the connection pool ceiling for orders-db?';

async function ask(agent: AgentService): Promise<RunResultView> {
  const app = createApp(appDepsOf(agent));
  const res = await app.request('/v1/runs', {
    method: 'POST',
    headers: { authorization: `Bearer ${SHARED_CACHE_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ question: QUESTION }),
  });
  expect(res.status).toBe(200);
  const last = parseSse(await res.text()).at(-1)!;
  expect(last.event).toBe('result');
  return last.data as RunResultView;
}

const served = (result: RunResultView) => result.providers.filter((p) => p.kind === 'served').length;
const cacheHits = async (agent: AgentService) => Number(/^sandscope_cache_hits_total(?:\{[^}]*\})? (\d+)$/m.exec(await agent.metrics.render())?.[1] ?? NaN);

/**
 * Issue 11 section 2: two agent services over one shared cache backing. A
 * question answered on A — a provider served it — is answered on B from the
 * cache: B's run reaches no provider and B counts a cache hit.
 */
export async function expectAnswerOnAIsCacheHitOnB(a: AgentService, b: AgentService): Promise<void> {
  const first = await ask(a);
  expect(first.terminal).toBe('emit');
  expect(served(first)).toBeGreaterThan(0);
  expect(await cacheHits(b)).toBe(0);

  const second = await ask(b);
  expect(second.terminal).toBe('emit');
  expect(second.answer).toBe(first.answer);
  expect(served(second)).toBe(0);
  expect(await cacheHits(b)).toBeGreaterThan(0);
}
