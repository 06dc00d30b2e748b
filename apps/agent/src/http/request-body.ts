import { ApiError } from './api-error.ts';

/**
 * Reads a JSON body of at most `limit` bytes. The limit is enforced on the raw
 * stream as it arrives, not only on Content-Length: a chunked body has none,
 * and the read stops (and the stream is cancelled) at the first byte over the
 * limit, so an unbounded body is never buffered (the seed's "unbounded request
 * body" finding).
 */
export async function readJsonBody(request: Request, limit: number): Promise<unknown> {
  const declared = request.headers.get('content-length');
  if (declared !== null && /^\d+$/.test(declared) && Number(declared) > limit) {
    throw new ApiError('payload_too_large', `The body is ${declared} bytes; the limit is ${limit} (MAX_BODY_BYTES).`);
  }
  const pieces: Uint8Array[] = [];
  let total = 0;
  if (request.body) {
    const reader = request.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > limit) {
        await reader.cancel().catch(() => {});
        throw new ApiError('payload_too_large', `The body is over the limit of ${limit} bytes (MAX_BODY_BYTES).`);
      }
      pieces.push(value);
    }
  }
  if (total === 0) throw new ApiError('invalid_request', 'The body is empty; send a JSON object.');
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(pieces, total));
  } catch {
    throw new ApiError('invalid_request', 'The body is not valid UTF-8.');
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ApiError('invalid_request', 'The body is not valid JSON.');
  }
}
