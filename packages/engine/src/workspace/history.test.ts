import { describe, expect, it } from 'vitest';
import { replayHistory, turnInput } from './history.ts';

/** Seed #17's three cases, each seen red first (history ignored, window ignored, tool entries kept). */
describe('cross-turn memory (seed #17)', () => {
  const turn1 = [
    { role: 'user' as const, text: 'Why is checkout getting 502s from orders-db?' },
    { role: 'tool' as const, text: 'search_files orders-db -> app.log:4312 …' },
    { role: 'reasoning' as const, text: 'the pool looks exhausted' },
    { role: 'assistant' as const, text: 'app.log line 4312: "ERROR orders-db connection pool exhausted" [app.log:4312-4318]' },
  ];

  it("turn 2's input holds turn 1's user and assistant text, then the new message", () => {
    expect(turnInput(turn1, 'and when did it start?', 40)).toEqual([
      { role: 'user', content: 'Why is checkout getting 502s from orders-db?' },
      { role: 'assistant', content: 'app.log line 4312: "ERROR orders-db connection pool exhausted" [app.log:4312-4318]' },
      { role: 'user', content: 'and when did it start?' },
    ]);
  });

  it('excludes tool calls and reasoning from the replay', () => {
    const replayed = replayHistory(turn1, 40);
    expect(replayed.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(JSON.stringify(replayed)).not.toMatch(/search_files|looks exhausted/);
  });

  it('windows by HISTORY_MAX_MESSAGES: old turns drop, and a window never opens on an answer', () => {
    const many = Array.from({ length: 10 }, (_, i) => [
      { role: 'user' as const, text: `q${i}` },
      { role: 'assistant' as const, text: `a${i}` },
    ]).flat();
    expect(replayHistory(many, 4).map((m) => m.content)).toEqual(['q8', 'a8', 'q9', 'a9']);
    expect(replayHistory(many, 3).map((m) => m.content)).toEqual(['q9', 'a9']);
    expect(replayHistory(many, 0)).toEqual([]);
    expect(turnInput(many, 'next', 2).map((m) => m.content)).toEqual(['q9', 'a9', 'next']);
  });

  it('windows by HISTORY_MAX_CHARS too: a long answer ends the window, and one that fits is replayed whole', () => {
    const long = 'x'.repeat(9_000);
    const turns = [
      { role: 'user' as const, text: 'q0' },
      { role: 'assistant' as const, text: long },
      { role: 'user' as const, text: 'q1' },
      { role: 'assistant' as const, text: 'a1' },
    ];
    expect(replayHistory(turns, 40, 8_000).map((m) => m.content)).toEqual(['q1', 'a1']);
    expect(replayHistory(turns, 40, 9_006).map((m) => m.content)).toEqual(['q0', long, 'q1', 'a1']);
    expect(replayHistory(turns, 40, 9_005).map((m) => m.content)).toEqual(['q1', 'a1']);
    expect(replayHistory(turns, 40, 3).map((m) => m.content)).toEqual([]);
    expect(replayHistory(turns, 40).map((m) => m.content)).toEqual(['q1', 'a1']);
  });
});
