import { startStubOpenAIServer, type StubOpenAIServer } from '@sandscope/engine/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedInvestigations, stubProviderModel } from './testing/scripted-investigations.ts';

/**
 * Seed #17's window counted messages (HISTORY_MAX_MESSAGES, 40), not their
 * size: a model's answer can hold any number of unknowns of up to 500
 * characters each, so one long answer replayed made every later turn's prompt
 * too big for the turn's budget (RUN_TOKEN_BUDGET; the prompt is priced at a
 * token a byte) — the model was never called again and the offline planner
 * answered, turn after turn, until 40 messages had passed.
 * Driven in-process over PGlite, the provider a stub OpenAI-compatible server (STYLE 12–13).
 */
const LONG_ANSWER = JSON.stringify({ claims: [], unknown: Array.from({ length: 40 }, (_, i) => `${i} ${'the files do not say this. '.repeat(18)}`) });

let stub: StubOpenAIServer;
let investigations: Awaited<ReturnType<typeof startScriptedInvestigations>>;

beforeAll(async () => {
  stub = await startStubOpenAIServer();
  const model = stubProviderModel(stub);
  investigations = await startScriptedInvestigations(model, { env: { RATE_LIMIT_MAX: '1000' } });
}, 120_000);

afterAll(async () => {
  await investigations?.close();
  await stub?.close();
});

interface Turn {
  mode: string;
  answer: string;
  notes: string[];
}

async function ask(id: string, message: string): Promise<Turn> {
  const res = await investigations.call('POST', `/${id}/turns`, { message });
  const body = await res.text();
  expect(res.status, body).toBe(200);
  return (JSON.parse(body) as { turn: Turn }).turn;
}

describe('the history a turn replays', () => {
  it('is windowed by size too: after long answers the model is still called, and sent a bounded prompt', async () => {
    const { investigation } = (await (await investigations.call('POST', '', { title: 'long answers' })).json()) as { investigation: { id: string } };
    for (let n = 1; n <= 3; n++) {
      stub.script({ kind: 'reply', text: LONG_ANSWER });
      const turn = await ask(investigation.id, `question ${n}: what do the files not say?`);
      expect(turn.mode, turn.notes.join('\n')).toBe('provider');
      expect(turn.answer.length).toBeGreaterThan(19_000);
    }
    const before = stub.requests.length;
    stub.script({ kind: 'reply', text: '{"claims":[],"unknown":["still nothing"]}' });
    const fourth = await ask(investigation.id, 'question 4: and now?');
    expect(fourth.mode, fourth.notes.join('\n')).toBe('provider');
    const sent = stub.requests.slice(before)[0]?.body.messages as { role: string; content: unknown }[];
    const replayed = JSON.stringify(sent);
    expect(replayed).toMatch(/question 4/);
    expect(replayed.length).toBeLessThan(40_000);
  }, 120_000);
});
