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
// A's reply is slow, so B's answer is stored first.
const model = new ScriptedModel('groq', [reply('answer to A', 300), reply('answer to B'), reply('answer to C')]);

beforeAll(async () => {
  investigations = await startScriptedInvestigations(model);
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
    const [a, b] = await Promise.all([call('POST', `/${id}/turns`, { message: 'question A?' }), call('POST', `/${id}/turns`, { message: 'question B?' })]);
    expect([a.status, b.status]).toEqual([200, 200]);
    const c = await call('POST', `/${id}/turns`, { message: 'question C?' });
    expect(c.status).toBe(200);
    expect(sent(2)).toEqual([
      'user: question A?',
      'assistant: Unknown: answer to A',
      'user: question B?',
      'assistant: Unknown: answer to B',
      'user: question C?',
    ]);
  });
});
