import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseEstate, type Estate } from '../corpus/estate.ts';
import { OfflineExtractiveModel } from '../models/offline-model.ts';
import type { Workload } from '../types.ts';
import { bareModelFactory } from './model-factory.ts';
import { createOrchestrator, type Orchestrator } from './orchestrator.ts';
import { RISK_THRESHOLD } from './risk-scorer.ts';
import { corpusKnowledgeBase, REPO_ROOT } from './testing/corpus-fixture.ts';
import { WORKLOADS } from './workloads.ts';

/**
 * Issue 13: look-up questions stopped for approval (13 of 50 CLI runs) because
 * production-touching words were read from the cited passages and from the
 * question's nouns ("the failover time of session-cache"). Approval noise
 * teaches people to click Approve without reading.
 *
 * `risk-questions.jsonl` is a labelled set of look-up vs act questions across
 * the three workloads, written as on-call engineers type them, BEFORE the scorer
 * was changed. Each row says whether the question only asks what the library
 * says (`lookup`) or asks for something to be done (`act`), and whether the
 * gate must stop it (`gated`: every act on a service that matters, or on an
 * unnamed one; an act on a tier-4 leaf stays below the line by the workload's
 * weights). `split` was fixed by a hash of the question, stratified by workload
 * and label: the scorer was developed against `dev` only, and `holdout` was
 * measured once afterwards (its figures are in the commit that changed the scorer).
 */
interface Row {
  readonly workload: Workload;
  readonly label: 'lookup' | 'act';
  readonly gated: boolean;
  readonly split: 'dev' | 'holdout';
  readonly question: string;
}

const ROWS: Row[] = readFileSync(new URL('./risk-questions.jsonl', import.meta.url), 'utf8')
  .trim()
  .split('\n')
  .map((line) => JSON.parse(line) as Row);

const parsed = parseEstate(JSON.parse(readFileSync(`${REPO_ROOT}corpus/estate.json`, 'utf8')));
if (!parsed.ok) throw new Error(parsed.message);
const estate: Estate = parsed.estate;

/**
 * Cited passages as the runbooks and the change policy really word them: every
 * production-touching word the old scorer counted is here. A look-up answered
 * from them is still a look-up.
 */
const EVIDENCE = [
  { text: 'Restart instances one at a time with `svcctl restart checkout-api --rolling --max-unavailable 1`.', citations: ['runbook-memory-leak#mitigation'] },
  { text: 'Automatic failover promotes the most current replica with a failover time of 45 seconds.', citations: ['architecture-order-path#orders-db'] },
  { text: "Roll back the offending client's most recent deploy as an emergency change.", citations: ['runbook-connection-pool-exhaustion#mitigation'] },
  {
    text: 'Normal changes to tier 1 and tier 2 services are deployed Tuesday to Thursday between 09:00 and 16:00 UTC.',
    citations: ['policy-change-management#windows'],
  },
  { text: 'Do not restart `orders-db` and do not raise the ceiling; both make recovery slower.', citations: ['runbook-connection-pool-exhaustion#do-not'] },
];

/** What the risk gate node does: the workload's scorer over the question and the action the workload proposes from the evidence. */
function gateOf(row: Row) {
  const workload = WORKLOADS[row.workload];
  const action = workload.proposeAction({ question: row.question, claims: EVIDENCE, verdict: 'answered' });
  return workload.riskScorer({ question: row.question, actionText: action.text, estate });
}

const label = (r: Row) => `[${r.split}] ${r.workload} ${r.label}${r.label === 'act' && !r.gated ? ' (leaf)' : ''}: ${r.question}`;

describe('the labelled look-up vs act set (issue 13)', () => {
  it('holds at least 60 questions across the three workloads, both labels in each, split into two halves', () => {
    expect(ROWS.length).toBeGreaterThanOrEqual(60);
    for (const workload of ['triage', 'change', 'postmortem'] as const) {
      for (const kind of ['lookup', 'act'] as const) {
        for (const split of ['dev', 'holdout'] as const) {
          expect(
            ROWS.filter((r) => r.workload === workload && r.label === kind && r.split === split).length,
            `${workload} ${kind} ${split}`,
          ).toBeGreaterThanOrEqual(5);
        }
      }
    }
    expect(new Set(ROWS.map((r) => r.question.toLowerCase())).size).toBe(ROWS.length);
    // Only acts are gated, and a look-up never is.
    expect(ROWS.filter((r) => r.label === 'lookup' && r.gated)).toEqual([]);
  });

  it('was split by a hash of each question, not by hand: within each workload and label, in sha1 order, alternately dev and holdout', () => {
    const sha1 = (q: string) => createHash('sha1').update(q).digest('hex');
    const strata = new Map<string, Row[]>();
    for (const r of ROWS) strata.set(`${r.workload}/${r.label}`, [...(strata.get(`${r.workload}/${r.label}`) ?? []), r]);
    for (const rows of strata.values()) {
      const ordered = [...rows].sort((a, b) => (sha1(a.question) < sha1(b.question) ? -1 : 1));
      expect(ordered.map((r) => r.split)).toEqual(ordered.map((_, i) => (i % 2 === 0 ? 'dev' : 'holdout')));
    }
  });

  describe('through the risk scorer, with cited passages full of production words', () => {
    it.each(ROWS.filter((r) => r.label === 'lookup').map((r) => [label(r), r] as const))('never gates a look-up — %s', (_, row) => {
      const risk = gateOf(row);
      expect(risk.score, risk.factors.join('\n')).toBeLessThanOrEqual(RISK_THRESHOLD);
    });

    it.each(ROWS.filter((r) => r.label === 'act' && r.gated).map((r) => [label(r), r] as const))('gates an act — %s', (_, row) => {
      const risk = gateOf(row);
      expect(risk.score, risk.factors.join('\n')).toBeGreaterThan(RISK_THRESHOLD);
    });

    it.each(ROWS.filter((r) => r.label === 'act' && !r.gated).map((r) => [label(r), r] as const))(
      'keeps an act on a tier-4 leaf below the line — %s',
      (_, row) => {
        const risk = gateOf(row);
        expect(risk.score, risk.factors.join('\n')).toBeLessThanOrEqual(RISK_THRESHOLD);
      },
    );
  });

  // corpus/questions.jsonl is generated from the passages that answer them (or deliberately do not): every one is a
  // look-up by construction, and none was written by whoever wrote the detector. Not held out: development read the
  // four it first misread as acts ("orders-db replicas, failover and snapshots"; "release a stale job lock — how?").
  it('gates none of the evaluation set’s 749 generated questions, in any workload, whatever the cited passages say', () => {
    const generated = readFileSync(`${REPO_ROOT}corpus/questions.jsonl`, 'utf8')
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { question: string }).question);
    expect(generated.length).toBeGreaterThan(700);
    const gated = generated.flatMap((question) =>
      (['triage', 'change', 'postmortem'] as const)
        .filter((workload) => gateOf({ workload, label: 'lookup', gated: false, split: 'dev', question }).score > RISK_THRESHOLD)
        .map((workload) => `${workload}: ${question}`),
    );
    expect(gated).toEqual([]);
  });

  describe('through the whole graph (offline model, the repository corpus)', () => {
    let orchestrator: Orchestrator;
    beforeAll(async () => {
      orchestrator = createOrchestrator({ kb: await corpusKnowledgeBase(), models: bareModelFactory(new OfflineExtractiveModel()) });
    });

    it('never stops a look-up for approval, whatever its cited passages say', async () => {
      const stopped: string[] = [];
      for (const row of ROWS.filter((r) => r.label === 'lookup')) {
        const r = await orchestrator.run({ question: row.question, workload: row.workload });
        if (r.terminal === 'await_approval') stopped.push(`${label(row)} → ${r.risk?.score}`);
      }
      expect(stopped).toEqual([]);
    });

    it('never lets an act on a service that matters emit (most refuse at the evidence gate; those that reach the risk gate stop there)', async () => {
      const emitted: string[] = [];
      for (const row of ROWS.filter((r) => r.label === 'act' && r.gated)) {
        const r = await orchestrator.run({ question: row.question, workload: row.workload });
        if (r.terminal === 'emit') emitted.push(`${label(row)} → ${r.risk?.score}`);
      }
      expect(emitted).toEqual([]);
    });
  });
});
