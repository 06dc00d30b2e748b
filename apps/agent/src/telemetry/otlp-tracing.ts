import { type Attributes, type AttributeValue, context, SpanKind, SpanStatusCode, trace, type Span as OtelSpan } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor, type IdGenerator, RandomIdGenerator } from '@opentelemetry/sdk-trace-base';
import type { ExportedSpan } from './span-exporter.ts';

/**
 * One run's trace. It is fed the spans the run recorder has ALREADY passed
 * through the allowlisting span exporter (T-16) and the secret scrubber, and
 * nothing else: OpenTelemetry is another sink of that one exporter, never a
 * second path out of the process that could carry an attribute the allowlist
 * drops (a question, an error message).
 */
export interface RunTrace {
  /** A node's execution as stored: becomes a child span of the run. Point events (a node's start) are not spans. */
  node(span: ExportedSpan): void;
  /** The run's end: closes the run's span. */
  end(outcome: { readonly status: 'completed' | 'failed'; readonly terminal?: string | null; readonly verdict?: string | null }): void;
}

export interface RunTelemetry {
  /** Where spans go, for the start-up line. */
  readonly description: string;
  startRun(runId: string, workload: string): RunTrace;
  /** Exports what is buffered. */
  flush(): Promise<void>;
  /** Exports what is buffered and stops. */
  shutdown(): Promise<void>;
}

/** No OTEL_EXPORTER_OTLP_ENDPOINT: nothing leaves the process, and nothing is buffered. */
export const NO_RUN_TELEMETRY: RunTelemetry = {
  description: 'off (set OTEL_EXPORTER_OTLP_ENDPOINT to export traces)',
  startRun: () => ({ node: () => {}, end: () => {} }),
  flush: async () => {},
  shutdown: async () => {},
};

export interface OtlpRunTelemetryOptions {
  /** OTEL_EXPORTER_OTLP_ENDPOINT, the collector's base URL; traces go to `<endpoint>/v1/traces`. */
  readonly endpoint: string;
  /** OTEL_SERVICE_NAME. */
  readonly serviceName: string;
  /** SANDSCOPE_REPLICA: the resource's service.instance.id. */
  readonly replica: string;
  /** Most ms an export may take (default 10000). */
  readonly timeoutMs?: number;
}

/**
 * The trace id of a run is its run id (a uuid is 16 bytes, as a trace id is):
 * derived from the natural key, never stored or cached, so the spans a run
 * produced on one replica and the run as any replica reads it back name the
 * same trace, and an operator pastes a run id into the tracing UI as it is.
 * Every other id is random, as the SDK makes them.
 */
class RunTraceIds implements IdGenerator {
  readonly #random = new RandomIdGenerator();
  /** Set just before the run's span is started (synchronously), taken by that one call. */
  next: string | undefined;

  generateTraceId = (): string => {
    const id = this.next;
    this.next = undefined;
    return id ?? this.#random.generateTraceId();
  };

  generateSpanId = (): string => this.#random.generateSpanId();
}

/** OpenTelemetry attribute values are primitives or arrays of one primitive type; anything else is sent as JSON text. */
function attributeValue(value: unknown): AttributeValue | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  if (Array.isArray(value) && value.length > 0) {
    const kind = typeof value[0];
    if ((kind === 'string' || kind === 'number' || kind === 'boolean') && value.every((v) => typeof v === kind)) return value as AttributeValue;
  }
  return JSON.stringify(value);
}

/**
 * Allowlisted for the store but not sent to a collector. `entities` is not only
 * names the corpus knows: classify also keeps identifier-shaped tokens of the
 * question it has never seen (`entitiesIn`), so a key someone pasted into a
 * question ("why is sk-live-… refused?") would ride out to a third-party
 * tracing backend. The run's own record keeps it, beside the question it came from.
 * `reasons` is withheld for the same cause: a reason quotes the question's own words ("the library never mentions
 * “zebra-quartz-7f3k”", S-068, S-120, S-161) and the names it asked about ("it never names …"), so the gate's
 * explanation is user input as much as the question is (S-166). `nearMisses` quotes a word of the question too (S-180).
 * `verdict`, `band` and `score` still leave.
 */
export const OTLP_WITHHELD_ATTRIBUTES: ReadonlySet<string> = new Set(['entities', 'reasons', 'nearMisses']);

function attributesOf(span: ExportedSpan): Attributes {
  const entries = Object.entries(span.attributes);
  const sent = entries.filter(([name]) => !OTLP_WITHHELD_ATTRIBUTES.has(name));
  const out: Attributes = { 'sandscope.dropped_attributes': span.droppedAttributeCount + entries.length - sent.length };
  for (const [name, value] of sent) {
    const converted = attributeValue(value);
    if (converted !== undefined) out[`sandscope.${name}`] = converted;
  }
  return out;
}

/**
 * Spans over OTLP/HTTP (JSON) with the official SDK, batched: a run is one
 * trace — a `sandscope.run` span, and one child span per graph node with the
 * node's allowlisted attributes — so a trace shows its trace and parent ids the
 * way every OpenTelemetry backend expects. An unreachable collector costs the
 * spans, never a run: the batch processor drops what it cannot send.
 */
export function otlpRunTelemetry(options: OtlpRunTelemetryOptions): RunTelemetry {
  const ids = new RunTraceIds();
  const url = `${options.endpoint.replace(/\/+$/, '')}/v1/traces`;
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': options.serviceName, 'service.instance.id': options.replica }),
    idGenerator: ids,
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url, timeoutMillis: options.timeoutMs ?? 10_000 }))],
  });
  const tracer = provider.getTracer('sandscope-agent');
  return {
    description: `OTLP/HTTP to ${url}`,
    startRun(runId, workload) {
      const traceId = runId.replaceAll('-', '').toLowerCase();
      ids.next = /^[0-9a-f]{32}$/.test(traceId) && !/^0+$/.test(traceId) ? traceId : undefined;
      const root: OtelSpan = tracer.startSpan('sandscope.run', {
        root: true,
        kind: SpanKind.INTERNAL,
        attributes: { 'sandscope.run_id': runId, 'sandscope.workload': workload },
      });
      ids.next = undefined;
      const parent = trace.setSpan(context.active(), root);
      let ended = false;
      return {
        node(span) {
          if (ended || span.endMs === undefined) return;
          const child = tracer.startSpan(span.name, { kind: SpanKind.INTERNAL, startTime: span.startMs, attributes: attributesOf(span) }, parent);
          if (span.status === 'error') child.setStatus({ code: SpanStatusCode.ERROR });
          child.end(span.endMs);
        },
        end(outcome) {
          if (ended) return;
          ended = true;
          root.setAttributes({
            'sandscope.status': outcome.status,
            ...(outcome.terminal ? { 'sandscope.terminal': outcome.terminal } : {}),
            ...(outcome.verdict ? { 'sandscope.verdict': outcome.verdict } : {}),
          });
          if (outcome.status !== 'completed') root.setStatus({ code: SpanStatusCode.ERROR });
          root.end();
        },
      };
    },
    flush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
}
