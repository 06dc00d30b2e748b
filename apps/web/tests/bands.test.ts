import { describe, expect, it } from 'vitest';
import { mistakeOf, orderedBands, probability, rates, recorded, replay, type ReplayRow, replayedRates, verdictChanges } from '../lib/bands';

/*
 * The band explorer's replay (lib/bands.ts): each rule of the engine's
 * `bandVerdict`, replayed from a row's answerability and adjudicable flag.
 */

const bands = { insufficientBelow: 0.4, sufficientAbove: 0.7 };
const row = (over: Partial<ReplayRow> = {}): ReplayRow => ({
  label: 'answerable',
  band: 'sufficient',
  verdict: 'answered',
  answerability: 0.8,
  adjudicable: true,
  ...over,
});

describe('replay', () => {
  it('refuses below insufficientBelow, whatever was recorded', () => {
    expect(replay(row({ answerability: 0.39 }), bands)).toEqual({ band: 'insufficient', verdict: 'refused', estimated: false });
    expect(replay(row({ band: 'ambiguous', verdict: 'partial', answerability: 0.1 }), bands)).toMatchObject({ band: 'insufficient', verdict: 'refused' });
  });

  it('between the bands: partial when adjudicable, refused when not', () => {
    expect(replay(row({ answerability: 0.5 }), bands)).toEqual({ band: 'ambiguous', verdict: 'partial', estimated: false });
    expect(replay(row({ band: 'ambiguous', verdict: 'refused', answerability: 0.5, adjudicable: false }), bands)).toEqual({
      band: 'ambiguous',
      verdict: 'refused',
      estimated: false,
    });
  });

  it('at or above sufficientAbove: answered when adjudicable, else ambiguous with the recorded partial/refused', () => {
    expect(replay(row({ band: 'sufficient', answerability: 0.9 }), bands)).toEqual({ band: 'sufficient', verdict: 'answered', estimated: false });
    expect(replay(row({ band: 'ambiguous', verdict: 'refused', answerability: 0.9, adjudicable: false }), bands)).toEqual({
      band: 'ambiguous',
      verdict: 'refused',
      estimated: false,
    });
  });

  it('the boundaries: exactly insufficientBelow is not refused by the band; exactly sufficientAbove answers', () => {
    expect(replay(row({ answerability: 0.4 }), bands).band).toBe('ambiguous');
    expect(replay(row({ answerability: 0.7 }), bands)).toMatchObject({ band: 'sufficient', verdict: 'answered' });
  });

  it('keeps the recorded verdict when answerability is null (the bands never applied)', () => {
    // one recorded answered and one recorded refused: no band pair moves either
    for (const degraded of [
      row({ band: 'sufficient', verdict: 'answered', answerability: null }),
      row({ band: 'insufficient', verdict: 'refused', answerability: null }),
    ]) {
      expect(replay(degraded, { insufficientBelow: 0.99, sufficientAbove: 0.99 })).toEqual(recorded(degraded));
      expect(replay(degraded, { insufficientBelow: 0, sufficientAbove: 0 })).toEqual(recorded(degraded));
    }
  });

  it('a row recorded ambiguous above its own sufficientAbove had a failing best passage: no band answers it', () => {
    const blocked = row({
      band: 'ambiguous',
      verdict: 'partial',
      answerability: 0.9,
      adjudicable: true,
      recordedBands: { insufficientBelow: 0.8, sufficientAbove: 0.8 },
    });
    expect(replay(blocked, bands)).toEqual({ band: 'ambiguous', verdict: 'partial', estimated: false });
    // without the recorded bands the page cannot know; the brief's rule answers it, marked as an estimate
    expect(replay({ ...blocked, recordedBands: null }, bands)).toEqual({ band: 'sufficient', verdict: 'answered', estimated: true });
  });

  it("replays exactly when the report records whether the best passage passes (the engine's bandVerdict)", () => {
    const failsBest = row({ band: 'ambiguous', verdict: 'partial', answerability: 0.95, adjudicable: true, bestPasses: false });
    expect(replay(failsBest, bands)).toEqual({ band: 'ambiguous', verdict: 'partial', estimated: false });
    const refusedOutright = row({ band: 'insufficient', verdict: 'refused', answerability: 0.3, adjudicable: true, bestPasses: true });
    expect(replay(refusedOutright, { insufficientBelow: 0.1, sufficientAbove: 0.2 })).toEqual({ band: 'sufficient', verdict: 'answered', estimated: false });
    expect(replay(refusedOutright, { insufficientBelow: 0.1, sufficientAbove: 0.9 })).toEqual({ band: 'ambiguous', verdict: 'partial', estimated: false });
  });

  it('marks as estimated a verdict resting on a check an older report does not record', () => {
    const refusedOutright = row({ band: 'insufficient', verdict: 'refused', answerability: 0.3 });
    expect(replay(refusedOutright, bands).estimated).toBe(false);
    expect(replay(refusedOutright, { insufficientBelow: 0.1, sufficientAbove: 0.2 })).toEqual({ band: 'sufficient', verdict: 'answered', estimated: true });
    expect(replay(refusedOutright, { insufficientBelow: 0.1, sufficientAbove: 0.9 })).toEqual({ band: 'ambiguous', verdict: 'partial', estimated: true });
  });

  it('treats crossed bands as the same pair in order (the band between cannot be negative)', () => {
    expect(orderedBands({ insufficientBelow: 0.7, sufficientAbove: 0.4 })).toEqual(bands);
    const r = row({ answerability: 0.5 });
    expect(replay(r, { insufficientBelow: 0.7, sufficientAbove: 0.4 })).toEqual(replay(r, bands));
  });
});

describe('rates and changes', () => {
  const rows: ReplayRow[] = [
    row({ label: 'answerable', answerability: 0.9 }),
    row({ label: 'answerable', band: 'insufficient', verdict: 'refused', answerability: 0.35 }),
    row({ label: 'unanswerable', band: 'insufficient', verdict: 'refused', answerability: 0.2 }),
    row({ label: 'unanswerable', band: 'sufficient', verdict: 'answered', answerability: 0.75 }),
  ];

  it('counts false answers over unanswerable, false refusals over answerable, deferral over all', () => {
    expect(rates(rows, recorded)).toMatchObject({ falseAnswerRate: 0.5, falseRefusalRate: 0.5, deferralRate: 0, n: 4 });
    // raise the answer line past 0.75 and lower the refusal line under 0.35: both middle rows defer
    expect(replayedRates(rows, { insufficientBelow: 0.3, sufficientAbove: 0.8 })).toMatchObject({
      falseAnswerRate: 0.5,
      falseRefusalRate: 0,
      deferralRate: 0.5,
    });
    expect(rates([], recorded)).toMatchObject({ falseAnswerRate: 0, falseRefusalRate: 0, deferralRate: 0 });
  });

  it('lists only rows whose band or verdict moved, with the mistake each makes or fixes', () => {
    const changes = verdictChanges(rows, { insufficientBelow: 0.8, sufficientAbove: 0.8 });
    expect(changes.map((c) => [c.row.answerability, c.effect])).toEqual([[0.75, 'fixes a false answer']]);
    expect(verdictChanges(rows, { insufficientBelow: 0.3, sufficientAbove: 0.3 }).map((c) => c.effect)).toEqual(['fixes a false refusal']);
    expect(verdictChanges(rows, { insufficientBelow: 0.95, sufficientAbove: 0.95 }).map((c) => c.effect)).toEqual([
      'new false refusal',
      'fixes a false answer',
    ]);
  });

  it('names mistakes the way packages/eval counts them', () => {
    expect(mistakeOf('unanswerable', 'partial')).toBe('false answer');
    expect(mistakeOf('answerable', 'refused')).toBe('false refusal');
    expect(mistakeOf('answerable', 'partial')).toBeNull();
  });
});

describe('probability', () => {
  it('reads a probability from a number or a query string, and nothing else', () => {
    expect(probability('0.25')).toBe(0.25);
    expect(probability(1)).toBe(1);
    expect(probability('1000')).toBeNull(); // an old link with a score threshold
    expect(probability('')).toBeNull();
    expect(probability(undefined)).toBeNull();
    expect(probability(Number.NaN)).toBeNull();
  });
});
