import { beforeAll, describe, expect, it } from 'vitest';
import { type AskResult, KnowledgeBase, shippedAnswerabilityModel } from '../knowledge-base.ts';
import { FEATURE_NAMES, QUESTION_FEATURE_NAMES } from './features.ts';
import { NUMBERS_PREFIX } from './reason-format.ts';
import { outcomeWords } from '../orchestrator/outcome.ts';
import { FAILURE_CORPUS } from './testing/failure-corpus.ts';

/**
 * Issue 9's failure classes, each on a library this test builds itself, decided
 * by the shipped model (the same `decideAnswerability` the product and the
 * evaluation run). Every expectation here was seen to fail before the change
 * that made it pass.
 */
describe('the answerability decision on the failure classes of issue 9', () => {
  let kb: KnowledgeBase;
  const ask = (q: string): Promise<AskResult> => kb.ask(q);
  const cites = (r: AskResult) => r.claims.flatMap((c) => c.citations);
  beforeAll(async () => {
    kb = await KnowledgeBase.build({ documents: FAILURE_CORPUS });
  });

  it('class 1 — section role: a mitigation question is answered from the Mitigation section, not refused for sharing few words with it', async () => {
    const r = await ask('how do i mitigate OrdersDbPoolSaturated?');
    expect(r.verdict).not.toBe('refused');
    expect(cites(r)[0]).toBe('runbook-orders-db-pool#mitigation');
  });

  it('class 1 — an empty or placeholder section answers nothing: the question is refused, not answered from the other sections', async () => {
    const r = await ask('what is the mitigation for PaymentsDbDiskFull?');
    expect(r.verdict).toBe('refused');
    expect(r.reasons.join(' ')).toMatch(/placeholder|empty/);
  });

  it('class 1 — a section whose body is site markup alone (an include) is a placeholder too: refused, not answered with the include line (S-119)', async () => {
    const documents = FAILURE_CORPUS.map((d) =>
      d.doc === 'runbook-payments-db-disk.md'
        ? { ...d, text: d.text.replace('To be added.', '{% include_cached runbooks/payments-db-disk-mitigation.md %}') }
        : d,
    );
    expect(documents.some((d) => d.text.includes('{% include_cached'))).toBe(true);
    const r = await (await KnowledgeBase.build({ documents })).ask('what is the mitigation for PaymentsDbDiskFull?');
    expect(r.verdict).toBe('refused');
    expect(r.reasons.join(' ')).toMatch(/placeholder|empty/);
  });

  it('class 1 — an empty Mitigation merged into one passage above a full Escalation is still the section asked for (S-153)', async () => {
    const documents = FAILURE_CORPUS.map((d) =>
      d.doc === 'runbook-payments-db-disk.md'
        ? { ...d, text: `${d.text}\n## Escalation\n\nPage the payments-db owners on their rota if the volume passes 95% and attach the storage report.\n` }
        : d,
    );
    const merged = await KnowledgeBase.build({ documents });
    // The short runbook is one passage: its Mitigation's "To be added." stands above the Escalation's content.
    expect(merged.chunks.filter((c) => c.doc === 'runbook-payments-db-disk.md')).toHaveLength(1);
    const r = await merged.ask('how do I mitigate PaymentsDbDiskFull?');
    expect(r.verdict).toBe('refused');
    expect(r.reasons.join(' ')).toContain('the section asked for (“Mitigation”) is empty');
    // What the runbook does hold is still answered from it.
    const escalate = await merged.ask('who do I escalate PaymentsDbDiskFull to?');
    expect(escalate.verdict).not.toBe('refused');
    expect(escalate.answer).toMatch(/^Page the payments-db owners/);
  });

  it('class 2 — a remedy the runbook never mentions is refused, though the runbook is the right one; one it names is answered', async () => {
    const r = await ask('would restarting the load balancer help with OrdersDbPoolSaturated?');
    expect(r.verdict).toBe('refused');
    const absent = await kb.examine('would restarting the load balancer help with OrdersDbPoolSaturated?');
    expect(absent.features.intent.proposition).toEqual(['restart', 'load', 'balanc']);
    expect(absent.features.passages.find((p) => p.result.chunk.id === 'runbook-orders-db-pool#mitigation')?.propositionMissing).toBe(true);
    const named = await ask('would killing idle-in-transaction sessions help with OrdersDbPoolSaturated?');
    expect(named.verdict).not.toBe('refused');
    expect(cites(named)[0]).toBe('runbook-orders-db-pool#mitigation');
  });

  it('class 3 — an entity named in plain words is grounded: the payments database is not orders-db', async () => {
    expect(kb.lexicon.entitiesIn('what is the connection pool ceiling of the payments database?')).toEqual(['payments-db']);
    const wrong = await ask('what is the connection pool ceiling of the payments database?');
    expect(wrong.verdict).toBe('refused');
    // A fact, not a score: even with bands that would answer anything, a passage that never names the
    // entity asked about is no answer (the guard moves the answer down whatever the model says).
    const exam = await kb.examine('how do i mitigate connection pool saturation on reporting-db?');
    const anything = kb.decide(exam.features, { ...kb.model, bands: { insufficientBelow: 0, sufficientAbove: 0 } });
    expect(anything.verdict).toBe('refused');
    expect(anything.reasons.join(' ')).toMatch(/never names reporting-db/);
    const right = await ask('what is the connection pool ceiling of the orders database?');
    expect(right.verdict).not.toBe('refused');
    expect(right.answer).toMatch(/100 connections/);
  });

  it('class 3 — with an estate, a service it lacks said in plain words as its own are is not another service (S-168)', async () => {
    const service = (id: string, name: string) => ({ id, name, tier: 1, kind: 'service', owner: 'Checkout', description: `${name}.` });
    const estate = {
      company: 'Test',
      services: [service('orders-db', 'Orders DB'), service('inventory-db', 'Inventory DB'), service('checkout-api', 'Checkout API')],
      dependencies: [],
      faults: [],
      properties: [],
      policyValues: [],
    };
    const withEstate = await KnowledgeBase.build({ documents: FAILURE_CORPUS, estate });
    // "checkout" begins checkout-api and two services are databases: the checkout database is one the estate lacks.
    expect(withEstate.lexicon.entitiesIn('what is the connection pool ceiling of the checkout database?')).toEqual(['checkout-db']);
    const wrong = await withEstate.ask('what is the connection pool ceiling of the checkout database?');
    expect(wrong.verdict).toBe('refused');
    // What the closest passage plainly fails leads what is said against it, before how the rating moved (S-169).
    expect(wrong.reasons[0]).toMatch(/against it: it never names checkout-db/);
    const right = await withEstate.ask('what is the connection pool ceiling of orders-db?');
    expect(right.verdict).not.toBe('refused');
    expect(right.answer).toMatch(/100 connections/);
  });

  it('class 3 — a rule stated for a tier names every service of that tier; a service of another tier stays unnamed (S-134)', async () => {
    const policy = {
      doc: 'policy-change.md',
      title: 'Change Policy',
      text: '# Change Policy\n\nHow changes reach production, and who signs them off before they ship.\n\n## Approving a normal change\n\nA normal change needs 2 approvals in the change ticket: one from an engineer on the owning team and, for tier 1 services, one from an engineer on a different team.\n\n## Deployment windows\n\nNormal changes to tier 1 services are deployed Tuesday to Thursday between 09:00 and 16:00 UTC, when the owning team is at work to watch them.\n',
    };
    // The estate's services are written about elsewhere in the library, as they are in any real one.
    const catalogue = {
      doc: 'architecture-services.md',
      title: 'Services',
      text: '# Services\n\n## ledger-api\n\nledger-api keeps the ledger of every payment and runs 3 replicas behind the gateway, each with its own connection pool.\n\n## search-api\n\nsearch-api serves product search from an index rebuilt every night, and runs 2 replicas behind the gateway.\n',
    };
    const service = (id: string, tier: number) => ({ id, name: id, tier, kind: 'api', owner: 'Platform', description: `The ${id} service.` });
    const estate = {
      company: 'Test',
      services: [service('ledger-api', 1), service('search-api', 3)],
      dependencies: [],
      faults: [],
      properties: [],
      policyValues: [],
    };
    const tiered = await KnowledgeBase.build({ documents: [...FAILURE_CORPUS, policy, catalogue], estate });
    const named = await tiered.examine('How many approvals does a normal change to ledger-api need?');
    const rule = (e: typeof named) => e.features.passages.find((p) => p.result.chunk.text.includes('2 approvals'))!;
    expect(rule(named).missingEntities).toEqual([]);
    expect(rule(named).valueMissing).toBe(false);
    // search-api is tier 3: the rule for tier 1 says nothing of it, and without an estate nothing names ledger-api.
    expect(rule(await tiered.examine('How many approvals does a normal change to search-api need?')).missingEntities).toEqual(['search-api']);
    const untiered = await KnowledgeBase.build({ documents: [...FAILURE_CORPUS, policy, catalogue] });
    const unnamed = await untiered.examine('How many approvals does a normal change to ledger-api need?');
    expect(rule(unnamed).missingEntities).toEqual(['ledger-api']);
    // The shipped model rates the rule higher once it names the service (how high is the model's, on a library this small).
    expect(named.assessment.answerability!).toBeGreaterThan(unnamed.assessment.answerability! + 0.1);
    expect(tiered.decide(named.features).reasons.join(' ')).not.toMatch(/never names ledger-api/);
  });

  it('class 4 — a topic the library never covers is refused', async () => {
    const r = await ask('how do i renew the TLS certificate on the api gateway?');
    expect(r.verdict).toBe('refused');
  });

  it('class 5 — ordinary wording (plurals, "exhausted" for exhaustion, casual phrasing) is not refused', async () => {
    const r = await ask('orders db pool exhausted and checkouts failing, what do i do');
    expect(r.verdict).not.toBe('refused');
    expect(cites(r)[0]).toMatch(/^runbook-orders-db-pool#/);
  });

  it('class 5 — a contraction rates as the words it stands for: "what\'s" is "what is", "doesn\'t" is "does not" (S-050)', async () => {
    const pairs = [
      ["what's the pool ceiling of orders-db?", 'what is the pool ceiling of orders-db?'],
      ["why doesn't the pool recover after a rollback?", 'why does not the pool recover after a rollback?'],
    ] as const;
    for (const [contracted, plain] of pairs) {
      const [a, b] = [await ask(contracted), await ask(plain)];
      expect(a.answerability, contracted).toBe(b.answerability);
      expect(a.verdict, contracted).toBe(b.verdict);
    }
  });

  // S-160: "getting 503s on all our endpoints, what do i do" was rated without its status code — "503s" was a word
  // the library never uses beside a runbook that says 503 — and its reasons said so.
  it('class 5 — a status code said in the plural ("503s", "5xxs") is the code the runbook names', async () => {
    const gateway = await KnowledgeBase.build({
      documents: [
        ...FAILURE_CORPUS,
        {
          doc: 'runbook-edge-gateway-errors.md',
          title: 'EdgeGatewayUpstreamErrors',
          text: '# EdgeGatewayUpstreamErrors\n\nFires when the edge gateway returns 503 or other 5xx responses for more than 2% of requests.\n\n## Mitigation\n\n1. Check which upstream the 503 responses name in the gateway log.\n2. Restart that upstream with `sandctl restart UPSTREAM`.\n',
        },
      ],
    });
    for (const [plural, singular] of [
      ['the edge gateway is returning 503s, what do i do?', 'the edge gateway is returning 503, what do i do?'],
      ['the edge gateway is returning 5xxs, what do i do?', 'the edge gateway is returning 5xx, what do i do?'],
    ] as const) {
      const [a, b] = [await gateway.ask(plural), await gateway.ask(singular)];
      expect(a.answerability, plural).toBe(b.answerability);
      expect(a.verdict, plural).toBe(b.verdict);
      expect(a.reasons.join(' '), plural).not.toMatch(/never mentions “(?:503s|5xxs)”/);
    }
  });

  // Class 6 is about what the answer says once the gate lets the question through, so the gate is opened
  // for it (bands at 0): whether the trained model clears this phrasing moves with every retrain (false
  // refusals are issue 9's open target), and must not decide whether the drafting is tested at all.
  it('class 6 — "what do I do" gets the runbook steps, never the postmortem timeline or action items', async () => {
    const open = await KnowledgeBase.build({ documents: FAILURE_CORPUS, bands: { insufficientBelow: 0, sufficientAbove: 0 } });
    const r = await open.ask('What do I do when the orders-db pool alert fires?');
    expect(r.verdict).not.toBe('refused');
    expect(cites(r).every((id) => !id.startsWith('postmortem'))).toBe(true);
    expect(r.answer).toMatch(/Scale the checkout-api deployment down to 4 replicas/);
  });

  it('class 6 — a title that says "Runbook" is no section to quote: "what do I do" gets the numbered steps, not the signals merged under the title (S-054)', async () => {
    const documents = [
      {
        doc: 'runbook-queue-backlog.md',
        title: 'Runbook: Queue Backlog',
        text: [
          '# Runbook: Queue Backlog',
          '',
          'Workers and consumers exhibit this fault, most often `ingest-worker` reading from `events-bus`.',
          '',
          '## Signals of a backlog',
          '',
          '- `EventsBusLagHigh` fires when consumer lag stays above 50000 messages for 10 minutes.',
          '- `ingest-worker` logs `PollTimeout` every few seconds.',
          '',
          '## Drain the backlog without dropping messages',
          '',
          '1. Pause the `replay-job` schedule with `jobctl pause replay-job`.',
          '2. Scale `ingest-worker` to 12 replicas with `svcctl scale ingest-worker --to 12`.',
          '3. Watch consumer lag fall on the events-bus dashboard for 15 minutes.',
          '',
          'Do not purge the topic; the messages are orders.',
          '',
          '## Escalate to the stream owners',
          '',
          'If lag is still rising 30 minutes after scaling, page the `events-bus-owners` rota.',
        ].join('\n'),
      },
      ...FAILURE_CORPUS,
    ];
    const open = await KnowledgeBase.build({ documents, bands: { insufficientBelow: 0, sufficientAbove: 0 } });
    const r = await open.ask('what do I do when the ingest-worker backlog alert fires?');
    expect(r.verdict).toBe('answered');
    expect(r.answer).toMatch(/Scale `ingest-worker` to 12 replicas/);
    expect(r.answer).not.toMatch(/PollTimeout/);
    // S-056: the alert is named only where the runbook introduces it (its signals, merged under the title), so the
    // steps section fails the entity check on its own; the document the answer comes from names it, and that grounds
    // the section for the quote. The verdict is the best passage's, which names it.
    const byAlert = await open.ask('what do I do when EventsBusLagHigh fires?');
    expect(byAlert.verdict).toBe('answered');
    expect(byAlert.answer).toMatch(/Scale `ingest-worker` to 12 replicas/);
    expect(byAlert.answer).not.toMatch(/PollTimeout/);
  });

  // S-038: which of a runbook's sections the learned passage stage rates first moves with training, so the rule
  // that a procedure question is answered from its runbook's procedure section is tested under a passage stage
  // that rates the runbook's other sections above it — whatever the shipped weights happen to prefer.
  it("S-038 — an answered procedure question leads with its runbook's procedure section, even when another section of it is rated first", async () => {
    const shipped = shippedAnswerabilityModel();
    const weights = FEATURE_NAMES.map((name) => (name === 'runbookDocument' ? 5 : name === 'roleMatch' ? -5 : 0));
    const model = { ...shipped, passage: { ...shipped.passage, weights } };
    const open = await KnowledgeBase.build({ documents: FAILURE_CORPUS, model, bands: { insufficientBelow: 0, sufficientAbove: 0 } });
    const r = await open.ask('What do I do when the orders-db pool alert fires?');
    expect(r.verdict).toBe('answered');
    expect(cites(r)[0]).toBe('runbook-orders-db-pool#mitigation');
    expect(r.answer).toMatch(/Scale the checkout-api deployment down to 4 replicas/);
  });

  it('reasons lead with a sentence a person understands; the model’s numbers follow, marked to go behind a disclosure (issue 13, item 3)', async () => {
    const r = await ask('What is the TLS certificate renewal procedure?');
    expect(r.reasons[0]).not.toMatch(/^The numbers: /);
    expect(r.reasons.filter((x) => x.startsWith(NUMBERS_PREFIX))).toHaveLength(1);
    expect(r.reasons.find((x) => x.startsWith(NUMBERS_PREFIX))).toMatch(/answerability \d+% \(refuse below \d+%, answer from \d+%(?:; [^)]*)?\)/);
  });

  // S-089: offline the two lines coincide, and every refusal said "No passage in the library answers this" — also of
  // a question rated a few thousandths below the line from the runbook it names, whose numbers then read
  // "answerability 84% (refuse below 84%, answer from 84%)".
  describe('a refusal the model is unsure of says so, and its numbers tell the rating from the line', () => {
    const question = 'what do I do when OrdersDbPoolSaturated fires?';
    const refusedWith = async (adjudicatedLower: number) => {
      // The unrounded rating (ask's is rounded to three places, and a line 0.002 above the rounded one could round to it).
      const rating = (await kb.examine(question)).assessment.answerability!;
      const line = rating + 0.002;
      const model = { ...shippedAnswerabilityModel(), adjudicatedBands: { insufficientBelow: adjudicatedLower, sufficientAbove: line } };
      const open = await KnowledgeBase.build({ documents: FAILURE_CORPUS, model, bands: { insufficientBelow: line, sufficientAbove: line } });
      const r = await open.ask(question);
      expect(r.verdict).toBe('refused');
      return { r, rating, line };
    };

    it('where a reader would be asked, the refusal says the model is unsure and names the passage to read', async () => {
      const { r } = await refusedWith(0);
      expect(r.reasons[0]).toMatch(/^Not answered: the model is unsure whether the closest passage, .* answers this/);
      expect(r.reasons[0]).toMatch(/Read that passage yourself/);
      expect(r.reasons.join(' ')).not.toMatch(/No passage in the library answers this/);
      // S-108: and claims no more in its headline and its text: unsure, not "the library does not answer this".
      expect(r.refusal).toBe('unsure');
      expect(outcomeWords('refused', r.refusal).title).toBe('Refused — not answered: the model is unsure whether the library answers this');
      expect(r.answer).toMatch(/^Not answered: the model is unsure/);
      expect(r.answer).not.toMatch(/does not answer this/);
    });

    // S-222: it said "No passage in the library answers this", headed "the library does not answer this"; on the
    // leave-one-corpus-out record that claim was false for one such refusal in eight.
    it('below where a reader would be asked, it says the model rates no passage likely, and claims no absence', async () => {
      const { r } = await refusedWith(0.999);
      expect(r.reasons[0]).toMatch(/^Not answered: the model rates no passage likely to answer this\. The closest, .+, seems no answer: /);
      expect(r.reasons[0]).toMatch(/read that passage if it looks like what you asked\.$/);
      expect(r.refusal).toBe('unsure');
      expect(outcomeWords('refused', r.refusal).title).toBe('Refused — not answered: the model is unsure whether the library answers this');
      expect(r.answer).not.toMatch(/does not answer this|No passage in the library answers/);
    });

    it('the numbers carry the decimals that tell the rating from the line', async () => {
      const { r, rating, line } = await refusedWith(0);
      const numbers = r.reasons.find((x) => x.startsWith(NUMBERS_PREFIX))!;
      // The fewest decimals that tell them apart (at most two): whole percents when they already differ.
      const digits = [0, 1].find((d) => (100 * rating).toFixed(d) !== (100 * line).toFixed(d)) ?? 2;
      expect(numbers).toContain(`answerability ${(100 * rating).toFixed(digits)}% (refuse below ${(100 * line).toFixed(digits)}%`);
    });

    // S-163: a colleague saw one refusal at 19% claim absence and one at 21% say unsure, and no line between them.
    it('a refusal’s numbers say where its words change from "rates no passage likely" to "unsure"', async () => {
      for (const lower of [0, 0.999]) {
        const { r } = await refusedWith(lower);
        const numbers = r.reasons.find((x) => x.startsWith(NUMBERS_PREFIX))!;
        // Printed with the decimals the other lines need to tell the rating from them: "0%", or "0.0%" beside 93.6%.
        const printed = lower ? '(?:100|99\\.9)' : '0(?:\\.0)?';
        expect(numbers).toMatch(new RegExp(`; below ${printed}% a refusal says the model rates no passage likely, above it that the model is unsure\\)`));
      }
    });
  });

  // A refusal read "no passage looks like an answer" beside "best passage … at 94%": the 94% is the passage stage's
  // share among the passages retrieved (a softmax), not a chance that the passage answers, and must say so.
  // S-075: "how do I book annual leave?" was answered from the edge gateway's steps on the shipped corpus ("leave" is a
  // word it uses in another sense), and the reasons only said what the passage carried. An answer names, beside it,
  // the question's words the library never uses.
  it('an answer names the question’s words the library never uses, and a question whose every word it uses gets no such caveat', async () => {
    const caveat = /^The library never mentions (.*): this answers the rest of the question/;
    const known = await ask('what is the mitigation for OrdersDbPoolSaturated?');
    expect(known.verdict).toBe('answered');
    expect(known.reasons.some((x) => caveat.test(x))).toBe(false);
    // Bands that answer whatever passes the checks: the caveat is about the words, whatever the rating.
    const answering = await KnowledgeBase.build({ documents: FAILURE_CORPUS, bands: { insufficientBelow: 0, sufficientAbove: 0 } });
    const tonight = await answering.ask('how do i mitigate OrdersDbPoolSaturated quickly tonight?');
    expect(tonight.verdict).toBe('answered');
    expect(tonight.reasons.find((x) => caveat.test(x))).toMatch(/^The library never mentions “tonight”:/);
  });

  it('the numbers give the closest passage’s share as a share of the retrieved passages, not as a chance that it answers', async () => {
    const r = await ask('What is the TLS certificate renewal procedure?');
    const numbers = r.reasons.find((x) => x.startsWith(NUMBERS_PREFIX))!;
    expect(numbers).toMatch(/closest passage \S+ \(\d+% of the choice among the \d+ retrieved, not a chance that it answers\)/);
    expect(numbers).not.toMatch(/best passage \S+ at \d+%/);
  });

  // S-068: a refusal said "the library never mentions custom" for a question about a customer (a stem, not the
  // word), named words the library does use (they were only missing from what was retrieved), and said "the
  // question uses words the library never does" of a question whose words it all uses.
  describe('a reason says what is so, in the question’s own words', () => {
    // A question stage that reads one feature alone, and bands that refuse everything: the reason is that feature's.
    const reading = async (feature: string, weight: number) => {
      const shipped = shippedAnswerabilityModel();
      const weights = QUESTION_FEATURE_NAMES.map((name) => (name === feature ? weight : 0));
      const model = { ...shipped, question: { ...shipped.question, weights } };
      return KnowledgeBase.build({ documents: FAILURE_CORPUS, model, bands: { insufficientBelow: 1, sufficientAbove: 1 } });
    };
    const lead = async (kb: KnowledgeBase, q: string) => (await kb.ask(q)).reasons[0]!;

    it('names the words the library never uses as the question wrote them, and no word it does use', async () => {
      const kb = await reading('unknownTopicShare', -5);
      const reason = await lead(kb, 'customers report the orders-db pool Flapping, what is the mitigation?');
      // The library has customers, the pool and its mitigation; it never says "Flapping" (nor "flap", its stem).
      expect(reason).toMatch(/the library never mentions “Flapping”(?!, “)/);
      expect(reason).not.toMatch(/“(?:customers?|orders-db|pool|mitigation)”|\bflap\b/i);
    });

    it('names the nouns the library never uses, where no topic word is one of them (S-165)', async () => {
      const kb = await reading('unknownNounShare', -5);
      // "number" is no topic term (the question-only stopwords drop it), but the library never says it.
      const reason = await lead(kb, 'whats the orders-db pool number?');
      expect(reason).toMatch(/the library never mentions “number”(?!, “)/);
      expect(reason).not.toMatch(/never names what the question is about/);
    });

    it('names only the words of a remedy its document never uses, as the question wrote them (S-120)', async () => {
      const kb = await reading('bestPropositionMissing', -5);
      const reason = await lead(kb, 'would restarting the checkout-api deployment help with OrdersDbPoolSaturated?');
      // The runbook scales the checkout-api deployment; it never restarts anything.
      expect(reason).toMatch(/its document never mentions “restarting”(?!, “)/);
      expect(reason).not.toMatch(/checkout|deployment|\brestart\b/);
    });

    it('gives no "uses words the library never does" to a question whose every word it uses', async () => {
      // A positive weight: few unknown words push the rating down — a true push, but not the sentence's.
      const kb = await reading('unknownTopicShare', 5);
      const reason = await lead(kb, 'what is the mitigation for OrdersDbPoolSaturated?');
      expect(reason).not.toMatch(/never does|never mentions/);
    });
  });
});
