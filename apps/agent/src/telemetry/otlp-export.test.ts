import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InMemoryCacheStore } from '@sandscope/engine/models';
import { getRun, startStore, type Store } from '@sandscope/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.ts';
import { appDepsOf, createApp } from '../http/app.ts';
import { parseSse } from '../http/testing/sse-events.ts';
import { type AgentService, startAgentService } from '../service/compose.ts';
import type { RunResultView } from '../service/run-views.ts';
import { RUN_SPAN_ATTRIBUTES } from '../service/span-attributes.ts';
import { OTLP_WITHHELD_ATTRIBUTES } from './otlp-tracing.ts';

/**
 * Issue 11 section 4: with OTEL_EXPORTER_OTLP_ENDPOINT set, a run's trace is
 * exported over OTLP/HTTP by the official SDK — here to a receiver on
 * 127.0.0.1 that keeps what it is sent. A run is one trace whose id is the run
 * id: a root span, and a child span per graph node whose parent is the root;
 * their attributes are only the allowlisted ones (T-16), so the question a
 * person typed is nowhere in what left the process.
 */

interface OtlpAttribute {
  readonly key: string;
  readonly value: { stringValue?: string; intValue?: string | number; doubleValue?: number; boolValue?: boolean; arrayValue?: unknown };
}
interface OtlpSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly name: string;
  readonly startTimeUnixNano: string;
  readonly endTimeUnixNano: string;
  readonly attributes?: OtlpAttribute[];
}
interface OtlpExport {
  readonly resourceSpans: { resource: { attributes: OtlpAttribute[] }; scopeSpans: { spans: OtlpSpan[] }[] }[];
}

const TOKEN = 'otlp-test-token-0123456789abcdef';
// A question with a tail of its own, so the question's text in any exported span is unmistakable, and an
// identifier-shaped token classify keeps as an entity (as it would a key someone pasted).
const QUESTION = 'What is the connection pool ceiling for orders-db? Thanks, quick answer please, the alret fired. zebra-quartz-7f3k';

let receiver: Server;
const received: { path: string; contentType: string | undefined; body: string }[] = [];
let store: Store;
let agent: AgentService | undefined;

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const pieces: Buffer[] = [];
    req.on('data', (d: Buffer) => pieces.push(d));
    req.on('end', () => {
      received.push({ path: req.url ?? '', contentType: req.headers['content-type'], body: Buffer.concat(pieces).toString('utf8') });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  store = await startStore({ dataDir: 'memory://' });
}, 120_000);

afterAll(async () => {
  await agent?.close();
  await store?.close();
  await new Promise<void>((r) => receiver.close(() => r()));
});

const attr = (span: { attributes?: OtlpAttribute[] }, key: string) => {
  const v = span.attributes?.find((a) => a.key === key)?.value;
  return v?.stringValue ?? v?.intValue ?? v?.doubleValue ?? v?.boolValue;
};

describe('OpenTelemetry over OTLP/HTTP (issue 11 section 4)', () => {
  it('a run is one trace: its id is the run id, every node span is a child of the run span, and only allowlisted attributes leave', async () => {
    const endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    const parsed = loadConfig(
      { AGENT_TOKEN: TOKEN, IP_SALT: 'otlp-salt-0123456789abcdef', OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, SANDSCOPE_REPLICA: 'agent-otlp-1' },
      { requireToken: true },
    );
    if (!parsed.ok) throw new Error(parsed.message);
    agent = await startAgentService({ config: parsed.config, store, log: () => {}, cacheStore: new InMemoryCacheStore() });
    expect(agent.startup.join('\n')).toContain(`traces OTLP/HTTP to ${endpoint}/v1/traces`);

    const app = createApp(appDepsOf(agent));
    const res = await app.request('/v1/runs', {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ question: QUESTION }),
    });
    expect(res.status).toBe(200);
    const result = parseSse(await res.text()).at(-1)!.data as RunResultView;
    await agent.close(); // shuts the SDK down, which exports what it buffered
    agent = undefined;

    expect(received.length).toBeGreaterThan(0);
    for (const r of received) {
      expect(r.path).toBe('/v1/traces');
      expect(r.contentType).toMatch(/^application\/json/);
      expect(r.body).not.toContain('connection pool ceiling for orders-db? Thanks');
      expect(r.body).not.toContain('zebra-quartz-7f3k');
      // A slip of the question ("alret") is kept with the library's word for it on the stored span, never sent (S-180).
      expect(r.body).not.toContain('alret');
    }
    const exports = received.map((r) => JSON.parse(r.body) as OtlpExport);
    const resource = exports[0]!.resourceSpans[0]!.resource;
    expect(attr(resource, 'service.name')).toBe('sandscope-agent');
    expect(attr(resource, 'service.instance.id')).toBe('agent-otlp-1');

    const spans = exports.flatMap((e) => e.resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans)));
    const traceId = result.runId.replaceAll('-', '');
    const roots = spans.filter((s) => s.name === 'sandscope.run');
    expect(roots).toHaveLength(1);
    const root = roots[0]!;
    expect(root.traceId).toBe(traceId);
    expect(root.parentSpanId ?? '').toBe('');
    expect(attr(root, 'sandscope.run_id')).toBe(result.runId);
    expect(attr(root, 'sandscope.terminal')).toBe(result.terminal);

    const nodes = spans.filter((s) => s !== root);
    expect(nodes.map((s) => s.name)).toEqual(expect.arrayContaining(['classify', 'retrieve', 'assess_evidence']));
    const allowed = new Set([
      'sandscope.dropped_attributes',
      ...RUN_SPAN_ATTRIBUTES.filter((a) => !OTLP_WITHHELD_ATTRIBUTES.has(a)).map((a) => `sandscope.${a}`),
    ]);
    for (const span of nodes) {
      expect(span.traceId).toBe(traceId);
      expect(span.parentSpanId).toBe(root.spanId);
      expect(span.spanId).toMatch(/^[0-9a-f]{16}$/);
      expect(BigInt(span.endTimeUnixNano)).toBeGreaterThanOrEqual(BigInt(span.startTimeUnixNano));
      for (const a of span.attributes ?? []) expect(allowed.has(a.key), `${span.name}: ${a.key}`).toBe(true);
    }
    expect(new Set(spans.map((s) => s.spanId)).size).toBe(spans.length);
    // The retrieve node's `query` (the question) was there to drop, and was dropped: counted, not sent.
    const retrieve = nodes.find((s) => s.name === 'retrieve')!;
    expect(Number(attr(retrieve, 'sandscope.dropped_attributes'))).toBeGreaterThan(0);
    // The stored record keeps classify's entities (the token among them); the exported span does not.
    const stored = await getRun(store.db, result.runId);
    expect(JSON.stringify(stored?.spans)).toContain('zebra-quartz-7f3k');
    expect(JSON.stringify(stored?.spans)).toMatch(/"nearMisses":\[\{[^}]*"written":"alret"/);
    expect(attr(nodes.find((s) => s.name === 'classify')!, 'sandscope.entities')).toBeUndefined();
    // A reason quotes the question's words ("never mentions “zebra-quartz-7f3k”"): no node's reasons leave (S-166).
    expect(nodes.every((s) => attr(s, 'sandscope.reasons') === undefined)).toBe(true);
  });
});
