import { describe, expect, it } from 'vitest';
import { passagesBeside } from './passages-beside.ts';

describe('passagesBeside (S-190)', () => {
  it('keeps the closest passages an answer does not cite, most likely first, each once', () => {
    expect(passagesBeside(['a#1', 'b#2', 'c#3'], ['a#1'])).toEqual(['b#2', 'c#3']);
    expect(passagesBeside(['b#2', 'a#1', 'b#2', ''], new Set(['c#3']))).toEqual(['b#2', 'a#1']);
  });

  it('names none when the answer cites them all, or the decision named none', () => {
    expect(passagesBeside(['a#1', 'b#2'], ['b#2', 'a#1'])).toEqual([]);
    expect(passagesBeside([], ['a#1'])).toEqual([]);
  });
});
