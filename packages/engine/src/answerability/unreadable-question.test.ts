import { describe, expect, it } from 'vitest';
import { KnowledgeBase } from '../knowledge-base.ts';
import { outcomeWords } from '../orchestrator/outcome.ts';
import { unreadableWords } from '../retrieval/tokenizer.ts';
import type { SourceDocument } from '../types.ts';

/**
 * S-109 on a library this test builds: the tokenizer reads a–z and 0–9, so a question's words in another script
 * were dropped and an accented name was read in pieces; what was left was answered from another service's passage.
 * Bands are opened so that only the guard can refuse.
 */
const OPEN = { insufficientBelow: 0, sufficientAbove: 0 };
const doc = (name: string, title: string, text: string): SourceDocument => ({ doc: `${name}.md`, title, text: `# ${title}\n\n${text}\n` });

describe('a question with words the index cannot read', () => {
  const built = KnowledgeBase.build({
    bands: OPEN,
    documents: [
      doc('pool', 'orders-db connection pool', '## Ceiling\n\nThe orders-db pool ceiling is 100 connections through its pooler.'),
      doc('replicas', 'orders-db replicas', '## Replicas\n\norders-db runs one primary and 2 read replicas; replica lag pages at 30 seconds.'),
    ],
  });

  it.each([
    ['another script around a known name', '订单数据库 orders-db 的连接池上限是多少？', ['订单数据库', '的连接池上限是多少']],
    ['a service named in another script', 'What is the connection pool ceiling for события-bus?', ['события-bus']],
    ['an accented letter in a name', 'What is the connection pool ceiling for ümlaut-db?', ['ümlaut-db']],
    ['a question in German', 'Wie hoch ist das Verbindungspool-Limit für orders-db?', ['für']],
  ])('is refused as unread, naming the words, not answered from the rest: %s', async (_, question, unread) => {
    const kb = await built;
    const r = await kb.ask(question);
    expect(r.verdict).toBe('refused');
    expect(r.refusal).toBe('unread');
    expect(outcomeWords('refused', r.refusal).title).toMatch(/words the library’s index cannot read/);
    expect(r.answer).not.toMatch(/100 connections|2 read replicas/);
    for (const w of unread) expect(r.reasons[0]).toContain(`“${w}”`);
    expect(r.reasons[0]).toMatch(/cannot read .* Ask again in English/);
  });

  it('still answers a question in plain letters, typographic punctuation and all', async () => {
    const kb = await built;
    const r = await kb.ask('What’s the orders-db pool ceiling — roughly?');
    expect(r.verdict).toBe('answered');
    expect(r.answer).toMatch(/100 connections/);
  });

  it('finds the words in any script, accents in either normal form, and nothing in punctuation or emoji', () => {
    expect(unreadableWords('pool ceiling for café-db and cafe\u0301-db?')).toEqual(['café-db']);
    expect(unreadableWords('Что делать, если orders-db тормозит?')).toEqual(['Что', 'делать', 'если', 'тормозит']);
    expect(unreadableWords('What’s the p99 — “orders-db” … 🔥 ok?')).toEqual([]);
  });
});

// S-161: "what is it?" and "???!!!" were headed "Refused — the library does not answer this", a claim about a library
// that was never searched: the question has no word to look for.
describe('a question with no word to look for', () => {
  const built = KnowledgeBase.build({
    bands: OPEN,
    documents: [doc('pool', 'orders-db connection pool', '## Ceiling\n\nThe orders-db pool ceiling is 100 connections through its pooler.')],
  });

  it.each([['what is it?'], ['???!!!'], ['and what about that?']])('claims nothing of the library, and says what to ask instead: %s', async (question) => {
    const r = await (await built).ask(question);
    expect(r.verdict).toBe('refused');
    expect(r.refusal).toBe('unasked');
    expect(outcomeWords('refused', r.refusal).title).toBe('Refused — not answered: the question names nothing to look for');
    expect(r.answer).not.toMatch(/does not answer this/);
    expect(r.reasons[0]).toMatch(/no word to look for\. Ask again naming/);
  });

  // A colleague's "on call couldnt fix it, now what" was told its words were "what", "is", "it" and that the library
  // was not searched, under a printed score: an example's words, and a claim the run contradicted.
  it('quotes the question’s own words where they only say what kind of question it is', async () => {
    const r = await (await built).ask('on call couldnt fix it, now what');
    expect(r.refusal).toBe('unasked');
    expect(r.reasons[0]).toMatch(/its words \(“call”, “couldnt”, “fix”, “now”\) say what kind of question it is/);
    expect(r.answer).not.toMatch(/“is”|not searched/);
  });

  it('a question that names something the library lacks still claims the library does not answer it', async () => {
    const r = await (await built).ask('what is the zebra xylophone quota?');
    expect(r.verdict).toBe('refused');
    expect(r.refusal).toBe('absent');
  });
});
