import { sentencesOf } from '../answer/sentences.ts';
import { contentTerms } from '../retrieval/tokenizer.ts';
import type { Chunk } from '../types.ts';

/** A word that turns a statement into its denial ("is not raised", "never", "cannot", "doesn't"). */
const NEGATION = /(?<![\w-])(?:not|no|never|none|nothing|neither|nor|cannot|without)(?![\w-])|n['’]t\b/i;

const negated = (sentence: string) => NEGATION.test(sentence);
const plain = (text: string) => text.replace(/[*_`]/g, '').replace(/\s+/g, ' ').trim().toLowerCase();

interface ReadPassage {
  readonly plain: string;
  readonly sentences: readonly { readonly s: string; readonly terms: ReadonlySet<string> }[];
}
/** A passage's sentences and their words, read once per passage: every claim of every draft is checked against them. */
const readPassages = new WeakMap<object, ReadPassage>();
function readPassage(passage: Pick<Chunk, 'text'>): ReadPassage {
  let read = readPassages.get(passage);
  if (!read) {
    const sentences = sentencesOf(passage.text);
    read = { plain: plain(sentences.join(' ')), sentences: sentences.map((s) => ({ s, terms: new Set(contentTerms(s)) })) };
    readPassages.set(passage, read);
  }
  return read;
}

/**
 * The passage sentence a claim's sentence denies: the cited sentence that restates it (it shares the most of the
 * claim sentence's words, at least half of them) says "not" where the claim does not, or the other way round. A
 * provider's "The ceiling is raised during incidents" cited to "… is not raised during incidents" passed the check,
 * which looked at numbers and names only, and was shown as verified (a colleague's test, 2026-12-05; S-125). Where
 * several sentences restate it equally, one that agrees is enough. Null when none is denied.
 */
export function deniedSentence(claim: string, cited: readonly Pick<Chunk, 'text'>[]): string | null {
  const read = cited.map(readPassage);
  // A quotation cannot deny its source: an extractive claim is the passage's own sentences, which split again
  // may come apart into fragments ("Deprecated.") closest to another sentence.
  const quoted = plain(claim);
  if (read.some((r) => r.plain.includes(quoted))) return null;
  const passageSentences = read.flatMap((r) => r.sentences);
  // Clause by clause: "orders-db accepts at most 100 connections; the ceiling is raised during incidents" restates
  // two sentences, and the first alone would speak for the whole.
  for (const sentence of sentencesOf(claim).flatMap((s) => s.split(/;\s+/))) {
    const terms = contentTerms(sentence);
    // Too few words to say which sentence it restates.
    if (terms.length < 3) continue;
    let best = 0;
    let closest: string[] = [];
    for (const p of passageSentences) {
      const shared = terms.filter((t) => p.terms.has(t)).length;
      if (shared > best) [best, closest] = [shared, [p.s]];
      else if (shared === best && shared > 0) closest.push(p.s);
    }
    if (best * 2 < terms.length || closest.length === 0) continue;
    if (closest.some((s) => negated(s) === negated(sentence))) continue;
    return closest[0]!;
  }
  return null;
}
