import { describe, expect, it } from 'vitest';
import { createSecretScrubber, REDACTED, scrubDeep } from './secret-scrubber.ts';

/** Issue 12, defect 3: configured secrets are replaced wherever they appear, whatever they look like. */
describe('createSecretScrubber', () => {
  it('replaces every occurrence of every configured secret, longest first', () => {
    const scrub = createSecretScrubber(['correct horse battery', 'correct horse battery staple', undefined, null]);
    expect(scrub('a correct horse battery staple and a correct horse battery')).toBe(`a ${REDACTED} and a ${REDACTED}`);
  });

  it('ignores secrets too short to be one (they would eat ordinary words), and is the identity with none', () => {
    const scrub = createSecretScrubber(['k', 'abc']);
    expect(scrub('a key, abc')).toBe('a key, abc');
    expect(createSecretScrubber([])('anything')).toBe('anything');
  });

  it('scrubDeep reaches strings in nested objects and arrays, keys included, and leaves other values alone', () => {
    const scrub = createSecretScrubber(['s3cret-value-123']);
    const at = new Date(0);
    expect(scrubDeep({ a: ['x s3cret-value-123'], b: { 's3cret-value-123': 1, n: 2, ok: true, none: null }, at }, scrub)).toEqual({
      a: [`x ${REDACTED}`],
      b: { [REDACTED]: 1, n: 2, ok: true, none: null },
      at,
    });
  });
});
