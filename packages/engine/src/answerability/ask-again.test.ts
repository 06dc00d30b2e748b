import { describe, expect, it } from 'vitest';
import { askAgainQuestions, MAX_ASK_AGAIN, offerLine, offerLines } from './ask-again.ts';

describe('askAgainQuestions (S-180)', () => {
  it('replaces the slip where it was typed, in its case, and nothing else', () => {
    expect(askAgainQuestions('the replica lag alret fired, what do i do', [{ written: 'alret', at: 16, library: ['alert'] }])).toEqual([
      'the replica lag alert fired, what do i do',
    ]);
    // The same letters elsewhere are not the slip: only the occurrence the respeller saw is replaced.
    expect(askAgainQuestions('Alret: alret fired', [{ written: 'Alret', at: 0, library: ['alert'] }])).toEqual(['Alert: alret fired']);
  });

  it('offers one question per word the library writes, the first word first, and combines two slips', () => {
    expect(askAgainQuestions('restart the servce', [{ written: 'servce', at: 12, library: ['service', 'serve'] }])).toEqual([
      'restart the service',
      'restart the serve',
    ]);
    expect(
      askAgainQuestions('the jb is stck and faled', [
        { written: 'faled', at: 19, library: ['failed'] },
        { written: 'stck', at: 10, library: ['stuck'] },
      ]),
    ).toEqual(['the jb is stuck and failed']);
  });

  it('offers at most MAX_ASK_AGAIN questions', () => {
    const many = askAgainQuestions('aaaa bbbb', [
      { written: 'aaaa', at: 0, library: ['aaab', 'aaac', 'aaad'] },
      { written: 'bbbb', at: 5, library: ['bbba', 'bbbc'] },
    ]);
    expect(many).toHaveLength(MAX_ASK_AGAIN);
    expect(many[0]).toBe('aaab bbba');
  });

  it('offers nothing without a slip, or for a slip that is not where it says (another question’s)', () => {
    expect(askAgainQuestions('the pool is exhausted', [])).toEqual([]);
    expect(askAgainQuestions('the pool faled', [{ written: 'faled', at: 2, library: ['failed'] }])).toEqual([]);
    expect(askAgainQuestions('the pool faled', [{ written: 'faled', at: 9, library: [] }])).toEqual([]);
  });
});

describe('offerLines (S-179)', () => {
  it('says each slip once, however often it was typed; the question again replaces every time it was', () => {
    const twice = [
      { written: 'alret', at: 4, library: ['alert'] },
      { written: 'alret', at: 24, library: ['alert'] },
    ];
    expect(offerLines(twice)).toEqual([offerLine(twice[0]!)]);
    expect(askAgainQuestions('the alret fired and the alret keeps firing', twice)).toEqual(['the alert fired and the alert keeps firing']);
  });
});

describe('offerLine (S-179)', () => {
  it('names the library’s word, or each of its words', () => {
    expect(offerLine({ written: 'alret', at: 0, library: ['alert'] })).toBe(
      '“alret” is no word the library uses; it writes “alert”, one edit from it. If that is what you meant, ask again with it.',
    );
    expect(offerLine({ written: 'servce', at: 0, library: ['service', 'serve'] })).toBe(
      '“servce” is no word the library uses; it writes “service” and “serve”, each one edit from it. If one is what you meant, ask again with it.',
    );
  });
});
