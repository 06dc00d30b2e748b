import { isStopword, stem } from './tokenizer.ts';

/** A question word read as a library term: what a reason tells the person who typed it. */
export interface Respelling {
  /** The word as the question wrote it. */
  readonly written: string;
  /** The library's index term it was read as (a stem). */
  readonly read: string;
}

export interface Respelled {
  /** The question with each respelled word replaced by the term it was read as. */
  readonly text: string;
  readonly respellings: readonly Respelling[];
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
 * its stem (a letter left out, added, changed, or two swapped). A name is never respelled: a word with digits,
 * hyphens, dots or inner capitals is a name as written, and an unknown name stays unknown (S-121).
 */
export class Respeller {
  #neighbours: Map<string, string[]> | null = null;

  constructor(
    /** The library's index terms. */
    private readonly terms: () => Iterable<string>,
    /** Whether the library uses an index term. */
    private readonly knows: (term: string) => boolean,
    /** Whether a lower-case word is a word of the language (of any library, or none). */
    private readonly isWord: (word: string) => boolean,
  ) {}

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
    const text = question.replace(PLAIN_WORD, (written) => {
      const read = this.#termFor(written);
      if (read === null) return written;
      respellings.push({ written, read });
      return read;
    });
    return { text, respellings };
  }

  #termFor(written: string): string | null {
    if (written.length < MIN_LENGTH || /[a-z][A-Z]/.test(written)) return null;
    const word = written.toLowerCase();
    const term = stem(word);
    if (isStopword(word) || isStopword(term) || unapostrophed(word) || this.knows(term) || this.isWord(word)) return null;
    const found = new Set<string>();
    for (const key of [term, ...deletions(term)]) for (const c of this.#index().get(key) ?? []) if (editDistance(term, c) === 1) found.add(c);
    if (found.size !== 1) return null;
    const [read] = found as unknown as [string];
    // The term must read as itself, or the tokenizer would make it another.
    return stem(read) === read ? read : null;
  }

  /** Each term of plain letters, under itself and under each deletion of one letter (a symmetric-delete index). */
  #index(): Map<string, string[]> {
    if (this.#neighbours) return this.#neighbours;
    const index = new Map<string, string[]>();
    const add = (key: string, term: string) => {
      const list = index.get(key);
      if (list) list.push(term);
      else index.set(key, [term]);
    };
    for (const term of this.terms()) {
      // Short terms too: a slip is read as nothing where it is also an edit from one ("servce": serve or service).
      if (!/^[a-z]{3,}$/.test(term)) continue;
      add(term, term);
      for (const d of new Set(deletions(term))) add(d, term);
    }
    this.#neighbours = index;
    return index;
  }
}

/**
 * Shorter words are read as they are. Under five letters a word has too many neighbours one edit away to be read as
 * any one of them ("perf" is one from "pref", "peer" and "per"). At five, the words of the trade no dictionary holds
 * are as common as slips: on the questions of the seen corpora "legit" was read as "logit" and "param" as "paramt"
 * (S-173's development reading, before its judge). So six.
 */
const MIN_LENGTH = 6;

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
