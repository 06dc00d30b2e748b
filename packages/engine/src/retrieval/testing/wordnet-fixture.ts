import type { WordNetFiles, WordNetPos } from '../thesaurus.ts';

/** A synset: its words, in WordNet's order. */
type Synset = readonly string[];
/** A lemma's senses, most frequent first, and how many of them the sense-tagged corpus attests. */
type Entry = { readonly senses: readonly number[]; readonly tagged: number };

/**
 * WordNet's file format built in memory, byte offsets and all, so the thesaurus is tested on its real
 * parsing path without the 34 MB package (apps/agent/src/wordnet.test.ts reads the real one).
 */
export function wordNetFiles(spec: Partial<Record<WordNetPos, { synsets: readonly Synset[]; lemmas: Readonly<Record<string, Entry>> }>>): WordNetFiles {
  const files = {} as Record<keyof WordNetFiles, string>;
  for (const pos of ['noun', 'verb', 'adj', 'adv'] as const) {
    const s = spec[pos] ?? { synsets: [], lemmas: {} };
    let data = '  1 This software and database is being provided to you, the LICENSEE, by Princeton University\n';
    const offsets: string[] = [];
    for (const words of s.synsets) {
      const offset = String(data.length).padStart(8, '0');
      offsets.push(offset);
      const w = words.map((x) => `${x} 0`).join(' ');
      data += `${offset} 00 ${pos[0]} ${words.length.toString(16).padStart(2, '0')} ${w} 000 | a gloss\n`;
    }
    files[`data.${pos}`] = data;
    files[`index.${pos}`] = `  1 This software and database is being provided to you\n${Object.entries(s.lemmas)
      .map(([lemma, e]) => `${lemma} ${pos[0]} ${e.senses.length} 0 ${e.senses.length} ${e.tagged} ${e.senses.map((i) => offsets[i]).join(' ')}  `)
      .join('\n')}\n`;
  }
  return files;
}

/** Enough of WordNet for the tests: "exhausted" shares a sense with "depleted"; "crash"'s rare sense is not attested. */
export const wordNetFixture = wordNetFiles({
  adj: {
    synsets: [
      ['depleted', 'exhausted'],
      ['exhausted', 'tired'],
    ],
    lemmas: { depleted: { senses: [0], tagged: 1 }, exhausted: { senses: [1, 0], tagged: 2 } },
  },
  verb: {
    synsets: [
      ['fail', 'die', 'break_down'],
      ['crash', 'collapse'],
      ['crash', 'clash', 'gate-crash'],
    ],
    lemmas: { fail: { senses: [0], tagged: 1 }, die: { senses: [0], tagged: 0 }, crash: { senses: [1, 2], tagged: 1 }, collapse: { senses: [1], tagged: 1 } },
  },
});
