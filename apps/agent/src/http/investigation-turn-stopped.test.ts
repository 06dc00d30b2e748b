import { startStubOpenAIServer, type StubOpenAIServer } from '@sandscope/engine/testing';
import { appendInvestigationMessage, appendTurnEvent } from '@sandscope/store';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedInvestigations, stubProviderModel } from './testing/scripted-investigations.ts';
import { parseSse } from './testing/sse-events.ts';

/**
 * S-269: a replica shutting down stopped its runs (S-258) but not its investigation turns. A turn waiting on a slow
 * provider went on after the store closed: its stream ended with no word, and nothing said the question would never be
 * answered. S-270: such a question stayed in the conversation with nothing after it, as if its answer were coming,
 * and the next turn's model read it as answered by whatever followed. Driven in-process over PGlite, the provider a
 * stub OpenAI-compatible server that never answers (STYLE 12–13); the shutdown is the agent's own `inFlight.stop()`,
 * which `serve` calls when its grace ends (stop-serving.int.test.ts does it on a real socket).
 */
let stub: StubOpenAIServer;
let started: Awaited<ReturnType<typeof startScriptedInvestigations>>[] = [];

beforeAll(async () => {
  stub = await startStubOpenAIServer();
});
afterEach(async () => {
  for (const s of started) await s.close();
  started = [];
});
afterAll(async () => {
  await stub?.close();
});

const ANSWER = '{"claims":[],"unknown":["what the files do not say"]}';
const SHUT_DOWN = 'The agent answering it shut down (a restart or a deployment) before the answer was ready.';

/** An agent of its own (a stopped one admits nothing more), with an investigation holding one log. */
async function agentWithInvestigation() {
  const inv = await startScriptedInvestigations(stubProviderModel(stub));
  started.push(inv);
  const created = (await (await inv.call('POST', '', { title: 'checkout 502s' })).json()) as { investigation: { id: string } };
  const id = created.investigation.id;
  return { inv, id };
}

type Message = { id: number; role: string; text: string; interrupted?: { code: string; reason: string } };
const conversation = async (inv: Awaited<ReturnType<typeof startScriptedInvestigations>>, id: string) =>
  ((await (await inv.call('GET', `/${id}`)).json()) as { messages: Message[] }).messages;

/** Waits until the stub has been asked `count` requests in all: the turn's model call is in flight. */
async function providerAsked(count: number): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (stub.requests.length < count && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  expect(stub.requests.length).toBeGreaterThanOrEqual(count);
}

describe('a turn still going when the replica stops (S-269)', () => {
  it('streamed: its stream ends with event: error shutting_down, its question reads as interrupted, and no new turn is started', async () => {
    const { inv, id } = await agentWithInvestigation();
    stub.script({ kind: 'hang' });
    const asked = stub.requests.length + 1;
    const res = await inv.call('POST', `/${id}/turns`, { message: 'why did payments-api time out?' }, { stream: true });
    expect(res.status).toBe(200);
    const body = res.text();
    await providerAsked(asked);

    const stopping = Date.now();
    expect(await inv.agent.inFlight.stop()).toEqual({ stopped: 1, turns: 1, unfinished: 0 });
    expect(Date.now() - stopping).toBeLessThan(3_000);
    const events = parseSse(await body);
    const last = events.at(-1);
    expect(last?.event, JSON.stringify(events)).toBe('error');
    const { error } = last!.data as { error: { code: string; message: string } };
    expect(error.code).toBe('shutting_down');
    expect(error.message).toMatch(
      /^Turn \d+ was stopped before it finished and is recorded interrupted; your question is kept\. This agent replica is shutting down/,
    );

    // S-270: the conversation says the question was not answered, and why.
    const messages = await conversation(inv, id);
    expect(messages).toMatchObject([{ role: 'user', text: 'why did payments-api time out?', interrupted: { code: 'shutting_down', reason: SHUT_DOWN } }]);

    // A replica that is stopping starts no turn and stores no question: 503 before a stream opens, over JSON too.
    for (const stream of [true, false]) {
      const refused = await inv.call('POST', `/${id}/turns`, { message: 'and when did it start?' }, { stream });
      expect(refused.status).toBe(503);
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('shutting_down');
    }
    expect(await conversation(inv, id)).toHaveLength(1);
    expect(inv.logged.join('\n')).not.toMatch(/failed after the stream opened|\n\s+at /);
  }, 60_000);

  it('over JSON: answered 503 shutting_down, and its question reads as interrupted', async () => {
    const { inv, id } = await agentWithInvestigation();
    stub.script({ kind: 'hang' });
    const asked = stub.requests.length + 1;
    const pending = inv.call('POST', `/${id}/turns`, { message: 'why did payments-api time out?' });
    await providerAsked(asked);
    expect(await inv.agent.inFlight.stop()).toEqual({ stopped: 1, turns: 1, unfinished: 0 });
    const res = await pending;
    expect(res.status).toBe(503);
    expect(((await res.json()) as { error: { code: string; message: string } }).error).toMatchObject({
      code: 'shutting_down',
      message: expect.stringMatching(/^Turn \d+ was stopped before it finished and is recorded interrupted/),
    });
    expect(await conversation(inv, id)).toMatchObject([{ role: 'user', interrupted: { code: 'shutting_down', reason: SHUT_DOWN } }]);
  }, 60_000);
});

describe('the turn after an interrupted one (S-270)', () => {
  it("reads that the question was not answered, and an answered question's turn is not marked", async () => {
    const { inv, id } = await agentWithInvestigation();
    // A question answered, then one a shutdown stopped (its `error` event stored, as ask stores it).
    stub.script({ kind: 'reply', text: ANSWER });
    expect((await inv.call('POST', `/${id}/turns`, { message: 'what failed first?' })).status).toBe(200);
    const cut = await appendInvestigationMessage(inv.db, id, { role: 'user', text: 'why did payments-api time out?' });
    await appendTurnEvent(inv.db, {
      investigationId: id,
      turnId: cut.id,
      seq: 1,
      type: 'error',
      data: { error: { code: 'shutting_down', message: `Turn ${cut.id} was stopped before it finished and is recorded interrupted.` } },
    });

    stub.script({ kind: 'reply', text: ANSWER });
    const asked = stub.requests.length;
    expect((await inv.call('POST', `/${id}/turns`, { message: 'so why did payments-api time out?' })).status).toBe(200);
    const input = (stub.requests[asked]!.body.messages as { role: string; content: unknown }[])
      .filter((m) => m.role === 'user' || m.role === 'assistant')
      .map((m) => [m.role, typeof m.content === 'string' ? m.content : JSON.stringify(m.content)]);
    const at = input.findIndex(([, content]) => content === 'why did payments-api time out?');
    expect(at).toBeGreaterThan(0);
    expect(input[at + 1]).toEqual(['assistant', `(Not answered: ${SHUT_DOWN} The question may be asked again.)`]);
    expect(input.at(-1)).toEqual(['user', 'so why did payments-api time out?']);

    const messages = await conversation(inv, id);
    expect(messages.map((m) => [m.role, m.interrupted?.code ?? null])).toEqual([
      ['user', null],
      ['assistant', null],
      ['user', 'shutting_down'],
      ['user', null],
      ['assistant', null],
    ]);
  }, 60_000);
});
