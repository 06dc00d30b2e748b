import { APICallError } from '@ai-sdk/provider';
import type { FetchFunction } from './timeout-fetch.ts';

/** Bytes a reply may take beyond its tokens: the JSON envelope, ids, usage, a stream's opening and closing events. */
export const REPLY_ENVELOPE_BYTES = 64 * 1024;
/**
 * Bytes a JSON reply may take per output token allowed. A token is about 4 bytes of English; a long run of spaces,
 * dashes or digits is one token of up to a few dozen; a JSON writer that escapes every non-ASCII character (Python's
 * default) writes 6 bytes for a character a tokenizer may spend one token on, and a tool call's arguments are JSON
 * escaped again inside the reply. 64 is several times the worst of these on average over a whole reply.
 */
export const JSON_REPLY_BYTES_PER_TOKEN = 64;
/**
 * Bytes a streamed reply may take per output token allowed: a provider may send one SSE event per token, each a whole
 * JSON chunk of a few hundred bytes (id, model, choices, sometimes usage), so the JSON allowance would cut a healthy
 * stream. 1 KiB is a few times such an event (an OpenAI-format chunk carrying a one-token delta is some 150 to 300 bytes).
 */
export const STREAM_REPLY_BYTES_PER_TOKEN = 1024;
/**
 * Output tokens a reply is bounded as if allowed when its request sent no max_tokens (the spend guard always sends
 * one; a router used without it may not): 32 times the 1,024 a draft asks for by default.
 */
export const UNCAPPED_REPLY_TOKENS = 32_768;

/** The most of a 2xx reply the client reads, and what it was derived from. */
export interface ReplyLimit {
  readonly bytes: number;
  /** The request's max_tokens; undefined when it sent none (the limit is then UNCAPPED_REPLY_TOKENS's). */
  readonly maxTokens: number | undefined;
  readonly stream: boolean;
}

/** The limit for a request, from its JSON body (the OpenAI-compatible `max_tokens` and `stream`). */
export function replyLimitOf(body: unknown): ReplyLimit {
  let parsed: unknown;
  try {
    parsed = typeof body === 'string' ? JSON.parse(body) : undefined;
  } catch {
    parsed = undefined;
  }
  const fields = typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
  const asked = [fields['max_tokens'], fields['max_completion_tokens']].find((v): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v > 0);
  const stream = fields['stream'] === true;
  const perToken = stream ? STREAM_REPLY_BYTES_PER_TOKEN : JSON_REPLY_BYTES_PER_TOKEN;
  return { bytes: REPLY_ENVELOPE_BYTES + (asked ?? UNCAPPED_REPLY_TOKENS) * perToken, maxTokens: asked, stream };
}

/**
 * `fetch` that stops reading a provider's 2xx reply once it passes what the request's max_tokens allows.
 *
 * S-266: a provider that ignored max_tokens returned a 696 KB answer to a call allowed 1,024 output tokens, and the
 * product took it whole: read into memory, stored with the run, shown, and charged by the usage the provider
 * reported. The bound is derived from max_tokens (a generous multiple of it, `replyLimitOf`), not a fixed cap, so an
 * investigation turn allowed many tokens is not cut where a short draft would be; a request with no max_tokens is
 * bounded as if it had asked for UNCAPPED_REPLY_TOKENS. Past the bound the body errors with a `reply_too_large`
 * APICallError (describeProviderError's class): the router records the attempt failed, charges it at its bound — the
 * provider generated at least everything it was allowed — and fails over as for any failure before content; a stream
 * already showing content ends with that error, as a stream that breaks does. The rest of the body is cancelled, not
 * read. Error replies are left as they are: no provider bills them, and the client keeps only an excerpt.
 */
export function fetchWithReplyLimit(fetchImpl: FetchFunction): FetchFunction {
  return async (input, init) => {
    const response = await fetchImpl(input, init);
    if (!response.ok || !response.body) return response;
    const limit = replyLimitOf(init?.body);
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const reader = response.body.getReader();
    let read = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const next = await reader.read();
        if (next.done) {
          controller.close();
          return;
        }
        read += next.value.byteLength;
        if (read > limit.bytes) {
          const error = tooLarge(url, limit);
          void reader.cancel(error).catch(() => {});
          controller.error(error);
          return;
        }
        controller.enqueue(next.value);
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    });
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

function tooLarge(url: string, limit: ReplyLimit): APICallError {
  const allowed =
    limit.maxTokens === undefined ? `the ${UNCAPPED_REPLY_TOKENS} output tokens allowed a request without max_tokens` : `max_tokens ${limit.maxTokens}`;
  return new APICallError({
    message: `the ${limit.stream ? 'stream' : 'reply'} passed ${limit.bytes} bytes, more than ${allowed} can take; the rest was not read`,
    url,
    requestBodyValues: undefined,
    // The same request would be answered the same way.
    isRetryable: false,
    // Read by describeProviderError: the `reply_too_large` class.
    data: { reason: 'reply_too_large', limitBytes: limit.bytes, ...(limit.maxTokens === undefined ? {} : { maxTokens: limit.maxTokens }) },
  });
}
