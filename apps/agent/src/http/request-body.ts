import { ApiError } from './api-error.ts';

/**
 * A raw body of at most `limit` bytes. The limit is enforced on the raw stream as
 * it arrives, not only on Content-Length: a chunked body has none, and the read
 * stops (and the stream is cancelled) at the first byte over the limit, so an
 * unbounded body is never buffered (the seed's "unbounded request body" finding).
 * `what` names the body and its setting in the refusal ("the body … MAX_BODY_BYTES").
 */
export async function readBoundedBytes(request: Request, limit: number, what: { noun: string; setting: string }): Promise<Uint8Array> {
  const declared = request.headers.get('content-length');
  if (declared !== null && /^\d+$/.test(declared) && Number(declared) > limit) {
    throw new ApiError('payload_too_large', `The ${what.noun} is ${declared} bytes; the limit is ${limit} (${what.setting}).`);
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
        throw new ApiError('payload_too_large', `The ${what.noun} is over the limit of ${limit} bytes (${what.setting}).`);
      }
      pieces.push(value);
    }
  }
  return Buffer.concat(pieces, total);
}

/** Reads a JSON body of at most `limit` bytes (MAX_BODY_BYTES), bounded as it streams. */
export async function readJsonBody(request: Request, limit: number): Promise<unknown> {
  const bytes = await readBoundedBytes(request, limit, { noun: 'body', setting: 'MAX_BODY_BYTES' });
  const total = bytes.byteLength;
  if (total === 0) throw new ApiError('invalid_request', 'The body is empty; send a JSON object.');
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new ApiError('invalid_request', 'The body is not valid UTF-8.');
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ApiError('invalid_request', 'The body is not valid JSON.');
  }
}
