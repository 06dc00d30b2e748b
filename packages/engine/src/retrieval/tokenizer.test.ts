import { describe, expect, it, vi } from 'vitest';
import { HashingEmbedder } from './hashing-embedder.ts';
import { CAMEL_CASE_NAME, contentTerms, MAX_STEMMED_LENGTH, stem, tokenize } from './tokenizer.ts';

// The length of every word handed to Porter2. Its suffix rules take time in the square of a word's length (S-211), so
// which words reach it is what these tests read, not a clock. A word no test here should hand it (over 1,000 letters)
// comes back as it is, so the old code fails these assertions instead of running for minutes.
const porter2Lengths = vi.hoisted(() => [] as number[]);
vi.mock('wink-porter2-stemmer', async (importOriginal) => {
  const real = (await importOriginal<{ default: (word: string) => string }>()).default;
  return {
    default: (word: string) => {
      porter2Lengths.push(word.length);
      return word.length > 1_000 ? word : real(word);
    },
  };
});

/** Long words as their first letters and length, so a failure prints a line, not 100,000 letters. */
const short = (words: readonly string[]) => words.map((w) => (w.length > 40 ? `${w.slice(0, 12)}…(${w.length})` : w));

describe('stemming a word of any length (S-211)', () => {
  it('keeps a run of letters longer than any word whole, as an identifier, without Porter2', () => {
    const long = `${'a'.repeat(200_000)}ing`;
    porter2Lengths.length = 0;
    expect(stem(long) === long).toBe(true);
    expect(short(tokenize(`why is ${long} failing?`))).toEqual(short([long, 'fail']));
    expect(short(contentTerms(long))).toEqual(short([long]));
    // The investigation's similarity search embeds each line of an uploaded file: a line of one long run of letters.
    const vector = new HashingEmbedder().embedOne(`${'ab'.repeat(100_000)}s`);
    expect(Math.hypot(...vector)).toBeCloseTo(1, 5);
    expect(porter2Lengths.filter((n) => n > 1_000)).toEqual([]);
  });

  it('stems a word up to the bound as before, and one letter past it not at all', () => {
    const word = (length: number) => `${'ab'.repeat(length).slice(0, length - 3)}ing`;
    porter2Lengths.length = 0;
    expect(stem(word(MAX_STEMMED_LENGTH))).toBe(word(MAX_STEMMED_LENGTH).slice(0, -3));
    expect(stem(word(MAX_STEMMED_LENGTH + 1))).toBe(word(MAX_STEMMED_LENGTH + 1));
    expect(porter2Lengths).toEqual([MAX_STEMMED_LENGTH]);
    // Ordinary words, and the longest name the evaluation corpora write in letters alone (58, a CamelCase name lower-cased).
    expect(['exhausted', 'exhaustion', 'crashlooping', 'timeouts'].map(stem)).toEqual(['exhaust', 'exhaust', 'crashloop', 'timeout']);
    expect(stem('searchstoragepersistentvolumeclaimresourcesrequestsstorage')).toBe('searchstoragepersistentvolumeclaimresourcesrequestsstorag');
  });
});

/** The pattern CAMEL_CASE_NAME replaced (S-211): the same words, found in time exponential in a run of capitals. */
const CAMEL_CASE_NAME_BEFORE = /\b(?:[A-Z]+[a-z0-9]+|[A-Z]{2,}(?=[A-Z][a-z]))(?:[A-Z]+[a-z0-9]*)+\b/g;
const matches = (re: RegExp, text: string) => [...text.matchAll(re)].map((m) => `${m.index}:${m[0]}`);

describe('CamelCase names (S-211)', () => {
  it('finds exactly the names the pattern it replaced found', () => {
    const alphabet = ['A', 'B', 'a', '1', '_', '-', ' ', 'é'];
    let texts = [''];
    for (let length = 1; length <= 5; length++) {
      texts = texts.flatMap((t) => alphabet.map((c) => t + c));
      for (const text of texts) expect(matches(CAMEL_CASE_NAME, text), text).toEqual(matches(CAMEL_CASE_NAME_BEFORE, text));
    }
    const written = 'DiskUsageHigh, ContainerRegistryDBConnPoolSaturationTooHigh and OOMKilled; KubePodCrashLooping_total, HTTP, p99, XMLHttpRequest2';
    expect(matches(CAMEL_CASE_NAME, written)).toEqual(matches(CAMEL_CASE_NAME_BEFORE, written));
    expect(matches(CAMEL_CASE_NAME, written).map((m) => m.split(':')[1])).toEqual([
      'DiskUsageHigh',
      'ContainerRegistryDBConnPoolSaturationTooHigh',
      'OOMKilled',
      'XMLHttpRequest2',
    ]);
  });

  it('reads a word with a long run of capitals once', () => {
    // The old pattern tried every split of the capitals when the word went on with `_`: 26 of them took about half a
    // second, and each one more doubled it. The only measure of that is time; these answer at once here.
    const run = 'A'.repeat(100_000);
    expect(short(matches(CAMEL_CASE_NAME, `Aa${run}_`))).toEqual([]);
    expect(short(matches(CAMEL_CASE_NAME, `why Aa${run}?`))).toEqual(short([`4:Aa${run}`]));
    expect(short(tokenize(`Aa${run}_ ${'Ab'.repeat(50_000)}A_`))).toEqual(short([`aa${run.toLowerCase()}`, `${'ab'.repeat(50_000)}a`]));
  });
});
