/**
 * Raw HTTP for attacks. `fetch` normalises what an attacker would not: it
 * resolves `/../` out of a path, refuses some header values and always frames
 * the body itself. node:http sends the path exactly as written and lets a test
 * choose the framing (a body with no Content-Length), so traversal and
 * oversize attempts reach the server as they would from a hostile client.
 */
import { request as httpRequest } from 'node:http';
import { API_ERRORS, type ApiErrorCode } from 'sandscope';
import { parseSse, type SseEvent } from 'sandscope/testing';

export interface RawResponse {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
  /** Wall time from sending to the last byte, in ms. */
  readonly ms: number;
}

export interface RawRequest {
  readonly method: string;
  /** Sent as is: no normalisation, no encoding. */
  readonly path: string;
  readonly headers?: Record<string, string>;
  readonly body?: string | Buffer;
  /** Send the body chunked, without Content-Length (a client that does not say how much is coming). */
  readonly chunked?: boolean;
  readonly timeoutMs?: number;
}

export function send(base: string, req: RawRequest): Promise<RawResponse> {
  const url = new URL(base);
  return new Promise((done, fail) => {
    const started = performance.now();
    const headers: Record<string, string> = { ...req.headers };
    if (req.body !== undefined && !req.chunked) headers['content-length'] = String(Buffer.byteLength(req.body));
    const r = httpRequest({ host: url.hostname, port: url.port, method: req.method, path: req.path, headers, agent: false }, (res) => {
      const pieces: Buffer[] = [];
      res.on('data', (d: Buffer) => pieces.push(d));
      res.on('end', () =>
        done({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(pieces).toString('utf8'), ms: performance.now() - started }),
      );
      res.on('error', fail);
    });
    r.setTimeout(req.timeoutMs ?? 60_000, () =>
      r.destroy(new Error(`${req.method} ${req.path.slice(0, 120)}: no answer within ${req.timeoutMs ?? 60_000} ms`)),
    );
    r.on('error', (error: NodeJS.ErrnoException) => {
      // The server may answer 413 and close before it has read a huge body; the answer is what counts.
      fail(error);
    });
    if (req.body !== undefined) {
      if (req.chunked) {
        const body = Buffer.from(req.body);
        for (let i = 0; i < body.length; i += 64 * 1024) r.write(body.subarray(i, i + 64 * 1024));
      } else r.write(req.body);
    }
    r.end();
  });
}

export const ERROR_CODES = new Set(Object.keys(API_ERRORS) as ApiErrorCode[]);

/**
 * Why a response breaks the API's error contract (docs/API.md), or null when it
 * keeps it: a non-2xx answer is `{ error: { code, message } }` with a code from
 * the closed vocabulary and that code's status; a stream's `error` event is too,
 * and is never `internal` (a bug surfacing after a 200 — defect 5's shape).
 */
export function contractBreach(res: RawResponse, maxErrorBytes = 4_096): string | null {
  if (res.status >= 500 && res.status !== 503) return `${res.status}`;
  const type = String(res.headers['content-type'] ?? '');
  if (res.status >= 200 && res.status < 300) {
    if (!type.startsWith('text/event-stream')) return null;
    for (const event of safeSse(res.text)) {
      if (event.event !== 'error') continue;
      const code = (event.data as { error?: { code?: string } } | null)?.error?.code;
      if (!code || !ERROR_CODES.has(code as ApiErrorCode)) return `stream error event outside the vocabulary: ${JSON.stringify(event.data).slice(0, 200)}`;
      if (code === 'internal') return 'stream error event `internal` after 200';
    }
    return null;
  }
  let body: unknown;
  try {
    body = JSON.parse(res.text);
  } catch {
    return `${res.status} with a body that is not JSON: ${res.text.slice(0, 120)}`;
  }
  const error = (body as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  if (!error || typeof error.code !== 'string' || typeof error.message !== 'string')
    return `${res.status} without { error: { code, message } }: ${res.text.slice(0, 120)}`;
  if (!ERROR_CODES.has(error.code as ApiErrorCode)) return `${res.status} code ${error.code} is not in the vocabulary`;
  const expected = API_ERRORS[error.code as ApiErrorCode].status;
  if (expected !== res.status) return `${error.code} answered with ${res.status}, its status is ${expected}`;
  if (error.code === 'internal') return '500 internal';
  if (Buffer.byteLength(res.text) > maxErrorBytes)
    return `${error.code} body of ${Buffer.byteLength(res.text)} bytes (over ${maxErrorBytes}: the request is echoed back)`;
  return null;
}

export function errorCodeOf(res: RawResponse): string | undefined {
  try {
    return (JSON.parse(res.text) as { error?: { code?: string } }).error?.code;
  } catch {
    return undefined;
  }
}

export function safeSse(text: string): SseEvent[] {
  try {
    return parseSse(text);
  } catch {
    return [{ event: 'error', data: { error: { code: 'unparseable-stream' } } }];
  }
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length === 0 ? Number.NaN : sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
