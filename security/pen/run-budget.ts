/**
 * Pen test: the run budget holds when a provider reports more than was
 * estimated (T-1, issue 12 defect 6). The spend guard reserves an estimate
 * (prompt characters / 4, plus the output cap) before each call and settles at
 * the usage the provider reports. Here the provider — the stub behind
 * GROQ_BASE_URL, priced with GROQ_INPUT_USD_PER_MTOK=10 — reports 20,000
 * prompt tokens for every call: $0.20 a call against RUN_BUDGET_USD=0.02,
 * while the estimate fits the budget. On main, 19 of 20 runs spent $0.20 and
 * answered as if nothing had happened.
 *
 * Expected of every run, from what the provider really received (the stub's
 * record, not the agent's own books):
 * - no call is sent once the run's settled spend has passed the budget, so a
 *   run spends at most the budget plus one call;
 * - a run that ends over its budget stops and says so — the stream ends in
 *   `error` `budget_exceeded`, or the result's terminal or outcome names the
 *   budget — rather than delivering an answer bought past its ceiling;
 * - the agent's books agree with the provider's bill.
 */
import { safeSse, send } from '../lib/http.ts';
import { answerableQuestions } from '../lib/questions.ts';
import { runCheck } from '../lib/report.ts';
import { freshSecret, onExit, startAgent } from '../lib/service.ts';
import { startStubOpenAIServer } from '@sandscope/engine/testing';

const RUNS = Number(process.env.SECURITY_BUDGET_RUNS ?? 20);
const BUDGET_USD = 0.02;
const INPUT_USD_PER_MTOK = 10;
const REPORTED_PROMPT_TOKENS = 20_000;
/** What the provider bills for one call: the reported prompt at the configured price (output is priced at 0 here). */
const CALL_USD = (REPORTED_PROMPT_TOKENS * INPUT_USD_PER_MTOK) / 1_000_000;

await runCheck('run budget against a provider reporting 20,000 prompt tokens (T-1, defect 6)', async (t) => {
  const stub = await startStubOpenAIServer({
    fallback: { kind: 'reply', text: '{"claims":[]}', usage: { promptTokens: REPORTED_PROMPT_TOKENS, completionTokens: 20 } },
  });
  onExit(() => stub.close());
  const agent = await startAgent({
    env: {
      GROQ_API_KEY: freshSecret('fake-groq'),
      GROQ_BASE_URL: stub.baseURL,
      GROQ_INPUT_USD_PER_MTOK: String(INPUT_USD_PER_MTOK),
      GROQ_OUTPUT_USD_PER_MTOK: '0',
      RUN_BUDGET_USD: String(BUDGET_USD),
      RATE_LIMIT_MAX: '100000',
      // Every call reports 20,000 tokens: the daily ceiling (default 200,000) would stop the test after ten runs.
      DAILY_TOKEN_CEILING: '100000000',
    },
  });
  const json = { authorization: `Bearer ${agent.token}`, 'content-type': 'application/json' };
  t.line(
    `RUN_BUDGET_USD ${BUDGET_USD}; each call billed $${CALL_USD.toFixed(2)} (${REPORTED_PROMPT_TOKENS} prompt tokens reported at $${INPUT_USD_PER_MTOK}/M)`,
  );

  // Different questions, one at a time: a repeated one is served by the semantic cache, and the stub's
  // request count between two runs is then exactly what one run sent.
  const questions = answerableQuestions();
  let measured = 0;
  let asked = 0;
  const spends: number[] = [];
  for (let i = 0; asked < RUNS && i < questions.length; i += 1) {
    asked += 1;
    const before = stub.requests.length;
    const res = await send(agent.url, {
      method: 'POST',
      path: '/v1/runs',
      headers: json,
      body: JSON.stringify({ question: questions[i] }),
      timeoutMs: 120_000,
    });
    const calls = stub.requests.length - before;
    t.count(`status ${res.status}`);
    const events = safeSse(res.text);
    const last = events.at(-1);
    const result = events.find((e) => e.event === 'result')?.data as
      | { terminal?: string; outcome?: unknown; reasons?: unknown; attempts?: unknown; spend?: { spentUsd?: number } }
      | undefined;
    const errorCode = last?.event === 'error' ? (last.data as { error?: { code?: string } }).error?.code : undefined;
    const ending = errorCode ? `error ${errorCode}` : `result ${result?.terminal}`;
    // The guard remembers a provider that bills past the prompt it was sent and prices its next prompts by that:
    // once one run has been over-billed, the next runs are refused before anything is sent (defect 6's fix).
    const namesBudget =
      errorCode === 'budget_exceeded' || /budget/i.test(JSON.stringify([result?.terminal, result?.outcome, result?.reasons, result?.attempts]));
    if (calls === 0) {
      t.count(namesBudget ? 'not sent: refused, naming the budget' : 'not sent: the gate refused or the cache answered');
      continue;
    }
    measured += 1;
    t.count('requests');
    const billed = calls * CALL_USD;
    spends.push(billed);
    t.count(`calls per run ${calls}`);
    t.count(`ending ${ending}`);
    if (billed > BUDGET_USD) t.count('over budget');
    const label = `run ${measured} ("${questions[i]!.slice(0, 50)}…")`;
    t.expect(
      billed <= BUDGET_USD + CALL_USD,
      `${label}: ${calls} calls billed $${billed.toFixed(2)}, more than the budget plus one call ($${(BUDGET_USD + CALL_USD).toFixed(2)}): a call was sent after the run was over budget`,
    );
    if (billed > BUDGET_USD) {
      t.expect(
        namesBudget,
        `${label}: billed $${billed.toFixed(2)} against $${BUDGET_USD} and ended with ${ending}, as if within budget (expected it to say the budget stopped it)`,
      );
    }
    const books = result?.spend?.spentUsd;
    if (books !== undefined)
      t.expect(Math.abs(books - billed) < 1e-6, `${label}: the agent's books say $${books} spent, the provider billed $${billed.toFixed(4)}`);
  }
  t.expect(asked >= Math.min(RUNS, 5), `only ${asked} question(s) asked: too few to measure`);
  // Across every run, at most one call is billed past the budget: the one that taught the guard this provider over-bills.
  const total = spends.reduce((a, b) => a + b, 0);
  t.expect(
    total <= BUDGET_USD + CALL_USD + 1e-9,
    `${measured} run(s) reached the provider and were billed $${total.toFixed(2)} in all: more than one call past the budget`,
  );
  const sorted = [...spends].sort((a, b) => a - b);
  t.line(`requests ${[...t.counts].filter(([k]) => k.startsWith('status ')).reduce((n, [, v]) => n + v, 0)}: ${t.summary('status ')}`);
  t.line(
    `runs asked ${asked}; reached the provider ${measured}; not sent: ${t.summary('not sent: ')}; over budget ${t.counts.get('over budget') ?? 0}; ${t.summary('calls per run ')} (calls per run); endings ${t.summary('ending ')}`,
  );
  t.line(
    `billed per run: min $${(sorted[0] ?? 0).toFixed(2)}, median $${(sorted[Math.floor(sorted.length / 2)] ?? 0).toFixed(2)}, max $${(sorted.at(-1) ?? 0).toFixed(2)}; total $${spends.reduce((a, b) => a + b, 0).toFixed(2)} against ${measured} × $${BUDGET_USD}`,
  );
  await agent.stop();
});
