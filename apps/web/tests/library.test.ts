import { describe, expect, it } from 'vitest';
import { libraryName, readsBundledLibrary } from '../lib/library';

describe('which library the pages speak of (S-149)', () => {
  it('speaks of Larkspur only when the agent reads the bundled library, or cannot say (an older agent, or none)', () => {
    expect(readsBundledLibrary({ name: 'corpus', bundled: true })).toBe(true);
    expect(readsBundledLibrary(undefined)).toBe(true);
    expect(readsBundledLibrary(null)).toBe(true);
    expect(readsBundledLibrary({ name: 'netdata-runbooks', bundled: false })).toBe(false);
    expect(libraryName({ name: 'netdata-runbooks', bundled: false })).toBe('netdata-runbooks');
    expect(libraryName(null)).toBe('the library');
  });
});
