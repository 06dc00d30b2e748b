import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { echoed } from '../service/service-error.ts';
import { ApiError } from './api-error.ts';

/** What a bounded body is called in its refusal, and the setting that bounds it. */
export interface BodyName {
  readonly noun: string;
  readonly setting: string;
}

export const REQUEST_BODY: BodyName = { noun: 'body', setting: 'MAX_BODY_BYTES' };

/**
 * A request body of at most `limit` bytes, before the handler reads it: Hono's
 * `bodyLimit`, which refuses by Content-Length and otherwise counts the raw
 * stream as it arrives, stopping at the first byte over — a chunked body has no
 * Content-Length, and an unbounded body is never buffered (the seed's "unbounded
 * request body" finding). The refusal is the API's `payload_too_large`, naming the
 * body and its setting ("the file … INVESTIGATION_FILE_MAX_BYTES").
 */
export function boundedBody(limit: number, what: BodyName = REQUEST_BODY): MiddlewareHandler {
  return bodyLimit({
    maxSize: limit,
    onError: async (c) => {
      const declared = c.req.header('content-length');
      if (declared !== undefined && !c.req.header('transfer-encoding')) {
        // Refused on its declared length before a byte is read. A client still sending (the website forwarding an
        // upload) then meets a closed socket and reports the agent unreachable instead of this refusal, so a
        // declared body up to DRAIN_FACTOR× the limit is read and discarded first — never buffered, and a body
        // declared larger than that is refused without reading, as before.
        if (Number(declared) <= limit * DRAIN_FACTOR) await discard(c.req.raw);
        throw new ApiError('payload_too_large', `The ${what.noun} is ${declared} bytes; the limit is ${limit} (${what.setting}).`);
      }
      throw new ApiError('payload_too_large', `The ${what.noun} is over the limit of ${limit} bytes (${what.setting}).`);
    },
  });
}

/** How far past its limit a declared body is still read (and discarded) so its sender gets the refusal. */
const DRAIN_FACTOR = 4;

async function discard(request: Request): Promise<void> {
  const reader = request.body?.getReader();
  if (!reader) return;
  try {
    for (;;) if ((await reader.read()).done) return;
  } catch {
    /* the client went away: nothing to tell it */
  }
}

/**
 * Parses a JSON body already bounded by `boundedBody`: empty, non-UTF-8 and non-JSON bodies are each refused by name,
 * and so is a body its Content-Type says is something else (`jsonBodyRefusal`). `optional`: an empty body is no body
 * (undefined), for a route that takes none.
 */
export async function readJsonBody(request: Request, options: { readonly optional?: boolean } = {}): Promise<unknown> {
  const bytes = new Uint8Array(await request.arrayBuffer());
  if (bytes.byteLength === 0) {
    if (options.optional) return undefined;
    throw new ApiError('invalid_request', 'The body is empty; send a JSON object.');
  }
  // A Content-Type describes a body: with no body there is nothing it could misdescribe.
  const refusal = jsonBodyRefusal(request.headers.get('content-type'));
  if (refusal) throw new ApiError('unsupported_media_type', refusal);
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

/** `application/json` and the structured `+json` types (`application/merge-patch+json`, RFC 6839): JSON by name. */
const JSON_MEDIA_TYPE = /^application\/(?:json|[!#$&^_.+\-a-z0-9]+\+json)$/;

/**
 * Why a JSON route refuses a body sent with this Content-Type, or null when it reads it. S-212: the Content-Type was
 * not looked at, so a form post (`curl -d`, which sends application/x-www-form-urlencoded) was read as JSON, and a
 * body declared in another charset was decoded as UTF-8. A JSON media type is read, with no charset or UTF-8's (JSON
 * is UTF-8, RFC 8259); anything else is a 415 that says what to send. A body with no Content-Type at all is read as
 * JSON: nothing contradicts it, and it is refused by name all the same if it is not JSON.
 */
function jsonBodyRefusal(contentType: string | null): string | null {
  if (contentType === null || contentType.trim() === '') return null;
  const [rawType = '', ...parameters] = contentType.split(';');
  const type = rawType.trim().toLowerCase();
  if (!JSON_MEDIA_TYPE.test(type)) return `The body is sent as ${JSON.stringify(echoed(type, 60))}, and this route reads JSON.`;
  for (const parameter of parameters) {
    const [name = '', value = ''] = parameter.split('=');
    if (name.trim().toLowerCase() !== 'charset') continue;
    const charset = value
      .trim()
      .replace(/^"(.*)"$/, '$1')
      .toLowerCase();
    if (charset !== 'utf-8' && charset !== 'utf8')
      return `The body is declared as charset ${JSON.stringify(echoed(charset, 40))}, and JSON is read as UTF-8 only.`;
  }
  return null;
}
