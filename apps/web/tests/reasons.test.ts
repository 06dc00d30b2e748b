import { NUMBERS_PREFIX } from '@sandscope/api';
import { describe, expect, it } from 'vitest';
import { splitReasons } from '../lib/reasons';

describe('splitReasons (issue 13, item 3)', () => {
  it('leads with the sentences and keeps the model’s numbers apart, without their prefix', () => {
    const r = splitReasons(['No passage in the library answers this.', `${NUMBERS_PREFIX}answerability 35% (refuse below 87%, answer from 87%)`, 'risk 0.2']);
    expect(r.plain).toEqual(['No passage in the library answers this.', 'risk 0.2']);
    expect(r.numbers).toEqual(['answerability 35% (refuse below 87%, answer from 87%)']);
  });
});
