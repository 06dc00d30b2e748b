import { ScriptedModel } from '@sandscope/engine/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedInvestigations } from './testing/scripted-investigations.ts';

/**
 * Two turns of one investigation asked at once (two tabs, a double send):
 * both questions are stored before either answer, and the slower answer is
 * stored last — the conversation reads "A?, B?, B!, A!". Replayed in that
 * order (seed #17), the next turn's model read B's answer under nobody's
 * question and A's answer under B's. Driven in-process over PGlite with a
 * scripted provider that records what it was sent (STYLE 12–13).
 */
const reply = (unknown: string, delayMs = 0) => ({ kind: 'text' as const, text: JSON.stringify({ claims: [], unknown: [unknown] }), delayMs });

let investigations: Awaited<ReturnType<typeof startScriptedInvestigations>>;
const model = new ScriptedModel('groq', [reply('answer to A'), reply('answer to B'), reply('answer to C')]);
/** The question a call answers: the last user message it was sent. */
const askedIn = (options: Parameters<ScriptedModel['doGenerate']>[0]) =>
  (options.prompt.filter((m) => m.role === 'user').at(-1)?.content as { text?: string }[] | undefined)?.map((p) => p.text ?? '').join('') ?? '';
// A's turn waits before its model call, so B's answer is stored first whichever turn reaches the model first.
const slowA = Object.assign(Object.create(model) as ScriptedModel, {
  doGenerate: async (options: Parameters<ScriptedModel['doGenerate']>[0]) => {
    if (askedIn(options) === 'question A?') await new Promise((resolve) => setTimeout(resolve, 500));
    return model.doGenerate(options);
  },
});

beforeAll(async () => {
  investigations = await startScriptedInvestigations(slowA);
}, 120_000);

afterAll(() => investigations?.close());

const call = (method: string, path: string, body?: unknown) => investigations.call(method, path, body);

/** What the model was sent, as role: text lines (the system prompt left out). */
const sent = (i: number) =>
  model.calls[i]!.prompt.filter((m) => m.role !== 'system').map((m) => `${m.role}: ${(m.content as { text?: string }[]).map((p) => p.text ?? '').join('')}`);

describe('two turns of one investigation at once', () => {
  it('replays each answer after its own question on the next turn', async () => {
    const { investigation } = (await (await call('POST', '', { title: 'double send' })).json()) as { investigation: { id: string } };
    const id = investigation.id;
    // A's question is stored before B is sent (two tabs, one a moment after the other); both turns then run at once.
    const pendingA = call('POST', `/${id}/turns`, { message: 'question A?' });
    const storedMessages = async () => ((await (await call('GET', `/${id}`)).json()) as { messages: { role: string; text: string }[] }).messages;
    for (let i = 0; i < 100 && (await storedMessages()).length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    const [a, b] = await Promise.all([pendingA, call('POST', `/${id}/turns`, { message: 'question B?' })]);
    expect([a.status, b.status]).toEqual([200, 200]);
    // Which turn reaches the model first is a race (under load either can): each answer is read from its own turn's
    // response, not assumed from the script's order.
    const answers = new Map<string, string>([
      ['question A?', ((await a.json()) as { turn: { answer: string } }).turn.answer],
      ['question B?', ((await b.json()) as { turn: { answer: string } }).turn.answer],
    ]);
    const stored = await storedMessages();
    const questions = stored.filter((m) => m.role === 'user').map((m) => m.text);
    // The race the test is about: B's answer was stored before A's.
    expect(stored.map((m) => (m.role === 'user' ? m.text : answers.get('question A?') === m.text ? 'A!' : 'B!'))).toEqual([
      'question A?',
      'question B?',
      'B!',
      'A!',
    ]);
    expect(new Set(answers.values()).size).toBe(2);
    const c = await call('POST', `/${id}/turns`, { message: 'question C?' });
    expect(c.status).toBe(200);
    expect(sent(2)).toEqual([...questions.flatMap((q) => [`user: ${q}`, `assistant: ${answers.get(q)}`]), 'user: question C?']);
  });
});
