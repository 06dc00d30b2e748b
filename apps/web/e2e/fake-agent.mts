/**
 * A small stand-in for the agent service, implementing docs/API.md for the
 * website's browser tests while the real service is being built (and for
 * failure modes the real one is hard to provoke on cue: 402, 503, a dead stream).
 * Answers come from the real engine (KnowledgeBase) so citations are real chunk
 * ids; the graph walk, providers and approvals are simulated.
 *
 *   AGENT_TOKEN=… tsx apps/web/e2e/fake-agent.mts --port 7861
 *
 * Test hooks (fake only): a question starting `!429`, `!402`, `!503`, `!401`,
 * `!500` is refused with that status before the stream opens; `!stream-error`
 * fails after the stream opened, and `!stream-error-db` too, as the real agent
 * says a database lost mid-run (`store_unavailable`, its API remedy for message). FAKE_PROVIDERS=groq,gemini lists providers
 * (offline is always last); FAKE_NO_EVAL=1 makes /v1/eval/latest a 404. The evaluation
 * it serves is the committed report (docs/evaluation.json), split as the real agent
 * splits it: measuring leave-one-corpus-out here would take minutes per start.
 */
import { randomUUID, timingSafeEqual, createHash } from 'node:crypto';
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { join, resolve } from 'node:path';
import { API_ERRORS } from '@sandscope/api/errors';
import { documentTitle, KnowledgeBase, parseEstate, type SourceDocument } from '@sandscope/engine';
import { outcomeOf } from '@sandscope/engine/outcome';
import { generateQuestions, parseGaps, parseJsonl, replayedReaderGroups, replayedReaderSchema, SourceJudgement, sourceAuditOf } from '@sandscope/eval';

const CORPUS = resolve(import.meta.dirname, '../../../corpus');
const TOKEN = process.env.AGENT_TOKEN ?? '';
const portArg = process.argv.indexOf('--port');
const PORT = Number(portArg > 0 ? process.argv[portArg + 1] : (process.env.PORT ?? 7861));
const MAX_QUESTION_CHARS = 2000;
const STEP_MS = Number(process.env.FAKE_STEP_MS ?? 60);
if (!TOKEN) {
  process.stderr.write('fake-agent: set AGENT_TOKEN\n');
  process.exit(2);
}

const documents: SourceDocument[] = readdirSync(join(CORPUS, 'docs'))
  .filter((f) => f.endsWith('.md'))
  .sort()
  .map((doc) => {
    const text = readFileSync(join(CORPUS, 'docs', doc), 'utf8');
    return { doc, title: documentTitle(doc, text), text };
  });
const parsedEstate = parseEstate(JSON.parse(readFileSync(join(CORPUS, 'estate.json'), 'utf8')));
if (!parsedEstate.ok) throw new Error(parsedEstate.message);
const estate = parsedEstate.estate;
const gaps = existsSync(join(CORPUS, 'GAPS.md')) ? parseGaps(readFileSync(join(CORPUS, 'GAPS.md'), 'utf8')) : [];
const kb = await KnowledgeBase.build({ documents, estate });
const questions = generateQuestions({ chunks: kb.chunks, estate, gaps });
const REPORT = resolve(import.meta.dirname, '../../../docs/evaluation.json');
let evalLatest: unknown = null;
if (!process.env.FAKE_NO_EVAL && existsSync(REPORT)) {
  // the real agent's file fallback (apps/agent/src/service/eval-latest.ts): the rows apart, the rest as the summary
  const { questions: rows = [], ...summary } = JSON.parse(readFileSync(REPORT, 'utf8')) as { questions?: unknown[] } & Record<string, unknown>;
  // and the replayed reader beside it, pooled per group as the real agent pools it
  const replayed = resolve(import.meta.dirname, '../../../docs/experiments/adjudicator-replay/summary.json');
  const reader = existsSync(replayed) ? replayedReaderSchema.parse(JSON.parse(readFileSync(replayed, 'utf8'))) : null;
  // and the source audit of the record's wrong-source answers, counted as the real agent counts it
  const judged = resolve(import.meta.dirname, '../../../docs/experiments/source-audit/judgements.jsonl');
  const judgements = existsSync(judged) ? parseJsonl(readFileSync(judged, 'utf8'), SourceJudgement) : { rows: [] };
  if ('why' in judgements) throw new Error(`${judged}:${judgements.line}: ${judgements.why}`);
  const sourceAudit = sourceAuditOf(rows as Parameters<typeof sourceAuditOf>[0], judgements.rows);
  evalLatest = {
    summary,
    questions: rows,
    source: 'file',
    ...(reader ? { replayedReader: { generatedAt: reader.generatedAt, command: reader.command, groups: replayedReaderGroups(reader) } } : {}),
    ...(sourceAudit ? { sourceAudit } : {}),
  };
}

const PROVIDERS = [
  ...(process.env.FAKE_PROVIDERS ?? 'groq,gemini')
    .split(',')
    .filter(Boolean)
    .map((name) => ({ name, model: `${name}-stub-model`, configured: true })),
  { name: 'offline', model: 'extractive-v1', configured: true },
];

const GRAPH = {
  nodes: [
    { id: '__start__', terminal: false, file: null },
    ...['classify', 'retrieve', 'assess_evidence', 'adjudicate', 'hypothesise', 'verify', 'propose_action', 'risk_gate'].map((id) => ({
      id,
      terminal: false,
      file: `packages/engine/src/orchestrator/nodes/${id.replace(/_/g, '-')}.ts`,
    })),
    ...['refuse', 'escalate', 'await_approval', 'emit'].map((id) => ({ id, terminal: true, file: `packages/engine/src/orchestrator/nodes/terminals.ts` })),
    { id: '__end__', terminal: false, file: null },
  ],
  edges: [
    ['__start__', 'classify', false],
    ['classify', 'retrieve', false],
    ['retrieve', 'assess_evidence', false],
    ['assess_evidence', 'refuse', true],
    ['assess_evidence', 'adjudicate', true],
    ['assess_evidence', 'hypothesise', true],
    ['adjudicate', 'hypothesise', true],
    ['adjudicate', 'refuse', true],
    ['hypothesise', 'verify', false],
    ['verify', 'hypothesise', true],
    ['verify', 'escalate', true],
    ['verify', 'propose_action', true],
    ['propose_action', 'risk_gate', false],
    ['risk_gate', 'await_approval', true],
    ['risk_gate', 'emit', true],
    ['refuse', '__end__', false],
    ['escalate', '__end__', false],
    ['await_approval', '__end__', false],
    ['emit', '__end__', false],
  ].map(([from, to, conditional]) => ({ from, to, conditional })),
  mermaid: 'graph TD;',
};

interface StoredRun {
  id: string;
  session: string;
  question: string;
  workload: string;
  status: 'running' | 'completed' | 'failed';
  createdAt: string;
  parentRunId: string | null;
  result: Record<string, any> | null;
  spans: any[];
  providerEvents: any[];
}
const runs: StoredRun[] = [];

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}
const fail = (res: ServerResponse, status: number, code: string, message: string, headers: Record<string, string> = {}) =>
  send(res, status, { error: { code, message } }, headers);

function authorised(req: IncomingMessage): boolean {
  const got = Buffer.from(
    createHash('sha256')
      .update(req.headers.authorization ?? '')
      .digest('hex'),
  );
  const want = Buffer.from(createHash('sha256').update(`Bearer ${TOKEN}`).digest('hex'));
  return timingSafeEqual(got, want);
}

function session(req: IncomingMessage, res: ServerResponse): string {
  const m = /(?:^|;\s*)sandscope_session=([^;]+)/.exec(req.headers.cookie ?? '');
  if (m) return m[1]!;
  const id = randomUUID();
  res.setHeader('set-cookie', `sandscope_session=${id}; Path=/; HttpOnly; SameSite=Lax`);
  return id;
}

async function body(req: IncomingMessage): Promise<any> {
  const parts: Buffer[] = [];
  for await (const p of req) parts.push(p as Buffer);
  const raw = Buffer.concat(parts).toString('utf8');
  return raw ? JSON.parse(raw) : {};
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function summary(r: StoredRun) {
  const res = r.result;
  return {
    id: r.id,
    question: r.question,
    workload: r.workload,
    status: r.status,
    terminal: res?.terminal ?? null,
    verdict: res?.verdict ?? null,
    outcome: res?.outcome ?? null,
    band: res?.band ?? null,
    score: res?.score ?? null,
    costUsd: res?.spend?.spentUsd ?? null,
    createdAt: r.createdAt,
    parentRunId: r.parentRunId,
  };
}

function riskOf(question: string, workload: string) {
  if (workload !== 'change') return null;
  const service = estate.services.find((s) => question.includes(s.id));
  // The real agent's factors are readable lines (docs/API.md); the weights are summed here as the fake's score.
  const weighted: { line: string; weight: number }[] = [];
  if (/production|prod\b/i.test(question)) weighted.push({ line: 'touches production', weight: 0.4 });
  if (/restart|drop|delete|migrat/i.test(question)) weighted.push({ line: 'disruptive verb', weight: 0.3 });
  if (service && service.tier === 1) weighted.push({ line: `${service.id} is tier 1`, weight: 0.3 });
  const score = Math.round(weighted.reduce((s, f) => s + f.weight, 0) * 100) / 100;
  return { score, factors: weighted.map((f) => f.line), threshold: 0.5, ...(service ? { service: service.id } : {}) };
}

async function executeRun(run: StoredRun, failProviders: string[], emit: (event: string, data: unknown) => void) {
  let seq = 0;
  const started = Date.now();
  const node = async (name: string, data: Record<string, unknown> = {}) => {
    const t0 = Date.now();
    const s = { runId: run.id, seq: seq++, node: name, kind: 'start', at: new Date(t0).toISOString(), data: {} };
    run.spans.push(s);
    emit('node', s);
    await sleep(STEP_MS);
    const e = { runId: run.id, seq: seq++, node: name, kind: 'end', at: new Date().toISOString(), durationMs: Date.now() - t0, data };
    run.spans.push(e);
    emit('node', e);
  };
  let asked: any = await kb.ask(run.question);
  if (run.workload === 'change' && asked.verdict === 'refused') {
    // the change workload retrieves for the action's runbook; the fake approximates that with the top passage
    const top = (await kb.retrieve(run.question)).results[0]?.chunk;
    if (top) {
      const sentence = (top.text.replace(/^\s*(?:\d+[.)]|[-*])\s+/gm, '').split(/(?<=[.!?])\s+/)[0] ?? top.text).trim();
      asked = {
        ...asked,
        verdict: 'partial',
        reasons: [...asked.reasons.slice(0, -1), `adjudicated partial: ${top.id} carries the change's runbook`],
        answer: `${sentence} [1]`,
        claims: [{ text: sentence, citations: [top.id] }],
        sources: [{ chunkId: top.id, doc: top.doc, heading: top.heading, text: top.text }],
      };
    }
  }
  await node('classify', { workload: run.workload });
  await node('retrieve', { passages: asked.sources.length, degraded: asked.degraded });
  await node('assess_evidence', { band: asked.band, score: asked.score, reasons: asked.reasons });
  let terminal: string;
  let risk: ReturnType<typeof riskOf> = null;
  let action: string | null = null;
  let spentUsd = 0;
  if (asked.verdict === 'refused' && asked.band === 'insufficient') {
    await node('refuse', { verdict: 'refused' });
    terminal = 'refuse';
  } else {
    if (asked.band === 'ambiguous') await node('adjudicate', { verdict: asked.verdict, reasons: asked.reasons.slice(-1) });
    if (asked.verdict === 'refused') {
      await node('refuse', { verdict: 'refused' });
      terminal = 'refuse';
    } else {
      let served: (typeof PROVIDERS)[number] | null = null;
      let tokensIn = 0;
      let tokensOut = 0;
      for (const p of PROVIDERS) {
        if (failProviders.includes(p.name)) {
          const ev = { runId: run.id, provider: p.name, kind: 'injected_failure', message: 'broken for this run by request', latencyMs: 0 };
          run.providerEvents.push(ev);
          emit('provider', ev);
          continue;
        }
        served = p;
        tokensIn = p.name === 'offline' ? 0 : 412;
        tokensOut = p.name === 'offline' ? 0 : 58;
        const cost = p.name === 'offline' ? 0 : 0.000031;
        spentUsd += cost;
        const ev = { runId: run.id, provider: p.name, kind: 'served', status: 200, latencyMs: 38, tokensIn, tokensOut, costUsd: cost };
        run.providerEvents.push(ev);
        emit('provider', ev);
        break;
      }
      await node('hypothesise', { provider: served?.name ?? 'none', model: served?.model ?? '', tokensIn, tokensOut, costUsd: spentUsd, attempt: 1 });
      await node('verify', { claims: asked.claims.length, unresolved: 0 });
      risk = riskOf(run.question, run.workload);
      // Like the real agent's: the action cites the answer by its footnotes instead of repeating it.
      action =
        run.workload === 'change'
          ? `Change under review: ${run.question}\nWhat the library requires of it: the answer above (${asked.claims.length} points, cited [1]).`
          : null;
      await node('propose_action', { action: action ?? 'none' });
      const gated = risk !== null && risk.score >= risk.threshold;
      await node('risk_gate', { terminal: gated ? 'await_approval' : 'emit', ...(risk ? { risk: risk.score } : {}) });
      terminal = gated ? 'await_approval' : 'emit';
      await node(terminal, {});
    }
  }
  run.result = {
    runId: run.id,
    parentRunId: run.parentRunId,
    ...asked,
    terminal,
    outcome: outcomeOf(asked.verdict, terminal as 'refuse' | 'escalate' | 'await_approval' | 'emit'),
    workload: run.workload,
    risk,
    action,
    trace: run.spans,
    providers: run.providerEvents,
    spend: { reservedUsd: spentUsd ? 0.0004 : 0, spentUsd, ceilingUsd: 0.02 },
    timingsMs: { ...asked.timingsMs, total: Date.now() - started },
  };
  run.status = 'completed';
}

const server = createServer(async (req, res) => {
  const url = new URL(req.url ?? '/', 'http://x');
  try {
    if (url.pathname === '/healthz')
      return send(res, 200, { status: 'ok', parts: { database: 'ok', limiter: 'ok', embedder: 'ok', vectorSearch: 'ok', providers: 'ok' } });
    if (!url.pathname.startsWith('/v1/')) return fail(res, 404, 'not_found', 'no such route');
    if (!authorised(req)) return fail(res, 401, 'unauthorized', 'missing or wrong bearer token: set AGENT_TOKEN to the agent’s value');
    const sid = session(req, res);
    const parts = url.pathname.split('/').filter(Boolean); // v1, ...

    if (req.method === 'POST' && url.pathname === '/v1/runs') {
      const b = await body(req);
      if (typeof b.question !== 'string' || !b.question.trim()) return fail(res, 400, 'invalid_request', 'question: a non-empty string is required');
      if (b.question.length > MAX_QUESTION_CHARS) return fail(res, 400, 'question_too_long', `question: at most ${MAX_QUESTION_CHARS} characters`);
      const hook = /^!(\d{3}db|\d{3}|stream-error-db|stream-error)/.exec(b.question);
      if (hook?.[1] === '429') return fail(res, 429, 'rate_limited', 'too many runs from this client; retry after 30 s', { 'retry-after': '30' });
      if (hook?.[1] === '402') return fail(res, 402, 'budget_exceeded', 'the spend guard refused a model call: reserve $0.0300 over the $0.0200 ceiling');
      if (hook?.[1] === '503') return fail(res, 503, 'limiter_unavailable', 'the limiter store is unreachable; refusing (fail closed)');
      if (hook?.[1] === '503db') return fail(res, 503, 'store_unavailable', 'the database is unreachable; no run is started (fail closed)');
      if (hook?.[1] === '401') return fail(res, 401, 'unauthorized', 'missing or wrong bearer token');
      if (hook?.[1] === '500') return fail(res, 500, 'internal', 'an internal error occurred');
      const workload = b.workload ?? 'triage';
      if (!['triage', 'change', 'postmortem'].includes(workload)) return fail(res, 400, 'invalid_request', 'workload: triage, change or postmortem');
      const run: StoredRun = {
        id: randomUUID(),
        session: sid,
        question: b.question,
        workload,
        status: 'running',
        createdAt: new Date().toISOString(),
        parentRunId: null,
        result: null,
        spans: [],
        providerEvents: [],
      };
      runs.unshift(run);
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      const emit = (event: string, data: unknown) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
      if (hook?.[1] === 'stream-error' || hook?.[1] === 'stream-error-db') {
        emit('node', { runId: run.id, seq: 0, node: 'classify', kind: 'start', at: new Date().toISOString(), data: {} });
        run.status = 'failed';
        emit(
          'error',
          hook[1] === 'stream-error'
            ? { error: { code: 'budget_exceeded', message: 'the spend guard refused a model call mid-run' } }
            : { error: { code: 'store_unavailable', message: API_ERRORS.store_unavailable.remedy } },
        );
        return res.end();
      }
      await executeRun(run, Array.isArray(b.failProviders) ? b.failProviders : [], emit);
      emit('result', run.result);
      return res.end();
    }
    if (req.method === 'GET' && url.pathname === '/v1/runs') {
      const page = Math.max(1, Number(url.searchParams.get('page') ?? 1));
      const pageSize = Math.min(100, Math.max(1, Number(url.searchParams.get('pageSize') ?? 20)));
      return send(res, 200, { runs: runs.slice((page - 1) * pageSize, page * pageSize).map(summary), page, pageSize, total: runs.length });
    }
    if (parts[1] === 'runs' && parts[2]) {
      const run = runs.find((r) => r.id === parts[2]);
      if (!run) return fail(res, 404, 'not_found', `no run ${parts[2]}`);
      if (req.method === 'POST' && parts[3] === 'approve') {
        if (run.result?.terminal !== 'await_approval') return fail(res, 409, 'not_awaiting_approval', 'this run did not stop for approval');
        if (run.session !== sid) return fail(res, 403, 'forbidden_session', 'only the session that requested this run can approve it');
        const child: StoredRun = {
          ...run,
          id: randomUUID(),
          createdAt: new Date().toISOString(),
          parentRunId: run.id,
          spans: [],
          providerEvents: [],
          status: 'completed',
        };
        child.spans = [
          { runId: child.id, seq: 0, node: 'approval', kind: 'start', at: child.createdAt, data: { approves: run.id } },
          { runId: child.id, seq: 1, node: 'emit', kind: 'end', at: child.createdAt, durationMs: 1, data: { terminal: 'emit' } },
        ];
        child.result = {
          ...run.result,
          runId: child.id,
          parentRunId: run.id,
          terminal: 'emit',
          outcome: outcomeOf(run.result.verdict, 'emit'),
          trace: child.spans,
          providers: [],
        };
        runs.unshift(child);
        return send(res, 201, { run: child.result });
      }
      if (req.method === 'GET' && !parts[3]) {
        const r = run.result;
        const byId = new Map((r?.sources ?? []).map((s: any) => [s.chunkId, s]));
        return send(res, 200, {
          run: {
            ...summary(run),
            answer: r?.answer ?? null,
            action: r?.action ?? null,
            risk: r?.risk ?? null,
            reasons: r?.reasons ?? [],
            sessionOwned: run.session === sid,
          },
          spans: run.spans,
          claims: (r?.claims ?? []).map((c: any, index: number) => ({ index, text: c.text, citations: c.citations.map((id: string) => byId.get(id)) })),
          providerEvents: run.providerEvents,
          spend: r?.spend
            ? {
                ...r.spend,
                ledger: run.providerEvents.filter((e) => e.kind === 'served').map((e) => ({ provider: e.provider, reservedUsd: 0.0004, spentUsd: e.costUsd })),
              }
            : null,
          parent: run.parentRunId ? { id: run.parentRunId, terminal: runs.find((x) => x.id === run.parentRunId)?.result?.terminal ?? null } : null,
          children: runs.filter((x) => x.parentRunId === run.id).map((x) => ({ id: x.id, terminal: x.result?.terminal ?? null, createdAt: x.createdAt })),
        });
      }
    }
    if (req.method === 'GET' && url.pathname === '/v1/corpus') {
      const byMechanism: Record<string, { label: string; n: number }> = {};
      for (const q of questions) (byMechanism[q.mechanism] ??= { label: q.label, n: 0 }).n++;
      return send(res, 200, {
        version: kb.version,
        documents: documents.map((d) => ({ ...d, words: d.text.split(/\s+/).filter(Boolean).length })),
        chunks: kb.chunks.map((c) => ({ id: c.id, doc: c.doc, heading: c.heading })),
        gaps,
        questions: { total: questions.length, byMechanism },
      });
    }
    if (req.method === 'GET' && url.pathname === '/v1/library')
      return send(res, 200, { name: 'corpus', bundled: true, version: kb.version, documents: documents.length, passages: kb.chunks.length });
    if (req.method === 'GET' && url.pathname === '/v1/estate') return send(res, 200, estate);
    if (req.method === 'GET' && url.pathname === '/v1/graph') return send(res, 200, GRAPH);
    if (req.method === 'GET' && url.pathname === '/v1/providers') return send(res, 200, { providers: PROVIDERS });
    if (req.method === 'GET' && url.pathname === '/v1/eval/latest')
      return evalLatest ? send(res, 200, evalLatest) : fail(res, 404, 'not_found', 'no evaluation recorded; run `npm run eval:report`');
    return fail(res, 404, 'not_found', 'no such route');
  } catch (error) {
    if (!res.headersSent) fail(res, 500, 'internal', 'an internal error occurred');
    else res.end();
    process.stderr.write(`fake-agent: ${(error as Error).stack}\n`);
  }
});
server.listen(PORT, '127.0.0.1', () => process.stdout.write(`fake agent listening on http://127.0.0.1:${PORT}\n`));
