import type { InvestigationMessage, TurnEnd } from '@sandscope/store';
import { describe, expect, it } from 'vitest';
import { interruptedTurns, TURN_STALE_MS, unansweredNote } from './turn-interruptions.ts';

/**
 * S-270: which questions will never be answered, and why, from the conversation and how each turn's events ended.
 * The history used to show such a question with nothing after it, as if its answer were still coming.
 */
const NOW = Date.parse('2026-12-08T12:00:00Z');
const at = (msAgo: number) => new Date(NOW - msAgo).toISOString();
const METRICS = { promptTokens: 1, completionTokens: 1, elapsedMs: 1, costUsd: 0, provider: 'offline' };

const question = (id: number, msAgo = 1_000): InvestigationMessage => ({
  id,
  role: 'user',
  text: `q${id}?`,
  result: null,
  metrics: null,
  createdAt: at(msAgo),
});
const answer = (id: number, turnId?: number): InvestigationMessage => ({
  id,
  role: 'assistant',
  text: `a${id}`,
  result: turnId === undefined ? null : { turnId, claims: [] },
  metrics: METRICS,
  createdAt: at(500),
});
const end = (turnId: number, o: { answered?: boolean; error?: unknown; msAgo?: number } = {}): TurnEnd => ({
  turnId,
  answered: o.answered ?? false,
  error: o.error ?? null,
  lastEventAt: at(o.msAgo ?? 500),
});
const failed = (code: string, message = '') => ({ error: { code, message } });

describe('interruptedTurns (S-270)', () => {
  it('names a question whose turn ended with an error, in words per code, and leaves answered and running ones alone', () => {
    const messages = [question(1), answer(2, 1), question(3), question(4), question(5), question(6), question(7), question(8)];
    const ends = [
      end(1, { answered: true }),
      end(3, { error: failed('shutting_down', 'Turn 3 was stopped before it finished … Ask again: another replica answers it.') }),
      end(4, { error: failed('internal', 'An internal error in the agent; it is logged on the server.') }),
      end(5, { error: failed('store_unavailable', 'The agent cannot reach its database.') }),
      end(6, { error: failed('not_found', 'Investigation x was deleted while this turn ran; its answer was not kept. Check the id.') }),
      // Its answer's write is stored as the `result` event, the message too: answered.
      end(7, { answered: true }),
      // Still moving: it may yet be answered.
      end(8, { msAgo: 1_000 }),
    ];
    expect(Object.fromEntries(interruptedTurns(messages, ends, NOW))).toEqual({
      3: { code: 'shutting_down', reason: 'The agent answering it shut down (a restart or a deployment) before the answer was ready.' },
      4: { code: 'internal', reason: 'The turn failed on the agent (the error is in its log).' },
      5: { code: 'store_unavailable', reason: 'The agent lost its database mid-turn, so no answer was kept.' },
      6: { code: 'not_found', reason: 'Investigation x was deleted while this turn ran; its answer was not kept.' },
    });
  });

  it('names a question whose turn went silent for TURN_STALE_MS (its process killed mid-turn), with or without events', () => {
    const stale = TURN_STALE_MS + 1_000;
    const messages = [question(1, stale), question(2, stale), question(3, stale), question(4, 1_000)];
    const ends = [end(1, { msAgo: stale }), end(2, { msAgo: 1_000 })];
    const found = interruptedTurns(messages, ends, NOW);
    expect([...found.keys()]).toEqual([1, 3]);
    expect(found.get(1)).toEqual({ code: 'interrupted', reason: 'The agent answering it stopped mid-turn: no answer, and no word from it for 10 minutes.' });
  });

  it('counts an answer stored before answers named their turn as the answer to the question before it', () => {
    const old = TURN_STALE_MS * 10;
    const messages = [question(1, old), answer(2), question(3, old), question(4, old), answer(5, 4)];
    expect([...interruptedTurns(messages, [], NOW).keys()]).toEqual([3]);
  });

  it("the next turn's model reads that the question was not answered, and that it may be asked again", () => {
    expect(unansweredNote({ code: 'shutting_down', reason: 'The agent answering it shut down (a restart or a deployment) before the answer was ready.' })).toBe(
      '(Not answered: The agent answering it shut down (a restart or a deployment) before the answer was ready. The question may be asked again.)',
    );
  });
});
