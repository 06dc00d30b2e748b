import { describe, expect, it } from 'vitest';
import { NODE_LATENCY_BUCKETS_SECONDS, ServiceMetrics } from './metrics.ts';
import { parseExposition, sampleOf } from './testing/exposition.ts';

describe('GET /metrics exposition (prom-client, issue 11 section 4)', () => {
  it('the node-latency histogram puts each duration in every bucket at or above it, with +Inf, sum and count', async () => {
    const metrics = new ServiceMetrics({ replica: 'agent-a', processMetrics: false });
    // 0.4 ms, 3 ms, 700 ms and 40 s: below the first bound, between bounds, and past the last one.
    for (const ms of [0.4, 3, 700, 40_000]) metrics.nodeDuration('retrieve', ms);
    const samples = parseExposition(await metrics.render());
    const buckets = samples.filter((s) => s.name === 'sandscope_node_duration_seconds_bucket' && s.labels.node === 'retrieve');
    expect(buckets.map((b) => b.labels.le)).toEqual([...NODE_LATENCY_BUCKETS_SECONDS.map(String), '+Inf']);
    const cumulative = Object.fromEntries(buckets.map((b) => [b.labels.le, b.value]));
    expect(cumulative).toEqual({
      '0.0005': 1,
      '0.001': 1,
      '0.0025': 1,
      '0.005': 2,
      '0.01': 2,
      '0.025': 2,
      '0.05': 2,
      '0.1': 2,
      '0.25': 2,
      '0.5': 2,
      '1': 3,
      '2.5': 3,
      '5': 3,
      '10': 3,
      '30': 3,
      '+Inf': 4,
    });
    expect(sampleOf(samples, 'sandscope_node_duration_seconds_count', { node: 'retrieve' })?.value).toBe(4);
    expect(sampleOf(samples, 'sandscope_node_duration_seconds_sum', { node: 'retrieve' })?.value).toBeCloseTo(40.7034, 9);
  });

  it('every series carries the replica label, and the process metrics are there', async () => {
    const metrics = new ServiceMetrics({ replica: 'agent-b-7f9c' });
    metrics.runFinished('answered', 'emit');
    metrics.providerEvent('groq', 'rate_limited');
    metrics.spend(0.000_123);
    metrics.response(200);
    const samples = parseExposition(await metrics.render());
    expect(samples.length).toBeGreaterThan(20);
    expect(samples.filter((s) => s.labels.replica !== 'agent-b-7f9c')).toEqual([]);
    for (const name of [
      'process_cpu_user_seconds_total',
      'process_resident_memory_bytes',
      'nodejs_heap_size_used_bytes',
      'nodejs_eventloop_lag_seconds',
      'nodejs_version_info',
    ]) {
      expect(sampleOf(samples, name), name).toBeDefined();
    }
    expect(sampleOf(samples, 'sandscope_runs_total', { verdict: 'answered', terminal: 'emit' })?.value).toBe(1);
    expect(sampleOf(samples, 'sandscope_provider_failovers_total', { provider: 'groq', kind: 'rate_limited' })?.value).toBe(1);
    expect(sampleOf(samples, 'sandscope_spend_usd_total')?.value).toBeCloseTo(0.000_123, 12);
    expect(metrics.contentType).toBe('text/plain; version=0.0.4; charset=utf-8');
  });

  it('two services in one process count apart (each has its own registry)', async () => {
    const a = new ServiceMetrics({ replica: 'a', processMetrics: false });
    const b = new ServiceMetrics({ replica: 'b', processMetrics: false });
    a.response(200);
    expect(sampleOf(parseExposition(await a.render()), 'sandscope_http_responses_total', { status: '200' })?.value).toBe(1);
    expect(sampleOf(parseExposition(await b.render()), 'sandscope_http_responses_total', { status: '200' })).toBeUndefined();
  });
});
