/**
 * T-16 (secret in a trace attribute): every span leaves the process through this
 * exporter, and only attributes whose NAME is on an allowlist survive. Anything
 * else is DROPPED — not redacted. A redactor has to recognise a secret to hide it,
 * and a redaction that fails is invisible: the trace looks clean and carries the
 * key. An allowlist fails the other way: an unknown attribute goes missing, which
 * somebody notices and adds on purpose.
 *
 * What the allowlist does NOT do: it checks names, not values. A value under an
 * allowed name is exported as-is, nested objects included. So an allowlisted name
 * must never carry a secret, a prompt, or a raw client address — add a name only
 * when every value that can ever appear under it is safe to publish.
 */

/** A span as the orchestrator produces it: one node execution or event of a run. */
export interface Span {
  /** The node or event name (`retrieve`, `assess_evidence`, …). */
  readonly name: string;
  readonly runId?: string;
  readonly spanId?: string;
  readonly parentSpanId?: string;
  /** Epoch ms. */
  readonly startMs: number;
  /** Epoch ms; absent for a point event. */
  readonly endMs?: number;
  readonly status?: 'ok' | 'error';
  readonly attributes?: Readonly<Record<string, unknown>>;
}

/** What reaches the sink: the span's known fields, allowlisted attributes, and how many were dropped. */
export interface ExportedSpan extends Omit<Span, 'attributes'> {
  readonly attributes: Readonly<Record<string, unknown>>;
  /**
   * How many attributes were dropped — a count, never the names: a name can leak
   * as much as a value (`token_sk-live-…`). A non-zero count on a span you expect
   * to be complete means an attribute needs a deliberate allowlist decision.
   */
  readonly droppedAttributeCount: number;
}

export interface SpanExporter {
  /** Filter the span and hand it to the sink. Sink errors propagate to the caller. */
  export(span: Span): Promise<void>;
}

export interface SpanExporterOptions {
  /** Attribute names that may leave the process. Exact, case-sensitive match. */
  readonly allow: readonly string[];
  readonly sink: (span: ExportedSpan) => Promise<void>;
}

/**
 * Attributes the graph's node events carry. None holds a secret, prompt text or a
 * client address. `reasons`, `claims` and `citations` carry the system's own
 * verdict reasons and passage ids, not user input.
 */
export const DEFAULT_NODE_SPAN_ATTRIBUTES = [
  'node',
  'band',
  'score',
  'verdict',
  'terminal',
  'reasons',
  'provider',
  'tokensIn',
  'tokensOut',
  'costUsd',
  'durationMs',
  'claims',
  'citations',
  'risk',
  'attempt',
  'degraded',
  'coverage',
  'event',
  'cache',
] as const;

export function createSpanExporter(options: SpanExporterOptions): SpanExporter {
  for (const name of options.allow) {
    if (typeof name !== 'string' || name.length === 0) {
      throw new TypeError('createSpanExporter: allowlist entries must be non-empty strings');
    }
  }
  const allowed = new Set(options.allow);
  const { sink } = options;

  return {
    async export(span: Span): Promise<void> {
      const source = span.attributes ?? {};
      const entries = Object.entries(source);
      const kept = entries.filter(([name]) => allowed.has(name));
      // Built field by field, never by spreading `span`: a property nobody declared
      // (`span.headers`, `span.request`) must not ride along past the allowlist.
      const exported: ExportedSpan = {
        name: String(span.name),
        ...(typeof span.runId === 'string' ? { runId: span.runId } : {}),
        ...(typeof span.spanId === 'string' ? { spanId: span.spanId } : {}),
        ...(typeof span.parentSpanId === 'string' ? { parentSpanId: span.parentSpanId } : {}),
        startMs: Number(span.startMs),
        ...(typeof span.endMs === 'number' ? { endMs: span.endMs } : {}),
        ...(span.status === 'ok' || span.status === 'error' ? { status: span.status } : {}),
        // fromEntries defines own properties, so an allowed `__proto__` could not re-parent the object.
        attributes: Object.fromEntries(kept),
        droppedAttributeCount: entries.length - kept.length,
      };
      await sink(exported);
    },
  };
}
