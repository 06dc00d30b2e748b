import { decideAnswerability, type KnowledgeBase, shippedAnswerabilityModel } from '@sandscope/engine';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadCorpusSource } from './corpus-source.ts';
import { knowledgeBaseOf } from './knowledge-base-of.ts';

/**
 * Issue 9, class 6, on the shipped corpus as `ask` builds it: "what do I do when the pool alert fires?" must be
 * answered with the runbook's numbered steps, not its signals. By the alert's name the question shares no word
 * with the steps section, which is then not among the passages retrieved (S-060).
 */
describe('class 6 on the shipped corpus: the alert by name gets the runbook steps', () => {
  let kb: KnowledgeBase;
  // Class 6 is "the gate passes, but the answer misses the point": which passage answers, not whether the gate lets
  // the question through. The shipped line now refuses this question by 0.004 (answerability 0.841 against 0.845; it
  // passed by 0.0015 under the training before: DEFECT_LOG S-087), so the answer is checked under a line it clears.
  let gatePasses: KnowledgeBase;
  beforeAll(async () => {
    kb = await knowledgeBaseOf(loadCorpusSource());
    const line = { insufficientBelow: 0.5, sufficientAbove: 0.5 };
    gatePasses = await knowledgeBaseOf(loadCorpusSource(), { model: { ...shippedAnswerabilityModel(), bands: line } });
  });

  const STEPS = 'runbook-connection-pool-exhaustion#relieve-pressure-without-restarting-orders-db';

  it('quotes the steps section of the document the question is about, though it was not retrieved', async () => {
    const question = 'what do I do when OrdersDbPoolSaturated fires?';
    const examined = await gatePasses.examine(question);
    expect(examined.retrieval.results.map((r) => r.chunk.id)).not.toContain(STEPS);
    const r = await gatePasses.ask(question);
    expect(r.verdict).toBe('answered');
    expect(r.claims.flatMap((c) => c.citations)).toContain(STEPS);
    expect(r.answer).toMatch(/Roll back the offending client's most recent deploy/);
    expect(r.answer).toMatch(/svcctl scale export-worker --to 0/);
    expect(r.answer).not.toMatch(/Client dashboards show pool wait time/);
  });

  // S-059, not adopted: the same reach from a topical section in the middle of a long document quoted the document's
  // "What to do?" about something else. Only a document's lead speaks for the whole document.
  it('reaches past the retrieved passages only from the document’s lead', async () => {
    const examined = await gatePasses.examine('what do I do when OrdersDbPoolSaturated fires?');
    const f = examined.features;
    const lead = f.passages.find((p) => p.documentLead && p.result.chunk.doc === 'runbook-connection-pool-exhaustion.md')!;
    expect(decideAnswerability(f, gatePasses.model).evidence[0]!.id).toBe(STEPS);
    const midDocument = { ...f, passages: f.passages.map((p) => (p === lead ? { ...p, documentLead: false } : p)) };
    expect(decideAnswerability(midDocument, gatePasses.model).evidence[0]!.id).toBe(lead.result.chunk.id);
  });

  it('leaves a question that is no procedure as it was: a value is not swapped for the steps', async () => {
    const r = await kb.ask('what is the connection pool ceiling for orders-db?');
    expect(r.claims.flatMap((c) => c.citations)).not.toContain(STEPS);
  });
});
