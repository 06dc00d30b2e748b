import { ScriptedModel } from '@sandscope/engine/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedInvestigations } from './testing/scripted-investigations.ts';

/**
 * A model's reply is untrusted text, and a turn stores it (the answer, the
 * notes, the unknowns in jsonb). A NUL or an unpaired surrogate in it —
 * `\u0000`, `\ud83d` are valid JSON escapes — is text Postgres refuses: the
 * turn was a 500 and its answer lost. Driven in-process over PGlite with a
 * scripted provider (STYLE 12–13).
 */
const REPLY = '{"claims":[{"text":"half an emoji \\ud83d here","citations":[]}],"unknown":["a NUL \\u0000 here"]}';

let investigations: Awaited<ReturnType<typeof startScriptedInvestigations>>;

beforeAll(async () => {
  investigations = await startScriptedInvestigations(new ScriptedModel('groq', [{ kind: 'text', text: REPLY }]));
}, 120_000);

afterAll(() => investigations?.close());

const call = (method: string, path: string, body?: unknown) => investigations.call(method, path, body);

describe("a model's reply holding text Postgres cannot store", () => {
  it('is answered and stored, the NUL and the half surrogate replaced, not a 500', async () => {
    const { investigation } = (await (await call('POST', '', { title: 'model text' })).json()) as { investigation: { id: string } };
    const res = await call('POST', `/${investigation.id}/turns`, { message: 'what happened?' });
    const body = await res.text();
    expect(res.status, body).toBe(200);
    const { turn } = JSON.parse(body);
    expect(turn.mode).toBe('provider');
    expect(turn.unknown).toEqual(['a NUL \uFFFD here']);
    expect(turn.notes.join('\n')).toMatch(/half an emoji \uFFFD here/);
    const shown = (await (await call('GET', `/${investigation.id}`)).json()) as { messages: { role: string; text: string }[] };
    expect(shown.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(shown.messages[1]!.text).toMatch(/Unknown: a NUL \uFFFD here/);
  });
});
