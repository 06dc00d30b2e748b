import { describe, expect, it } from 'vitest';
import { DEFAULT_NODE_SPAN_ATTRIBUTES, type ExportedSpan, type Span, createSpanExporter } from './span-exporter.ts';

function recordingExporter(allow: readonly string[] = DEFAULT_NODE_SPAN_ATTRIBUTES) {
  const received: ExportedSpan[] = [];
  const exporter = createSpanExporter({ allow, sink: async (span) => void received.push(span) });
  return { exporter, received };
}

describe('span exporter allowlist (T-16)', () => {
  it('drops every attribute not on the allowlist — the secret appears nowhere in the output', async () => {
    const { exporter, received } = recordingExporter();
    await exporter.export({
      name: 'assess_evidence',
      runId: 'run-1',
      startMs: 1_000,
      endMs: 1_250,
      attributes: {
        apiKey: 'sk-secret-123',
        authorization: 'Bearer sk-secret-123',
        band: 'sufficient',
      },
    });

    expect(received).toHaveLength(1);
    const [span] = received;
    expect(span?.attributes).toEqual({ band: 'sufficient' });
    expect(Object.keys(span?.attributes ?? {})).toEqual(['band']);
    expect(span?.droppedAttributeCount).toBe(2);

    const serialised = JSON.stringify(received);
    expect(serialised).not.toContain('sk-secret-123');
    expect(serialised).not.toContain('Bearer');
    expect(serialised).not.toContain('apiKey');
    expect(serialised).not.toContain('authorization');
    expect(serialised).toContain('sufficient');
  });

  it('drops undeclared top-level span properties too, not only attributes', async () => {
    const { exporter, received } = recordingExporter();
    const sneaky = {
      name: 'retrieve',
      startMs: 5,
      headers: { authorization: 'Bearer sk-secret-123' },
      attributes: { score: 1.57 },
    } as Span;
    await exporter.export(sneaky);
    expect(received).toEqual([{ name: 'retrieve', startMs: 5, attributes: { score: 1.57 }, droppedAttributeCount: 0 }]);
    expect(JSON.stringify(received)).not.toContain('sk-secret-123');
  });

  it('matches names exactly: a near-miss of an allowed name is dropped', async () => {
    const { exporter, received } = recordingExporter();
    await exporter.export({ name: 'n', startMs: 0, attributes: { Band: 'x', 'band ': 'y', bandSecret: 'z', band: 'ok' } });
    expect(received[0]?.attributes).toEqual({ band: 'ok' });
    expect(received[0]?.droppedAttributeCount).toBe(3);
  });

  it('keeps a value under an allowed name as-is, nested objects included (so allowed names must never carry secrets)', async () => {
    const { exporter, received } = recordingExporter();
    const citations = [{ claim: 0, chunkId: 'runbook-orders-db#3' }];
    const cache = { hit: true, similarity: 0.91, nested: { note: 'kept verbatim' } };
    await exporter.export({ name: 'verify', startMs: 0, status: 'ok', attributes: { citations, cache } });
    expect(received[0]?.attributes).toEqual({ citations, cache });
    expect(received[0]?.status).toBe('ok');
  });

  it('exports nothing but structure when the allowlist is empty', async () => {
    const { exporter, received } = recordingExporter([]);
    await exporter.export({ name: 'emit', startMs: 0, attributes: { band: 'sufficient', costUsd: 0.001 } });
    expect(received[0]?.attributes).toEqual({});
    expect(received[0]?.droppedAttributeCount).toBe(2);
  });

  it('carries the node-event vocabulary by default, and nothing credential-shaped', () => {
    expect([...DEFAULT_NODE_SPAN_ATTRIBUTES].sort()).toEqual(
      [
        'attempt',
        'band',
        'cache',
        'citations',
        'claims',
        'costUsd',
        'coverage',
        'degraded',
        'durationMs',
        'event',
        'node',
        'provider',
        'reasons',
        'risk',
        'score',
        'terminal',
        'tokensIn',
        'tokensOut',
        'verdict',
      ].sort(),
    );
    for (const name of DEFAULT_NODE_SPAN_ATTRIBUTES) {
      expect(name).not.toMatch(/key|token$|secret|auth|password|cookie|ip|salt|prompt/i);
    }
  });

  it('propagates a sink failure to the caller', async () => {
    const exporter = createSpanExporter({
      allow: ['band'],
      sink: async () => {
        throw new Error('sink down');
      },
    });
    await expect(exporter.export({ name: 'n', startMs: 0 })).rejects.toThrow('sink down');
  });

  it('rejects an empty allowlist entry', () => {
    expect(() => createSpanExporter({ allow: [''], sink: async () => {} })).toThrow(TypeError);
  });
});
