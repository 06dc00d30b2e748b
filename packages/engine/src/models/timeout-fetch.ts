import { APICallError } from '@ai-sdk/provider';

export type FetchFunction = typeof globalThis.fetch;

/**
 * `fetch` with a deadline, so a provider that hangs becomes a retryable failure
 * the router can fail over from, instead of a run that waits forever.
 *
 * The deadline applies to the response headers, then again to every wait for
 * the next body chunk (an idle timeout, armed only while the reader is waiting):
 * a long, healthy stream is never cut off, but one that goes silent — before its
 * first event or in the middle — is, and the router can still fail over if no
 * content had arrived. A caller's own abort passes through untouched: it is not
 * a provider fault and must not trigger failover.
 */
export function fetchWithTimeout(fetchImpl: FetchFunction, timeoutMs: number): FetchFunction {
  return async (input, init) => {
    const deadline = new AbortController();
    const callerSignal = init?.signal ?? undefined;
    const signal = callerSignal ? AbortSignal.any([callerSignal, deadline.signal]) : deadline.signal;
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const timedOut = (phase: string): APICallError =>
      new APICallError({
        message: `${phase} within ${timeoutMs} ms from ${new URL(url).host}`,
        url,
        requestBodyValues: undefined,
        isRetryable: true,
        // Read by describeProviderError: a deadline is the `timeout` class, not `network`.
        data: { reason: 'timeout' },
      });

    const timer = setTimeout(() => deadline.abort(timedOut('No response')), timeoutMs);
    let response: Response;
    try {
      response = await fetchImpl(input, { ...init, signal });
    } catch (error) {
      clearTimeout(timer);
      if (deadline.signal.aborted && !callerSignal?.aborted) throw deadline.signal.reason;
      throw error;
    }
    clearTimeout(timer);
    if (!response.body) return response;

    // Idle deadline: armed only while the consumer is waiting for the next chunk, so a slow reader is never mistaken for a silent provider.
    const reader = response.body.getReader();
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const idle = setTimeout(() => deadline.abort(timedOut('No data')), timeoutMs);
        try {
          const next = await reader.read();
          if (next.done) controller.close();
          else controller.enqueue(next.value);
        } catch (error) {
          controller.error(deadline.signal.aborted && !callerSignal?.aborted ? deadline.signal.reason : error);
        } finally {
          clearTimeout(idle);
        }
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    });
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}
