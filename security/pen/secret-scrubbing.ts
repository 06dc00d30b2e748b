/**
 * Pen test: secret scrubbing (T-18, issue 12 defect 3). `sandscope serve`
 * configured the way an operator configures a provider — GROQ_API_KEY and
 * GROQ_BASE_URL — where the provider is the stub OpenAI-compatible server
 * (packages/engine/src/models/testing/stub-openai-server.ts) with its
 * `echo-key` behaviour: it puts the key it was sent back in its error body, as
 * some providers do. Other requests have it echo the token and the salt, or
 * draft an answer that repeats them.
 *
 * The key, AGENT_TOKEN and IP_SALT must appear nowhere: not in the SSE
 * stream, not in what `GET /v1/runs…` reads back, not in any row of any table
 * of the agent's database (read after it stops: the stored provider events,
 * spans, results), not in the agent's log. The stub's record proves the key
 * really was sent and echoed, so a pass is not the attack failing to happen.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { startStubOpenAIServer } from '@sandscope/engine/testing';
import { startStore } from '@sandscope/store';
import { safeSse, send } from '../lib/http.ts';
import { answerableQuestions } from '../lib/questions.ts';
import { runCheck } from '../lib/report.ts';
import { onExit, startAgent } from '../lib/service.ts';

const POOL_CHUNK = 'architecture-order-path#orders-db-connection-pool-ceiling';

await runCheck('secret scrubbing (T-18, defect 3)', async (t) => {
  // Made per run and shaped like a real Groq key, so pattern-based redaction and the configured-value scrub are both exercised.
  const key = `gsk_${randomBytes(30)
    .toString('base64')
    .replace(/[^A-Za-z0-9]/g, '')
    .slice(0, 40)}`;
  const stub = await startStubOpenAIServer({ fallback: { kind: 'echo-key', status: 401 } });
  onExit(() => stub.close());
  const agent = await startAgent({ env: { GROQ_API_KEY: key, GROQ_BASE_URL: stub.baseURL, RATE_LIMIT_MAX: '100000' } });
  const secrets = { key, token: agent.token, salt: agent.salt };
  const json = { authorization: `Bearer ${agent.token}`, 'content-type': 'application/json' };

  // A different question each time: a repeated one is answered from the semantic cache, and one the gate
  // refuses makes no model call — either way the provider would not be reached. Asked until it is.
  const questions = answerableQuestions();
  let next = 0;
  const streams: string[] = [];
  const runIds: string[] = [];
  const ask = async (label: string, body: Record<string, unknown>) => {
    for (let tries = 0; tries < 40 && next < questions.length; tries += 1) {
      const calls = stub.requests.length;
      const res = await send(agent.url, { method: 'POST', path: '/v1/runs', headers: json, body: JSON.stringify({ question: questions[next++], ...body }) });
      t.count('requests');
      t.count(`status ${res.status}`);
      streams.push(res.text);
      const result = safeSse(res.text).find((e) => e.event === 'result')?.data as
        | { runId?: string; terminal?: string; providers?: { provider: string; kind: string; status?: number }[] }
        | undefined;
      t.expect(res.status === 200 && !!result?.runId, `${label}: ${res.status} ${res.text.slice(-200)}`);
      if (result?.runId) runIds.push(result.runId);
      if (stub.requests.length === calls) continue;
      t.line(
        `${label}: ${res.status}, terminal ${result?.terminal}, providers ${(result?.providers ?? []).map((p) => `${p.provider} ${p.kind}${p.status ? ` ${p.status}` : ''}`).join(' > ')}`,
      );
      return;
    }
    t.finding(`${label}: no question reached the provider`);
  };

  await ask('key echoed in a 401', {});
  stub.script({ kind: 'echo-key', status: 403, prefix: `token=${agent.token}; salt=${agent.salt}; ` });
  await ask('key, token and salt echoed in a 403', {});
  stub.script({ kind: 'echo-key', status: 500, prefix: `token=${agent.token}; ` });
  await ask('every provider failing (escalation message)', { failProviders: ['offline'] });
  const draft = JSON.stringify({ claims: [{ text: `The key is ${key}, the token ${agent.token}, the salt ${agent.salt}.`, citations: [POOL_CHUNK] }] });
  stub.script({ kind: 'reply', text: draft }, { kind: 'reply', text: draft }, { kind: 'reply', text: draft });
  await ask('a draft repeating the key, the token and the salt', {});

  const echoed = stub.requests.filter((r) => r.headers.authorization === `Bearer ${key}`).length;
  t.line(`stub provider: ${stub.requests.length} requests, ${echoed} carried the key (and were answered with it echoed or repeated)`);
  t.expect(echoed >= 3, `the key reached the stub only ${echoed} time(s): the attack did not happen, so a pass would prove nothing`);

  const reads: string[] = [];
  for (const id of runIds) reads.push((await send(agent.url, { method: 'GET', path: `/v1/runs/${id}`, headers: json })).text);
  reads.push((await send(agent.url, { method: 'GET', path: '/v1/runs?pageSize=100', headers: json })).text);
  t.count('requests', runIds.length + 1);

  await agent.stop();
  // The agent has released its data directory; open it as the store does and read every row of every table.
  const store = await startStore({ dataDir: join(agent.dataDir, 'pglite') });
  let rows = 0;
  let tables = 0;
  const stored: string[] = [];
  try {
    const names = await store.db.query<{ table_name: string }>(
      "select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'",
    );
    for (const { table_name } of names) {
      const all = await store.db.query(`select * from "${table_name}"`);
      tables += 1;
      rows += all.length;
      stored.push(JSON.stringify(all));
    }
  } finally {
    await store.close();
  }
  const providerEvents = stored.join('\n').match(/HTTP 40[13] authentication/g)?.length ?? 0;
  t.line(
    `looked in: ${streams.length} streams (${streams.join('').length} chars), ${reads.length} API reads (${reads.join('').length} chars), ${rows} rows in ${tables} tables, ${agent.output().split('\n').length} log lines`,
  );
  t.line(`stored provider failures recorded as status and class: ${providerEvents}`);
  t.expect(providerEvents > 0, 'no stored provider event says "HTTP 401/403 authentication": the failure was not recorded, so its scrubbing was not tested');

  let found = 0;
  for (const [what, secret] of Object.entries(secrets)) {
    for (const [where, texts] of [
      ['stream', streams],
      ['API', reads],
      ['database', stored],
      ['log', [agent.output()]],
    ] as const) {
      let hits = 0;
      for (const text of texts) hits += text.split(secret).length - 1;
      found += hits;
      t.count(`occurrences of the ${what} in the ${where}`, hits);
      t.expect(hits === 0, `the ${what} appears ${hits} time(s) in the ${where}`);
    }
  }
  t.line(`occurrences of a secret: ${found} (key, token, salt × stream, API, database, log)`);
});
