import {
  APICallError,
  type LanguageModelV3,
  type LanguageModelV3CallOptions,
  type LanguageModelV3GenerateResult,
  type LanguageModelV3StreamPart,
  type LanguageModelV3StreamResult,
  type LanguageModelV3Usage,
} from '@ai-sdk/provider';
import { tokenUsage } from '../pricing.ts';

/** One scripted answer. Each call consumes the next step; the last step repeats. */
export type ScriptStep =
  | { readonly kind: 'text'; readonly text: string; readonly usage?: LanguageModelV3Usage; readonly delayMs?: number }
  | { readonly kind: 'error'; readonly error: unknown; readonly delayMs?: number }
  /** Streams: the deltas, then throws `error` from the stream — a failure after content. */
  | { readonly kind: 'stream-then-error'; readonly deltas: readonly string[]; readonly error: unknown }
  /** Streams: `stream-start`, then an `error` part — a failure before any content. */
  | { readonly kind: 'error-before-content'; readonly error: unknown };

/**
 * A model that answers from a script and records every call (STYLE 12: ship
 * fakes with the code). Both doGenerate and doStream consume the same script.
 */
export class ScriptedModel implements LanguageModelV3 {
  readonly specificationVersion = 'v3';
  readonly modelId = 'scripted';
  readonly supportedUrls: Record<string, RegExp[]> = {};
  readonly calls: LanguageModelV3CallOptions[] = [];
  private index = 0;

  constructor(
    readonly provider: string,
    private readonly steps: readonly ScriptStep[],
  ) {}

  private next(options: LanguageModelV3CallOptions): ScriptStep {
    this.calls.push(options);
    const step = this.steps[Math.min(this.index, this.steps.length - 1)];
    this.index++;
    if (!step) throw new Error(`${this.provider}: empty script`);
    return step;
  }

  async doGenerate(options: LanguageModelV3CallOptions): Promise<LanguageModelV3GenerateResult> {
    const step = this.next(options);
    if ('delayMs' in step && step.delayMs) await new Promise((r) => setTimeout(r, step.delayMs));
    if (step.kind === 'error' || step.kind === 'error-before-content' || step.kind === 'stream-then-error') throw step.error;
    return {
      content: [{ type: 'text', text: step.text }],
      finishReason: { unified: 'stop', raw: 'stop' },
      usage: step.usage ?? tokenUsage(10, 5),
      warnings: [],
    };
  }

  async doStream(options: LanguageModelV3CallOptions): Promise<LanguageModelV3StreamResult> {
    const step = this.next(options);
    if ('delayMs' in step && step.delayMs) await new Promise((r) => setTimeout(r, step.delayMs));
    if (step.kind === 'error') throw step.error;
    const parts: LanguageModelV3StreamPart[] = [{ type: 'stream-start', warnings: [] }];
    if (step.kind === 'error-before-content') {
      parts.push({ type: 'error', error: step.error });
      return { stream: fromParts(parts) };
    }
    const deltas = step.kind === 'text' ? [step.text] : step.deltas;
    parts.push({ type: 'text-start', id: 't' });
    for (const delta of deltas) parts.push({ type: 'text-delta', id: 't', delta });
    if (step.kind === 'stream-then-error') return { stream: fromParts(parts, step.error) };
    parts.push({ type: 'text-end', id: 't' });
    parts.push({ type: 'finish', usage: step.usage ?? tokenUsage(10, 5), finishReason: { unified: 'stop', raw: 'stop' } });
    return { stream: fromParts(parts) };
  }
}

function fromParts(parts: LanguageModelV3StreamPart[], thenThrow?: unknown): ReadableStream<LanguageModelV3StreamPart> {
  let i = 0;
  return new ReadableStream({
    pull(controller) {
      const part = parts[i++];
      if (part) controller.enqueue(part);
      else if (thenThrow !== undefined) controller.error(thenThrow);
      else controller.close();
    },
  });
}

/** A provider 429, as the AI SDK reports it. */
export function rateLimitError(headers: Record<string, string> = {}): APICallError {
  return new APICallError({
    message: 'Too Many Requests',
    url: 'https://provider.test/v1/chat/completions',
    requestBodyValues: {},
    statusCode: 429,
    responseHeaders: headers,
  });
}

/** A provider 5xx, as the AI SDK reports it. */
export function serverError(status = 500): APICallError {
  return new APICallError({
    message: 'Internal Server Error',
    url: 'https://provider.test/v1/chat/completions',
    requestBodyValues: {},
    statusCode: status,
  });
}

/** A clock a test moves by hand. */
export function manualClock(start = 1_700_000_000_000): { now: () => number; advance: (ms: number) => void } {
  let t = start;
  return { now: () => t, advance: (ms) => void (t += ms) };
}
