import { isStopword, stem } from './tokenizer.ts';

/** A question word read as a library term: what a reason tells the person who typed it. */
export interface Respelling {
  /** The word as the question wrote it. */
  readonly written: string;
  /** The library's index term it was read as (a stem). */
  readonly read: string;
  /** The library's own word with that stem nearest the slip: what the question is read with, and what a reason names. */
  readonly as: string;
}

export interface Respelled {
  /** The question with each respelled word replaced by the term it was read as. */
  readonly text: string;
  readonly respellings: readonly Respelling[];
  /** Words left as written that may be slips all the same: what a refusal offers the asker to type again (S-179). */
  readonly nearMisses: readonly NearMiss[];
}

/**
 * A question word the library never uses, one edit from words it does, and not read as any of them: too short to read
 * safely, a word a dictionary knows, or near more than one (S-179).
 */
export interface NearMiss {
  /** The word as the question wrote it. */
  readonly written: string;
  /** Where the question wrote it (the offset of its first letter), so that it alone is typed again (S-180). */
  readonly at: number;
  /** The library's own words one edit from it (its spelling of each term nearest the word), at most `MAX_OFFERED`. */
  readonly library: readonly string[];
}

/**
 * Issue 9, class 5: ordinary wording refused — and at 3am the wording has slips of the keys. "why is the conection pool
 * exhausted" was measured without its subject: "conection" is no word of the library, so the closest passage "never
 * mentions" it and the question was refused beside the runbook that answers it.
 *
 * A question word is read as a library term only when all of these hold, so that what the library does not hold is
 * never read as something it does (a confident answer about the wrong thing is the failure this product exists to
 * prevent): it is plain letters, at least `MIN_LENGTH` long, not a stopword, and no contraction typed without its
 * apostrophe; the library does not use it; no dictionary here knows it (WordNet, the word vectors' English), so it is
 * not a word the library merely lacks — an absent topic stays absent; and exactly one library term is one edit from
 * it (a letter left out, added, changed, or two swapped), compared as written with the library's words and as stemmed
 * with its terms. A name is never respelled: a word with digits, hyphens, dots or inner capitals is a name as
 * written, and an unknown name stays unknown (S-121).
 *
 * As written, not only as stemmed (S-174): the stemmer reads a misspelt word by its misspelt ending, so the slip's stem
 * is often further from the library's term than the slip is from the word. "securtiy" stems to itself and "security"
 * to "secur"; "incidnts" keeps its "t" where "incidents" loses "ents"; "rotaiton" keeps what "rotation" sheds. Two
 * edits or more apart as stems, each is one edit from the library's word. Over the typed questions of the seen
 * corpora, most slips of six letters and more that S-173 left were of this kind.
 */
export class Respeller {
  #neighbours: Neighbours | null = null;

  constructor(
    /** The library's index terms. */
    private readonly terms: () => Iterable<string>,
    /** Whether the library uses an index term. */
    private readonly knows: (term: string) => boolean,
    /** Whether a lower-case word is a word of the language (of any library, or none). */
    private readonly isWord: (word: string) => boolean,
    /** The library's text, whose words (as written) a slip is compared with. */
    private readonly texts: () => Iterable<string> = () => [],
  ) {}

  /**
   * Builds now what the first question with a slip would build: the neighbour index reads the whole library's text
   * (S-174), so on a large library that first question waited on it. A service calls this before it is ready.
   */
  prepare(): void {
    this.#index();
  }

  respell(question: string): Respelled {
    // Retrieval and the features each read the question: the second read is the first's answer.
    if (this.#last?.question === question) return this.#last.respelled;
    const respelled = this.#respell(question);
    this.#last = { question, respelled };
    return respelled;
  }

  #last: { readonly question: string; readonly respelled: Respelled } | null = null;

  #respell(question: string): Respelled {
    const respellings: Respelling[] = [];
    const nearMisses: NearMiss[] = [];
    const text = question.replace(PLAIN_WORD, (written: string, at: number) => {
      const unknown = this.#unknown(written);
      if (unknown === null) return written;
      const found = this.#oneEditFrom(unknown.word, unknown.term);
      const read = written.length >= MIN_LENGTH ? this.#readAs(unknown.word, found) : null;
      if (read !== null) {
        respellings.push({ written, ...read });
        return read.as;
      }
      // S-179: not read, but offered.
      if (found.size && found.size <= MAX_OFFERED && !ACRONYM.test(written)) nearMisses.push({ written, at, library: this.#offered(unknown.word, found) });
      return written;
    });
    return { text, respellings, nearMisses };
  }

  /** A word that may be a slip: plain letters, no name, no stopword or contraction, and neither the library nor a dictionary knows it. */
  #unknown(written: string): { word: string; term: string } | null {
    if (written.length < MIN_OFFERED_LENGTH || /[a-z][A-Z]/.test(written)) return null;
    const word = written.toLowerCase();
    const term = stem(word);
    if (isStopword(word) || isStopword(term) || unapostrophed(word) || this.knows(term) || this.isWord(word)) return null;
    return { word, term };
  }

  /** The one term a slip is one edit from, read as itself; none where it is near two (the slip is ambiguous) or none. */
  #readAs(word: string, found: ReadonlySet<string>): { read: string; as: string } | null {
    if (found.size !== 1) return null;
    const [read] = found as unknown as [string];
    // The term must read as itself, or the tokenizer would make it another.
    if (stem(read) !== read) return null;
    return { read, as: nearest(word, this.#index().spellings.get(read)) ?? read };
  }

  /**
   * S-179: the library's words one edit from a word it never uses that was not read as any, for a refusal to offer:
   * "faled" (too short to read: "legit" is one from "logit" too) or "servce" (service or serve). Offered, never read:
   * the verdict stands on the question as typed, and the asker chooses. Not a word a dictionary knows (#unknown): on the
   * seen corpora's clean questions that offered "skipped" for "shipped" and "file" for "fire", noise beside a refusal. A
   * word in capitals is an acronym, and a word under four letters has too many neighbours for an offer to help; so does
   * one with more than `MAX_OFFERED`.
   */
  #offered(word: string, found: ReadonlySet<string>): readonly string[] {
    const { spellings, shortSpellings } = this.#index();
    return [...new Set([...found].map((t) => nearest(word, [...(spellings.get(t) ?? []), ...(shortSpellings.get(t) ?? [])]) ?? t))];
  }

  /** Every library term one edit from a word, by its stem or by the library's words as written. */
  #oneEditFrom(word: string, term: string): Set<string> {
    const { terms, words } = this.#index();
    const found = new Set<string>();
    for (const key of [term, ...deletions(term)]) for (const c of terms.get(key) ?? []) if (editDistance(term, c) === 1) found.add(c);
    for (const key of [word, ...deletions(word)]) for (const w of words.get(key) ?? []) if (editDistance(word, w) === 1) found.add(stem(w));
    return found;
  }

  /**
   * Each term of plain letters, and each word of the library's text, under itself and under each deletion of one letter
   * (a symmetric-delete index); and, per term, the library's own spellings of it (its words with that stem).
   */
  #index(): Neighbours {
    if (this.#neighbours) return this.#neighbours;
    const add = (index: Map<string, string[]>, term: string) => {
      for (const key of new Set([term, ...deletions(term)])) {
        const list = index.get(key);
        if (list) list.push(term);
        else index.set(key, [term]);
      }
    };
    const terms = new Map<string, string[]>();
    // Short terms too: a slip is read as nothing where it is also an edit from one ("servce": serve or service).
    for (const term of this.terms()) if (/^[a-z]{3,}$/.test(term)) add(terms, term);
    const words = new Map<string, string[]>();
    const spellings = new Map<string, string[]>();
    const shortSpellings = new Map<string, string[]>();
    const seen = new Set<string>();
    for (const text of this.texts()) {
      for (const [written] of text.matchAll(/[A-Za-z]+/g)) {
        // A word shorter than MIN_OFFERED_LENGTH - 1 is two edits or more from any word respelled or offered (and a
        // word under MIN_LENGTH - 1 from any respelled, so reading is as before); a word with inner capitals is a name
        // (PgBouncer), never what a slip is read as.
        if (written.length < MIN_OFFERED_LENGTH - 1 || /[a-z][A-Z]/.test(written)) continue;
        const w = written.toLowerCase();
        if (seen.has(w)) continue;
        seen.add(w);
        const t = stem(w);
        if (!this.knows(t)) continue;
        // A short spelling is kept apart: a reading names the nearest of the spellings it named before (S-175).
        const of = w.length < MIN_LENGTH - 1 ? shortSpellings : spellings;
        const same = of.get(t);
        if (same) same.push(w);
        else of.set(t, [w]);
        add(words, w);
      }
    }
    this.#neighbours = { terms, words, spellings, shortSpellings };
    return this.#neighbours;
  }
}

interface Neighbours {
  readonly terms: Map<string, string[]>;
  readonly words: Map<string, string[]>;
  readonly spellings: Map<string, string[]>;
  /** Spellings under MIN_LENGTH - 1 letters, which only an offer names. */
  readonly shortSpellings: Map<string, string[]>;
}

/**
 * The library's spelling of the term nearest the slip, the first written of equals: the one a reason names and the
 * question is read with. The first with the stem was named before, and a reason that says the slip is "one edit from a
 * word the library uses" named a word two or more from it ("conection" as the library's "connected").
 */
function nearest(slip: string, spellings: readonly string[] | undefined): string | undefined {
  let best: string | undefined;
  let distance = Number.POSITIVE_INFINITY;
  for (const w of spellings ?? []) {
    const d = editDistance(slip, w);
    if (d < distance) [best, distance] = [w, d];
  }
  return best;
}

/**
 * Shorter words are read as they are. Under five letters a word has too many neighbours one edit away to be read as
 * any one of them ("perf" is one from "pref", "peer" and "per"). At five, the words of the trade no dictionary holds
 * are as common as slips: on the questions of the seen corpora "legit" was read as "logit" and "param" as "paramt"
 * (S-173's development reading, before its judge). So six.
 */
const MIN_LENGTH = 6;

/** An acronym, in capitals, or its plural ("PDBs"): a name as written, no slip to offer a word for. */
const ACRONYM = /^[A-Z]{2,}s?$/;

/** A word offered from four letters ("aert": alert), where one is read from `MIN_LENGTH`. */
const MIN_OFFERED_LENGTH = 4;

/** More library words than this one edit away, and the word is near too much for an offer to say which it meant. */
const MAX_OFFERED = 3;

/** A contraction typed without its apostrophe ("thats", "doesnt", "theyre") is a word: "thats" was read as "chat". */
function unapostrophed(word: string): boolean {
  return CONTRACTED.some((end) => word.endsWith(end) && isStopword(word.slice(0, -end.length)));
}
const CONTRACTED = ['nt', 's', 're', 've', 'll', 'd', 'm'];

/** A word of plain letters standing alone: not part of a name with digits, hyphens, dots, slashes or underscores. */
const PLAIN_WORD = /(?<![\w./-])[A-Za-z]+(?![\w/-]|\.\w)/g;

function deletions(s: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < s.length; i++) out.push(s.slice(0, i) + s.slice(i + 1));
  return out;
}

/** Optimal string alignment distance: insertions, deletions, substitutions and swaps of two neighbours. */
export function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 2) return 3;
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}
