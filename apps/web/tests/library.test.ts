import type { Corpus } from '@sandscope/api/corpus';
import { describe, expect, it } from 'vitest';
import { libraryName, readsBundledLibrary } from '../lib/library';

const corpus = (library?: Corpus['library']): Corpus => ({
  version: 'v',
  documents: [],
  chunks: [],
  gaps: [],
  questions: { total: 0, byMechanism: {} },
  ...(library ? { library } : {}),
});

describe('which library the pages speak of (S-149)', () => {
  it('speaks of Larkspur only when the agent reads the bundled library, or cannot say (an older agent, or none)', () => {
    expect(readsBundledLibrary(corpus({ name: 'corpus', bundled: true }))).toBe(true);
    expect(readsBundledLibrary(corpus())).toBe(true);
    expect(readsBundledLibrary(null)).toBe(true);
    expect(readsBundledLibrary(corpus({ name: 'netdata-runbooks', bundled: false }))).toBe(false);
    expect(libraryName(corpus({ name: 'netdata-runbooks', bundled: false }))).toBe('netdata-runbooks');
  });
});
