import { feedbackResponseSchema } from '@sandscope/api';
import { expect } from 'vitest';
import { appDepsOf, createApp } from '../../http/app.ts';
import { parseSse } from '../../http/testing/sse-events.ts';
import type { AgentService } from '../compose.ts';
import type { RunResultView } from '../run-views.ts';

export const WITHDRAWN_ANSWER_TOKEN = 'withdrawn-answer-token-0123456789abcdef';
const QUESTION = 'What is the connection pool ceiling for orders-db?';

/** How a test takes the agent's semantic cache away and gives it back, and reads it past the agent. */
export interface CacheOutage {
  /** The cache stops answering (Redis down or refusing): every call the agent makes to it fails. */
  cut(): Promise<void>;
  /** The cache answers again, holding what it held before, and the agent can reach it. */
  restore(): Promise<void>;
  /** Whether the cache holds an entry under `key`, read without the agent. */
  holds(key: string): Promise<boolean>;
}

interface MarkResponse {
  readonly feedback: { readonly runId: string; readonly label: string };
  readonly cache?: { readonly removed: boolean; readonly message: string } | null;
}

/**
 * S-263 and S-264: a `wrong-answer` mark made while the semantic cache could not be reached answered 200 as if all was well
 * (the failure only logged), and once the cache was back the answer the person had marked wrong was served again, from
 * the cache, to everyone who asked alike. This walks that: answered, served from the cache, marked wrong while the
 * cache is down, the cache back with the entry still in it — and the same question is NOT answered from the cache,
 * and the mark's response said the answer could not be removed and will not be served. A fresh answer is then served
 * as any other (the withdrawal is of the answer that was marked, not of the question).
 */
export async function expectWithdrawnAnswerNotServed(agent: AgentService, outage: CacheOutage): Promise<void> {
  const app = createApp(appDepsOf(agent));
  const headers = { authorization: `Bearer ${WITHDRAWN_ANSWER_TOKEN}`, 'content-type': 'application/json' };
  const ask = async (): Promise<RunResultView> => {
    const res = await app.request('/v1/runs', { method: 'POST', headers, body: JSON.stringify({ question: QUESTION }) });
    expect(res.status).toBe(200);
    const last = parseSse(await res.text()).at(-1);
    expect(last?.event).toBe('result');
    return last!.data as RunResultView;
  };
  /** What the run's first hypothesise span says of the cache: `hit:exact`, `miss`, … and the entry's key. */
  const cacheOf = async (runId: string): Promise<{ cache: unknown; cacheKey: unknown }> => {
    const detail = (await (await app.request(`/v1/runs/${runId}`, { headers })).json()) as {
      spans: { node: string; kind: string; data: Record<string, unknown> }[];
    };
    const drafted = detail.spans.find((s) => s.node === 'hypothesise' && s.kind === 'end');
    return { cache: drafted?.data['cache'], cacheKey: drafted?.data['cacheKey'] };
  };

  const first = await ask();
  expect(first.verdict).toBe('answered');
  const again = await ask();
  const served = await cacheOf(again.runId);
  expect(served.cache).toBe('hit:exact');
  const key = served.cacheKey;
  expect(typeof key).toBe('string');

  await outage.cut();
  const res = await app.request(`/v1/runs/${again.runId}/feedback`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ label: 'wrong-answer', note: 'the ceiling is for events-bus' }),
  });
  expect(res.status).toBe(200);
  const marked = (await res.json()) as MarkResponse;
  expect(marked.feedback).toMatchObject({ runId: again.runId, label: 'wrong-answer' });
  // Told, not left to believe the answer is gone: it is not, and it is not served all the same.
  expect(marked.cache).toEqual({ removed: false, message: expect.stringMatching(/could not be removed now .*will not be served from the cache again/) });
  // As the website reads it (@sandscope/api): a field the contract lacked would be dropped here.
  expect(feedbackResponseSchema.parse(marked).cache).toEqual(marked.cache);
  await outage.restore();
  // The eviction did fail: the cache still holds the answer that was marked wrong.
  expect(await outage.holds(key as string)).toBe(true);

  const after = await ask();
  expect(await cacheOf(after.runId)).toEqual({ cache: 'miss', cacheKey: key });
  // A fresh answer, written after the mark under the same key, is served as any other.
  const fresh = await ask();
  expect(await cacheOf(fresh.runId)).toEqual({ cache: 'hit:exact', cacheKey: key });
}
