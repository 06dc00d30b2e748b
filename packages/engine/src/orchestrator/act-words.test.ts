import { describe, expect, it } from 'vitest';
import { actWordsIn, verbAt } from './act-words.ts';
import { words } from '../retrieval/tokenizer.ts';

describe('actWordsIn: act words a text mentions (reported, never scored)', () => {
  it('matches stems whole-word and names the verb canonically', () => {
    expect(actWordsIn('Restart instances one at a time; automatic failover promotes the replica; a dropdown')).toEqual(['restart', 'fail over', 'promote']);
    expect(actWordsIn('raise the ceiling and roll it out', ['change'])).toEqual(['raise']);
  });
});

describe('verbAt: an act word used as a verb, or naming a thing', () => {
  const at = (text: string, opts = {}) => verbAt(words(text), 0, opts)?.verb ?? null;

  it('takes the base form, a phrasal verb with its object between, and a gerund only when asked', () => {
    expect(at('restart it')).toBe('restart');
    expect(at('roll it back')).toBe('roll back');
    expect(at('failover session-cache')).toBe('fail over');
    expect(at('restarted it')).toBeNull();
    expect(at('restarts')).toBeNull();
    expect(at('raising the ceiling')).toBeNull();
    expect(at('raising the ceiling', { gerund: true })).toBe('raise');
    expect(at('rolling back checkout-api', { gerund: true })).toBe('roll back');
  });

  it('reads a verb that is also a noun, before a compound head or a preposition, as a noun', () => {
    expect(at('restart policy')).toBeNull();
    expect(at('failover time')).toBeNull();
    expect(at('deploy freeze')).toBeNull();
    expect(at('roll back plan')).toBeNull();
    expect(at('restart of checkout-api')).toBeNull();
    expect(at('drop in traffic')).toBeNull();
    expect(at('restart in prod')).toBe('restart');
    // A verb that is not a noun keeps its object.
    expect(at('enable request coalescing')).toBe('enable');
  });

  it('admits one slip of the keyboard on a verb of seven letters or more, and none on a shorter one', () => {
    expect(at('restrat it', { fuzzy: true })).toBe('restart');
    expect(at('upgarde it', { fuzzy: true })).toBe('upgrade');
    expect(at('rolback it', { fuzzy: true })).toBe('roll back');
    expect(at('remote access', { fuzzy: true })).toBeNull();
    expect(at('restrat it')).toBeNull();
  });
});
