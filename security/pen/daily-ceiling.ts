/**
 * Pen test: the daily token ceiling holds under concurrency (T-1, issue 12
 * defect 1). One client sends 200 runs at once to a real `sandscope serve`
 * with DAILY_TOKEN_CEILING=5000. Runs used to be admitted before their tokens
 * were charged and charged when they ended, so every run admitted before the
 * first one finished was free: 84,640 tokens against 5,000 on main.
 *
 * Expected: the tokens the admitted runs used (what their providers reported:
 * what the ceiling is charged) stay within the ceiling plus one run's
 * reservation (RUN_TOKEN_BUDGET, set here for the branch that introduces it);
 * every refusal is a 429 with the limiter's code and remedy — never a 5xx.
 */
import { LIMIT_ERROR_REMEDIES, type RefusalReason } from 'sandscope';
import { errorCodeOf, safeSse, send } from '../lib/http.ts';
import { answerableQuestions } from '../lib/questions.ts';
import { runCheck } from '../lib/report.ts';
import { freshSecret, startAgent } from '../lib/service.ts';
import { startSlowProvider } from '../lib/slow-provider.ts';

const CEILING = 5_000;
/** What each run reserves at admission once defect 1's fix is in: half the ceiling, as its own test sets it. */
const RESERVATION = 2_500;
const CONCURRENT = Number(process.env.SECURITY_CEILING_CONCURRENT ?? 200);

await runCheck(`daily token ceiling under ${CONCURRENT} concurrent runs (T-1, defect 1)`, async (t) => {
  // Every call takes 3 s and reports 500 tokens: all 200 runs are in flight at once, as behind a real provider.
  const provider = await startSlowProvider({
    delayMs: 3_000,
    fallback: { kind: 'reply', text: '{"claims":[]}', usage: { promptTokens: 400, completionTokens: 100 } },
  });
  const agent = await startAgent({
    env: {
      DAILY_TOKEN_CEILING: String(CEILING),
      RUN_TOKEN_BUDGET: String(RESERVATION),
      RATE_LIMIT_MAX: '100000',
      GROQ_API_KEY: freshSecret('fake-groq'),
      GROQ_BASE_URL: provider.baseURL,
    },
  });
  const json = { authorization: `Bearer ${agent.token}`, 'content-type': 'application/json' };
  // Different questions: the semantic cache answers a repeated one without a model call, which spends nothing and
  // would hide the overshoot (some are refused by the gate, which spends nothing either: the measure is what was used).
  const questions = answerableQuestions();
  const started = performance.now();
  const responses = await Promise.all(
    Array.from({ length: CONCURRENT }, (_, i) =>
      send(agent.url, {
        method: 'POST',
        path: '/v1/runs',
        headers: json,
        body: JSON.stringify({ question: questions[i % questions.length] }),
        timeoutMs: 240_000,
      }).catch((error: Error) => error),
    ),
  );
  let admitted = 0;
  let used = 0;
  let largestRun = 0;
  for (const res of responses) {
    t.count('requests');
    if (res instanceof Error) {
      t.count('status failed');
      t.finding(`a request failed: ${res.message}`);
      continue;
    }
    t.count(`status ${res.status}`);
    if (res.status !== 200) {
      const code = errorCodeOf(res) as RefusalReason | undefined;
      t.count(`refused ${code}`);
      const remedy = code && code in LIMIT_ERROR_REMEDIES ? LIMIT_ERROR_REMEDIES[code] : undefined;
      const exact = res.status === 429 && remedy !== undefined && (JSON.parse(res.text) as { error: { message: string } }).error.message === remedy;
      if (!exact && !t.findings.some((f) => f.startsWith('refusal')))
        t.finding(`refusal ${res.status} ${res.text.slice(0, 160)} (expected 429 with the limiter's code and remedy)`);
      continue;
    }
    admitted += 1;
    const result = safeSse(res.text).find((e) => e.event === 'result')?.data as
      | { providers?: { kind: string; tokensIn?: number; tokensOut?: number }[] }
      | undefined;
    if (!result && !t.findings.some((f) => f.startsWith('an admitted run'))) t.finding(`an admitted run ended without a result: ${res.text.slice(-200)}`);
    const tokens = (result?.providers ?? []).filter((p) => p.kind === 'served').reduce((n, p) => n + (p.tokensIn ?? 0) + (p.tokensOut ?? 0), 0);
    used += tokens;
    largestRun = Math.max(largestRun, tokens);
  }
  const seconds = (performance.now() - started) / 1000;
  t.line(`provider calls ${provider.stub.requests.length}`);
  t.line(`requests ${CONCURRENT} at once in ${seconds.toFixed(1)} s; statuses ${t.summary('status ')}; refused ${t.summary('refused ') || 'none'}`);
  t.line(
    `admitted ${admitted}, tokens used ${used} (largest run ${largestRun}) against DAILY_TOKEN_CEILING ${CEILING} + one reservation ${RESERVATION} = ${CEILING + RESERVATION} (${(used / CEILING).toFixed(1)}× the ceiling)`,
  );
  t.expect(admitted > 0, 'no run was admitted: the ceiling holds only because nothing runs');
  t.expect(
    used <= CEILING + RESERVATION,
    `${admitted} concurrent runs used ${used} tokens, past DAILY_TOKEN_CEILING ${CEILING} by more than one run's reservation (${RESERVATION})`,
  );
  await agent.stop();
});
