import englishStopwords from 'stopwords-en/stopwords-en.json' with { type: 'json' };
import porter2 from 'wink-porter2-stemmer';

/**
 * One tokenizer for every signal (BM25, the hashing embedder, term coverage,
 * the extractive answerer), so "present in the passage" means the same thing
 * everywhere.
 */

const STOPWORDS = new Set(
  `a about above after again against all am an and any are aren't as at be because been before being below between both but by
  can cannot could did do does doing don't down during each few for from further had has have having he her here hers herself him
  himself his how i if in into is isn't it it's its itself just let me more most my myself no nor not of off on once only or other
  ought our ours ourselves out over own same she should so some such than that that's the their theirs them themselves then there
  these they this those through to too under until up very was we were what when where which while who whom why will with would
  you your yours yourself yourselves tell know say says said please need needs get got also there's what's whats`
    .split(/\s+/)
    .filter(Boolean),
);

/**
 * The Porter2 (Snowball English) stemmer for plain words, so "exhausted" meets
 * "exhaustion" and "crashlooping" meets "crashloop" (issue 9, class 5: ordinary
 * wording refused). Identifiers (digits, hyphens) are kept whole: `orders-db`
 * and `p99` are names, not English.
 */
export function stem(word: string): string {
  // A corpus repeats its words: one map lookup per occurrence, the rules and Porter2 once per distinct word
  // (index build at scale: the shape tests ran on every occurrence before the lookup, issue 11).
  let s = stems.get(word);
  if (s === undefined) {
    if (stems.size > 500_000) stems.clear();
    stems.set(word, (s = stemOnce(word)));
  }
  return s;
}

/**
 * The longest word Porter2 is asked to stem; a longer one is kept whole, as an identifier is. Porter2's suffix rules
 * are regular expressions such as `(.+)(sses)$` and `[aeiouy]+([^aeiouy]{1}.+)`, which backtrack over the whole word
 * from every position, so its time grows with the square of the word's length: the hashing embedder took seconds over a
 * line of 16,000 letters, three to four times as long as over one of 8,000. An investigation's turn embeds each line of its files, so an
 * uploaded log of one long run of letters held the agent's event loop for 82 s (80 KB), or past 20 minutes (6 MB):
 * `/healthz` waited and SIGTERM went unheard (S-211). No word or name comes near the bound: the longest run of letters in every
 * corpus, pending corpus and question set here is 64 (placeholders, "xxxx…"), the longest name 58, so nothing of that
 * length is stemmed differently. Porter2 takes about 85 µs over 100 letters.
 */
export const MAX_STEMMED_LENGTH = 100;

function stemOnce(word: string): string {
  const singular = singularCode(word);
  if (singular) return singular;
  if (word.length <= 3 || word.length > MAX_STEMMED_LENGTH || /[^a-z]/.test(word)) return word;
  return porter2(word);
}

/**
 * A code said in the plural, as its code: "sev3s" → "sev3"; and status codes ("getting 503s", "429s from the
 * gateway", "5xxs") → "503", "429", "5xx". "503s" was a word the library never uses beside a runbook that says 503,
 * and the reasons said so (issue 9, class 5; S-160). One rule for the index and for naming an entity. Only a status
 * code's shape: "30s" is a duration as written.
 */
export function singularCode(word: string): string | null {
  return /^(?:[a-z]+\d+|[1-5](?:\d\d|xx))s$/.test(word) ? word.slice(0, -1) : null;
}
const stems = new Map<string, string>();

/**
 * Contractions would otherwise leave fragments ("we're" → "re") that count as content terms. Every splitter of
 * question or passage text into words goes through this: `plainWords` (the word-vector words) did not, so "what's
 * the default ttl?" carried a content word "s" that "what is the default ttl?" did not, and the two were rated
 * 81% and 92% on the same passage (S-050).
 */
export function expandContractions(lower: string): string {
  return lower
    .replace(/\bcan['’]t\b/g, 'cannot')
    .replace(/\bwon['’]t\b/g, 'will not')
    .replace(/n['’]t\b/g, ' not')
    .replace(/['’](?:s|re|m|ve|ll|d)\b/g, '');
}

/** Raw lower-cased words, identifiers kept whole (`orders-db`, `p99`, `5xx`). */
export function words(text: string): string[] {
  return expandContractions(text.toLowerCase()).match(/[a-z0-9]+(?:[-_.][a-z0-9]+)*/g) ?? [];
}

/**
 * The words of `text` this tokenizer cannot read. It reads ASCII letters and digits (`words` above), so a word in
 * another script is dropped whole and one with an accented letter is read in pieces: "订单数据库 orders-db 的连接池上限是多少"
 * was read as "orders-db" alone and answered with orders-db's replicas, and "ümlaut-db" as the entity "mlaut-db". A
 * question is judged on every word it says or on none (the decision refuses it, S-109).
 */
export function unreadableWords(text: string): string[] {
  const all = text.normalize('NFC').match(/[\p{L}\p{N}\p{M}]+(?:[-_.'’][\p{L}\p{N}\p{M}]+)*/gu) ?? [];
  return [...new Set(all.filter((w) => /[^\x00-\x7F]/.test(w.replaceAll('’', ''))))];
}

export function isStopword(word: string): boolean {
  return STOPWORDS.has(word);
}

/**
 * A CamelCase name (`DiskUsageHigh`, and with acronyms: `ContainerRegistryDBConnPoolSaturationTooHigh`,
 * `OOMKilled`): how alerts are named. One pattern for the tokenizer and for entity naming. Names with an
 * acronym were not matched at all before, so their words were never indexed (S-032, S-018 again).
 *
 * A whole word of letters and digits (it runs from one `\b` to the next) that starts with a capital and either has a
 * capital after a small letter or digit, or opens with three capitals or more and a small letter. It was written
 * `…(?:[A-Z]+[a-z0-9]*)+\b`, the same words, but a run of capitals splits among those repetitions in every way, and
 * where the closing `\b` failed (the word went on with `_`) each split was tried: `ask "AaAAAAAAAAAAAAAAAAAAAAAAAAAAAA_"`,
 * 31 characters, took 15 s longer than any other question, each capital more doubled it, and the agent's event loop
 * waited all that while (S-211).
 * Here each alternative can match one way only, so a word costs time in proportion to its length.
 */
export const CAMEL_CASE_NAME = /\b(?:[A-Z]+[a-z0-9]+[A-Z]|[A-Z]{2,}(?=[A-Z][a-z]))[A-Za-z0-9]*\b/g;

/** The words of a CamelCase name: `DBConnPool` → DB, Conn, Pool; `OOMKilled` → OOM, Killed. */
export function camelParts(name: string): string[] {
  return name.split(/(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])/).map((p) => p.toLowerCase());
}

/** The words of each CamelCase name in `text` (`DiskUsageHigh` → disk, usage, high), keyed by the name lower-cased. */
function camelCaseParts(text: string): Map<string, string[]> | null {
  let parts: Map<string, string[]> | null = null;
  for (const m of text.matchAll(CAMEL_CASE_NAME)) {
    parts ??= new Map();
    parts.set(m[0].toLowerCase(), camelParts(m[0]));
  }
  return parts;
}

/**
 * Index terms: stemmed non-stopwords; a hyphenated identifier contributes itself
 * and its parts, so `orders-db` matches a query for "orders db" and vice versa.
 * A CamelCase alert name does the same (`DiskUsageHigh` also indexes disk, usage,
 * high): an engineer pastes the alert, the runbook describes it in words, and
 * without its parts the name shared no term with either (S-018).
 */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  const camel = camelCaseParts(text);
  for (const w of words(text)) {
    const info = wordInfo(w);
    if (info === STOP) continue;
    out.push(info.stem);
    if (info.parts) for (const p of info.parts) out.push(p);
    else if (!info.separated && camel) {
      const parts = camel.get(w);
      if (parts) for (const part of parts) if (part && !STOPWORDS.has(part)) out.push(stem(part));
    }
  }
  return out;
}

/** What tokenize makes of one lower-cased word, worked out once per distinct word (issue 11: index build at scale). */
interface WordInfo {
  readonly stem: string;
  /** An identifier's parts, stemmed, stopwords dropped (`orders-db` → order, db). */
  readonly parts: readonly string[] | null;
  /** Has a hyphen, underscore or dot: its parts come from those, never from a CamelCase spelling. */
  readonly separated: boolean;
}
const STOP: WordInfo = { stem: '', parts: null, separated: false };
const wordInfos = new Map<string, WordInfo>();

function wordInfo(w: string): WordInfo {
  let info = wordInfos.get(w);
  if (info === undefined) {
    if (STOPWORDS.has(w)) info = STOP;
    else {
      const separated = /[-_.]/.test(w);
      const parts = separated
        ? w
            .split(/[-_.]/)
            .filter((p) => p && !STOPWORDS.has(p))
            .map(stem)
        : null;
      info = { stem: stem(w), parts, separated };
    }
    if (wordInfos.size > 500_000) wordInfos.clear();
    wordInfos.set(w, info);
  }
  return info;
}

/**
 * Words that say what KIND of question it is ("described", "mean", "say"),
 * not what it is about: the published stopwords-en list, used as is for
 * questions only (never for indexing). A question term absent from the corpus
 * is evidence of a gap only if it carries topic; these do not.
 */
const QUESTION_STOPWORDS = new Set<string>(englishStopwords as string[]);

/** The distinct content terms of a question (what coverage and concentration are measured over). */
export function contentTerms(text: string): string[] {
  const terms = new Set<string>();
  for (const w of words(text)) if (!STOPWORDS.has(w) && !QUESTION_STOPWORDS.has(w)) terms.add(stem(w));
  return [...terms];
}
