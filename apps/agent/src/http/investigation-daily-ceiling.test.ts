import { startStubOpenAIServer, type StubOpenAIServer } from '@sandscope/engine/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMIT_ERROR_REMEDIES, type RefusalReason } from '../limits/limiter.ts';
import { startScriptedInvestigations, stubProviderModel } from './testing/scripted-investigations.ts';

/**
 * Issue 12, defect 1 for investigation turns: runs reserve RUN_TOKEN_BUDGET
 * from the client's daily ceiling in the step that admits them, and their
 * guard holds them to it (daily-ceiling.test.ts); turns were admitted with no
 * reservation, charged only when they ended, and their guard had no token
 * ceiling — so a burst of turns admitted before any of them was charged spent
 * the ceiling many times over. Driven in-process over PGlite, the provider a
 * stub OpenAI-compatible server billing a fixed 2,500 tokens a call (STYLE 12–13).
 */
const CEILING = 10_000;
const RESERVATION = 8_000;
const PER_TURN = { promptTokens: 2_000, completionTokens: 500 };
const CONCURRENT = 12;

let stub: StubOpenAIServer;
let investigations: Awaited<ReturnType<typeof startScriptedInvestigations>>;

beforeAll(async () => {
  stub = await startStubOpenAIServer({ fallback: { kind: 'reply', text: '{"claims":[],"unknown":["not in the files"]}', usage: PER_TURN } });
  const model = stubProviderModel(stub);
  investigations = await startScriptedInvestigations(model, {
    env: { DAILY_TOKEN_CEILING: String(CEILING), RUN_TOKEN_BUDGET: String(RESERVATION), RATE_LIMIT_MAX: '100000' },
  });
}, 120_000);

afterAll(async () => {
  await investigations?.close();
  await stub?.close();
});

describe('the daily token ceiling under concurrent investigation turns', () => {
  it(`${CONCURRENT} turns at once: what their providers serve stays within DAILY_TOKEN_CEILING plus one turn's reservation`, async () => {
    const { investigation } = (await (await investigations.call('POST', '', { title: 'burst' })).json()) as { investigation: { id: string } };
    const responses = await Promise.all(
      Array.from({ length: CONCURRENT }, () =>
        Promise.resolve(investigations.call('POST', `/${investigation.id}/turns`, { message: 'what happened?' }, { address: '203.0.113.50' })).then(
          async (res) => ({
            status: res.status,
            text: await res.text(),
          }),
        ),
      ),
    );
    let used = 0;
    let admitted = 0;
    const refused: Partial<Record<RefusalReason, number>> = {};
    for (const r of responses) {
      if (r.status !== 200) {
        expect(r.status, r.text).toBe(429);
        const { error } = JSON.parse(r.text) as { error: { code: RefusalReason; message: string } };
        expect(error.message).toBe(LIMIT_ERROR_REMEDIES[error.code]);
        refused[error.code] = (refused[error.code] ?? 0) + 1;
        continue;
      }
      admitted += 1;
      const { turn } = JSON.parse(r.text) as { turn: { mode: string; metrics: { promptTokens: number; completionTokens: number } } };
      expect(turn.mode, r.text).toBe('provider');
      used += turn.metrics.promptTokens + turn.metrics.completionTokens;
    }
    expect(admitted).toBeGreaterThan(0);
    expect(used, `${admitted} turns admitted, refused ${JSON.stringify(refused)}`).toBeLessThanOrEqual(CEILING + RESERVATION);
  }, 120_000);

  it('holds a turn to RUN_TOKEN_BUDGET: a model call that could take it past what was reserved is not made, and the turn says why', async () => {
    const { investigation } = (await (await investigations.call('POST', '', { title: 'one turn' })).json()) as { investigation: { id: string } };
    const before = stub.requests.length;
    // A model that keeps calling tools, 2,500 tokens a call: eight steps would serve 20,000.
    stub.script(...Array.from({ length: 8 }, () => ({ kind: 'tool-calls' as const, calls: [{ name: 'list_files', args: {} }], usage: PER_TURN })));
    const res = await investigations.call('POST', `/${investigation.id}/turns`, { message: 'what happened?' }, { address: '203.0.113.51' });
    const body = await res.text();
    expect(res.status, body).toBe(200);
    const { turn } = JSON.parse(body) as { turn: { mode: string; notes: string[] } };
    const served = (stub.requests.length - before) * (PER_TURN.promptTokens + PER_TURN.completionTokens);
    expect(served, JSON.stringify(turn.notes)).toBeLessThanOrEqual(RESERVATION);
    expect(turn.mode).toBe('offline');
    expect(turn.notes.join('\n')).toMatch(/budget ran out/);
  }, 60_000);
});
