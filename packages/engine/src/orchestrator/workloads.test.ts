import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseEstate, type Estate } from '../corpus/estate.ts';
import { actWordsIn } from './act-words.ts';
import { dependentsOf, LOOKUP_CEILING, RISK_THRESHOLD, servicesNamed } from './risk-scorer.ts';
import { REPO_ROOT } from './testing/corpus-fixture.ts';
import { CHANGE, parseWorkload, POSTMORTEM, TRIAGE, WORKLOADS } from './workloads.ts';

const parsed = parseEstate(JSON.parse(readFileSync(`${REPO_ROOT}corpus/estate.json`, 'utf8')));
if (!parsed.ok) throw new Error(parsed.message);
const estate: Estate = parsed.estate;

const tierOf = (id: string) => estate.services.find((s) => s.id === id)?.tier;

describe('the estate facts the risk scorer reads', () => {
  it('finds dependents transitively: orders-db is felt by its 5 direct clients and by what depends on them', () => {
    const { direct, all } = dependentsOf('orders-db', estate);
    expect(direct.sort()).toEqual(['checkout-api', 'export-worker', 'fulfilment-worker', 'order-worker', 'payments-api']);
    // edge-gateway → checkout-api → orders-db; report-scheduler → export-worker → orders-db.
    expect(all).toEqual(expect.arrayContaining(['edge-gateway', 'report-scheduler']));
    expect(all).toHaveLength(7);
  });

  it('knows report-scheduler is a tier-4 leaf and orders-db is tier 1', () => {
    expect(tierOf('report-scheduler')).toBe(4);
    expect(dependentsOf('report-scheduler', estate).all).toEqual([]);
    expect(tierOf('orders-db')).toBe(1);
  });

  it('names services by id or display name', () => {
    expect(
      servicesNamed('is the Orders database ok? and checkout-api?', estate)
        .map((s) => s.id)
        .sort(),
    ).toEqual(['checkout-api', 'orders-db']);
    expect(servicesNamed('orders-dbx and xorders-db', estate)).toEqual([]);
  });

  // These words are reported, no longer scored: mentioning a restart is not asking for one (issue 13). They are
  // tokenized and stemmed now, so every form meets its verb, and a word that merely contains one ("dropdown") does not.
  it('names act words by their verb, whatever the form, whole-word', () => {
    expect(actWordsIn('Roll back the deploy, then restart it in production')).toEqual(['roll back', 'deploy', 'restart']);
    expect(actWordsIn('the deployment window; a dropdown; restarting; fail-over')).toEqual(['deploy', 'restart', 'fail over']);
    expect(actWordsIn('What is the pool ceiling?')).toEqual([]);
    expect(actWordsIn('Can we raise the pool ceiling?')).toEqual(['raise']);
    expect(actWordsIn('Can we raise the pool ceiling and restart it?', ['production'])).toEqual(['restart']);
  });
});

const risk = (workload: keyof typeof WORKLOADS, question: string, actionText = '') => WORKLOADS[workload].riskScorer({ question, actionText, estate });

describe('risk scoring (deterministic, from the estate)', () => {
  it('puts any change to a tier-1 service above the line, on tier alone', () => {
    const r = risk('change', 'Can we raise the orders-db connection pool ceiling?');
    expect(r.score).toBeGreaterThan(RISK_THRESHOLD);
    expect(r.service).toBe('orders-db');
    expect(r.factors.join('\n')).toMatch(/tier 1/);
    expect(r.factors.join('\n')).toMatch(/7 services depend on orders-db/);
    // Even with no dependents and no production word, tier 1 alone crosses the line for a change.
    expect(
      CHANGE.riskScorer({ question: 'change the edge-gateway rate limit', actionText: '', estate: { ...estate, dependencies: [] } }).score,
    ).toBeGreaterThan(RISK_THRESHOLD);
  });

  it('keeps a change to a tier-4 leaf below the line, even one that restarts it', () => {
    expect(risk('change', 'Can we raise the report-scheduler job deadline to 60 minutes?').score).toBeLessThanOrEqual(RISK_THRESHOLD);
    expect(risk('change', 'Can we restart report-scheduler?').score).toBeLessThanOrEqual(RISK_THRESHOLD);
  });

  it('caps a look-up well below the line, whatever the tier and whatever the workload', () => {
    expect(LOOKUP_CEILING).toBeLessThan(RISK_THRESHOLD);
    const r = risk('change', 'What is the connection pool ceiling for orders-db?');
    expect(r.score).toBe(LOOKUP_CEILING);
    expect(r.factors.join('\n')).toMatch(/a look-up \(asks for a value\): it proposes no action, so the score is capped at 0\.2/);
    // The question names production words as nouns ("failover procedure"): still a look-up.
    expect(risk('change', 'What is the failover procedure for orders-db?').score).toBe(LOOKUP_CEILING);
  });

  it('lets advisory text about a tier-1 service through, unless the question asks to act', () => {
    expect(risk('triage', 'What is the connection pool ceiling for orders-db?').score).toBeLessThanOrEqual(RISK_THRESHOLD);
    expect(risk('postmortem', 'What happened to orders-db in March?').score).toBeLessThanOrEqual(RISK_THRESHOLD);
    expect(risk('triage', 'Should we restart checkout-api?').score).toBeGreaterThan(RISK_THRESHOLD);
    expect(risk('triage', 'fail over orders-db now').score).toBeGreaterThan(RISK_THRESHOLD);
    expect(risk('triage', 'fail over orders-db now').factors.join('\n')).toMatch(/asks to act, which reaches the running system: fail over \(asked for\)/);
  });

  // This pinned the defect: a look-up ("What now for orders-db?") was gated because the proposed action, which the
  // workloads build from the cited passages, said "Fail over". What the evidence says is not what the user asked.
  it('reads the act from the question, never from the proposed action built out of the evidence (issue 13)', () => {
    const r = risk('triage', 'What now for orders-db?', 'Fail over orders-db to the replica.');
    expect(r.score).toBeLessThanOrEqual(RISK_THRESHOLD);
    expect(r.factors.join('\n')).toMatch(/not scored: the cited passages mention fail over/);
  });

  it('stops an act where RISK_THRESHOLD says: a change to tier 1–2 or a depended-on tier 3; advice on all but a tier-4 leaf', () => {
    for (const s of estate.services) {
      const depended = dependentsOf(s.id, estate).all.length > 0;
      expect(risk('change', `restart ${s.id}`).score > RISK_THRESHOLD, `change ${s.id}`).toBe(s.tier <= 2 || (s.tier === 3 && depended));
      expect(risk('triage', `restart ${s.id}`).score > RISK_THRESHOLD, `triage ${s.id}`).toBe(s.tier < 4 || depended);
      expect(risk('postmortem', `what happened when we restarted ${s.id}`).score, `look-up ${s.id}`).toBeLessThanOrEqual(LOOKUP_CEILING);
    }
  });

  it('treats a production action on no known service as unknown blast radius, and stops it', () => {
    const r = risk('change', 'Deploy the new build to production');
    expect(r.score).toBeGreaterThan(RISK_THRESHOLD);
    expect(r.service).toBeUndefined();
    expect(r.factors.join('\n')).toMatch(/blast radius unknown/);
  });

  it('is a pure function: same input, same output', () => {
    expect(risk('change', 'Can we restart inventory-db?')).toEqual(risk('change', 'Can we restart inventory-db?'));
  });
});

describe('workloads are data', () => {
  it('each has an id, a system prompt, a query builder and a risk scorer', () => {
    for (const [id, w] of Object.entries(WORKLOADS)) {
      expect(w.id).toBe(id);
      expect(w.systemPrompt.length).toBeGreaterThan(50);
      expect(typeof w.queryBuilder).toBe('function');
      expect(typeof w.riskScorer).toBe('function');
    }
  });

  it('builds queries that only add estate-derived context to the question', () => {
    const q = 'What should I check when OrdersDbPoolSaturated fires?';
    expect(TRIAGE.queryBuilder(q, estate)).toBe(`${q}\nConnection pool exhaustion`);
    expect(CHANGE.queryBuilder('Can we restart orders-db?', estate)).toBe('Can we restart orders-db?\nchange tier 1');
    expect(POSTMORTEM.queryBuilder('What happened to pricing-cache?', estate).startsWith('What happened to pricing-cache?')).toBe(true);
    expect(TRIAGE.queryBuilder('plain question', null)).toBe('plain question');
  });

  it("proposes the action once: no claim repeated, cited by the answer's footnote numbers (issue 13: the answer read twice)", () => {
    const claims = [
      { text: 'The ceiling is 100.', citations: ['a#b'] },
      { text: 'It is not raised during incidents.', citations: ['c#d', 'a#b'] },
    ];
    for (const workload of [TRIAGE, CHANGE, POSTMORTEM]) {
      const action = workload.proposeAction({ question: 'Raise it?', claims, verdict: 'answered' });
      expect(action.text).not.toContain('The ceiling is 100.');
      expect(action.text).not.toContain('not raised during incidents');
      expect(action.text).not.toMatch(/a#b|c#d/);
      // the same numbers the answer's footnotes use: first-cited order
      expect(action.text).toContain('2 points, cited [1][2]');
      expect(action.text).not.toContain('PARTIAL');
    }
    const change = CHANGE.proposeAction({ question: 'Raise it?', claims, verdict: 'partial' });
    expect(change.kind).toBe('change');
    expect(change.text).toContain('PARTIAL');
  });

  it('advises acting only on steps: a value asked for is read, not acted on (S-150)', () => {
    const claims = [{ text: 'The ceiling is 100.', citations: ['a#b'] }];
    const advice = (question: string) => TRIAGE.proposeAction({ question, claims, verdict: 'answered' }).text;
    const lookup = advice('What is the connection pool ceiling for orders-db?');
    expect(lookup).not.toContain('Act on');
    expect(lookup).toContain('Nothing to do but read the answer above (1 point, cited [1]): the question asks for a value');
    expect(advice('OrdersDbPoolSaturated is firing, what do I do?')).toContain('Act on the answer above (1 point, cited [1]), in its order.');
    expect(advice('Restart orders-db now')).toContain('Act on the answer above');
  });

  it('parses user input: default triage, one-line message for an unknown workload', () => {
    expect(parseWorkload(undefined)).toEqual({ ok: true, workload: 'triage' });
    expect(parseWorkload('Change')).toEqual({ ok: true, workload: 'change' });
    const bad = parseWorkload('deploy');
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.message).toMatch(/^unknown workload "deploy"\. Choose one of: triage, change, postmortem/);
    expect(parseWorkload('__proto__').ok).toBe(false);
  });
});
