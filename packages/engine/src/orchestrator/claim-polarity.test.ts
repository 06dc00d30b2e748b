import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CORPUS_DIR, corpusKnowledgeBase } from './testing/corpus-fixture.ts';
import { deniedSentence } from './claim-polarity.ts';

/*
 * The polarity check (S-125) must never fail a quotation: the offline model's claims are its passages' own
 * sentences. Every question of the generated set is drafted here with the gate's bands opened, so every passage the
 * drafter would quote is met, and no draft may be read as denying what it cites.
 */
describe('deniedSentence on the offline drafts of the shipped corpus', () => {
  it('finds no offline draft that denies the passage it quotes', async () => {
    const kb = await corpusKnowledgeBase({ insufficientBelow: 0, sufficientAbove: 0 });
    const questions = readFileSync(`${CORPUS_DIR}questions.jsonl`, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => (JSON.parse(l) as { question: string }).question);
    let drafted = 0;
    const denied: string[] = [];
    for (const question of questions) {
      const r = await kb.ask(question);
      for (const claim of r.claims) {
        drafted++;
        const cited = kb.chunks.filter((c) => claim.citations.includes(c.id));
        const sentence = deniedSentence(claim.text, cited);
        if (sentence) denied.push(`${claim.text} ↔ ${sentence}`);
      }
    }
    expect(drafted).toBeGreaterThan(500);
    expect(denied).toEqual([]);
  });

  it('reads a denial in either direction, and a contraction as one', () => {
    const passage = [{ text: 'Restarting orders-db during an incident clears the connection pool.' }];
    expect(deniedSentence("Restarting orders-db during an incident doesn't clear the connection pool.", passage)).toMatch(/^Restarting/);
    expect(deniedSentence('Restarting orders-db during an incident clears the connection pool quickly.', passage)).toBeNull();
    // Too few words to say which sentence it restates.
    expect(deniedSentence('Not the pool.', passage)).toBeNull();
  });
});
