import { type IncomingMessage, maxHeaderSize, type RequestListener, type ServerResponse, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { RequestError } from '@hono/node-server';
import { ApiError, type ApiErrorCode } from './api-error.ts';

/*
 * S-206: a request Node's own HTTP parser refuses before the app sees it — a Content-Length of `abc`, two different
 * Content-Lengths, a control character in a header, headers over Node's limit — was answered with Node's bare
 * `HTTP/1.1 400 Bad Request` (or 431), no body and no log line, the one refusal of the agent not in its error
 * vocabulary (docs/API.md). This answers it as the app answers every other: `{ error: { code, message } }` with a
 * code of @sandscope/api/errors, then closes the connection, since the parser cannot say where the next request
 * would start. The message is ours, never the request's bytes.
 */

/** Node's parser error codes, and the statuses it answers them with itself (node:_http_server, `socketOnError`). */
const REFUSALS: Readonly<Record<string, { readonly status: number; readonly code: ApiErrorCode; readonly detail: () => string }>> = {
  HPE_HEADER_OVERFLOW: {
    status: 431,
    code: 'payload_too_large',
    detail: () => `The request's headers are over the agent's limit of ${maxHeaderSize} bytes (Node's --max-http-header-size, set in NODE_OPTIONS).`,
  },
  HPE_CHUNK_EXTENSIONS_OVERFLOW: {
    status: 413,
    code: 'payload_too_large',
    detail: () => "A chunk extension of the request's body is over Node's fixed limit of 16 KiB; send the body without chunk extensions.",
  },
  ERR_HTTP_REQUEST_TIMEOUT: {
    status: 408,
    code: 'invalid_request',
    detail: () => 'The request did not arrive whole in time (its headers or its body were still incomplete); send it again, whole.',
  },
};

/** What a parser error is called in a message: the cases a client is likeliest to meet, else the parser's code alone. */
const WHAT: Readonly<Record<string, string>> = {
  HPE_INVALID_CONTENT_LENGTH: 'its Content-Length is not a number',
  HPE_UNEXPECTED_CONTENT_LENGTH: 'it has two Content-Lengths, or a Content-Length with Transfer-Encoding: chunked',
  HPE_INVALID_HEADER_TOKEN: 'a header name or value has a character HTTP does not allow',
  HPE_INVALID_TRANSFER_ENCODING: 'its Transfer-Encoding is not one HTTP allows',
};

/** The status, code and detail a parser error is answered with. */
function refusalOf(errorCode: string | undefined): { readonly status: number; readonly code: ApiErrorCode; readonly detail: string } {
  const known = errorCode === undefined ? undefined : REFUSALS[errorCode];
  if (known) return { status: known.status, code: known.code, detail: known.detail() };
  const what = (errorCode === undefined ? undefined : WHAT[errorCode]) ?? 'it is not well-formed HTTP/1.1';
  const named = errorCode && /^[A-Z_]+$/.test(errorCode) ? ` (${errorCode})` : '';
  return { status: 400, code: 'invalid_request', detail: `The agent could not read the request${named}: ${what}. Send a well-formed HTTP/1.1 request.` };
}

/** A refusal's body: the API's one error shape, as bytes. */
function errorBytes(code: ApiErrorCode, detail: string): Buffer {
  return Buffer.from(JSON.stringify(new ApiError(code, detail).body()), 'utf8');
}

/** The whole HTTP/1.1 response for a refusal: its status line, the JSON error body and its length, the connection closed. */
function clientErrorResponse(errorCode: string | undefined): { readonly status: number; readonly code: ApiErrorCode; readonly bytes: Buffer } {
  const { status, code, detail } = refusalOf(errorCode);
  const body = errorBytes(code, detail);
  const head =
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\n` +
    'Content-Type: application/json\r\n' +
    `Content-Length: ${body.length}\r\n` +
    'Connection: close\r\n\r\n';
  return { status, code, bytes: Buffer.concat([Buffer.from(head, 'latin1'), body]) };
}

/** The socket as node:http hands it to `clientError`: `_httpMessage` is the response in flight on it, if any. */
type ClientSocket = Duplex & { _httpMessage?: { _headerSent?: boolean } | null };

/** Hears each answer given before the app: the line to log, and the status answered (so /metrics counts it too). */
type Heard = (line: string, status: number) => void;

/**
 * A `clientError` listener for a node:http server. With one attached Node writes nothing and closes nothing itself, so
 * every path here ends the socket. A reset, or a socket whose response has begun, is only closed, as Node's own
 * handler does; a socket already refused here is left to close once its refusal is sent (the parser raises again on
 * each later chunk of the same bad request).
 */
export function answerClientError(log?: Heard): (error: Error & { code?: string }, socket: Duplex) => void {
  const answered = new WeakSet<Duplex>();
  return (error, raw) => {
    const socket = raw as ClientSocket;
    if (answered.has(socket)) return;
    if (error.code === 'ECONNRESET' || !socket.writable || socket._httpMessage?._headerSent) {
      socket.destroy();
      return;
    }
    answered.add(socket);
    const { status, code, bytes } = clientErrorResponse(error.code);
    log?.(`refused a request Node's HTTP parser could not read (${error.code ?? 'no code'}): ${status} ${code}`, status);
    socket.end(bytes, () => socket.destroy());
  };
}

/*
 * S-212: three more requests were answered before the app saw them, with a bare status and no body: an HTTP/1.1
 * request with no Host header (Node's `requireHostHeader`: 400), an `Expect` other than 100-continue (Node's 417 when
 * no 'checkExpectation' listener is attached), and a request node-server cannot make a URL of — a target that is not a
 * path, as in `OPTIONS *`, or a Host that names no host (its `RequestError`: 400). Each is answered here in the API's
 * error shape, with a message that says what to send, the connection closed as Node closes it for a missing Host.
 */

/** Writes a refusal on a request Node has parsed: the JSON error body, its length, and the connection closed after it. */
function refuse(res: ServerResponse, status: number, code: ApiErrorCode, detail: string, log: Heard | undefined, what: string): void {
  const body = errorBytes(code, detail);
  log?.(`refused a request before the app (${what}): ${status} ${code}`, status);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': body.length, Connection: 'close' });
  res.end(body);
}

/** RFC 9112 section 3.2: a server must answer 400 to an HTTP/1.1 request without a Host header (HTTP/1.0 has none to send). */
function refusedWithoutHost(req: IncomingMessage, res: ServerResponse, log?: Heard): boolean {
  if (req.httpVersion !== '1.1' || req.headers.host !== undefined) return false;
  refuse(res, 400, 'invalid_request', 'An HTTP/1.1 request must carry a Host header; send one (e.g. Host: localhost).', log, 'no Host header');
  return true;
}

/**
 * The listeners a node:http server made with `requireHostHeader: false` needs so that nothing is answered bare before
 * `requests` (node-server's listener for the app): `request` refuses an HTTP/1.1 request without Host as Node would,
 * in the API's shape; `checkContinue` does the same before it sends `100 Continue` (so a refused upload is not asked
 * for its body), then does what Node does without the listener: 100 Continue, and the request goes to the app;
 * `checkExpectation` answers any other `Expect` 417, as Node does, in the API's shape.
 */
export function refusalsBeforeTheApp(
  requests: RequestListener,
  log?: Heard,
): { readonly request: RequestListener; readonly checkContinue: RequestListener; readonly checkExpectation: RequestListener } {
  return {
    request: (req, res) => {
      if (!refusedWithoutHost(req, res, log)) void requests(req, res);
    },
    checkContinue: (req, res) => {
      if (refusedWithoutHost(req, res, log)) return;
      res.writeContinue();
      void requests(req, res);
    },
    checkExpectation: (req, res) => {
      if (refusedWithoutHost(req, res, log)) return;
      refuse(
        res,
        417,
        'invalid_request',
        'The request has an Expect header the agent cannot meet: it meets only Expect: 100-continue. Send the request without it.',
        log,
        'an Expect other than 100-continue',
      );
    },
  };
}

/** What node-server's `RequestError` messages are called in a refusal (src/url.ts, src/request.ts). */
const UNREADABLE: Readonly<Record<string, string>> = {
  'Invalid URL':
    'its target is not a path: the agent answers requests for a path that starts with / (OPTIONS * asks about the server as a whole, which it does not answer)',
  'Invalid host header': 'its Host header is not a host name, with or without a port',
  'Backslash in request path': 'its path contains a backslash; use / between the segments of a path',
  'Invalid absolute URL': 'its target is not a valid http:// or https:// URL',
};

/**
 * node-server's `errorHandler`: a request it could not make a URL of (`RequestError`) is a 400 in the API's shape,
 * anything else — a bug: the app converts its own errors in onError, so only its fetch throwing outright lands here —
 * a 500 `internal`. Without one node-server answered both with an empty body.
 */
export function unreadableRequest(log?: Heard): (error: unknown) => Response {
  return (error) => {
    const unreadable = error instanceof RequestError;
    const code: ApiErrorCode = unreadable ? 'invalid_request' : 'internal';
    const detail = unreadable
      ? `The agent could not read the request: ${UNREADABLE[error.message] ?? 'its target or its Host header is not one HTTP allows'}. Send a well-formed HTTP/1.1 request.`
      : undefined;
    log?.(
      unreadable
        ? `refused a request before the app (node-server: ${error.message}): 400 invalid_request`
        : // Its name only: this log is not the app's scrubbed one (issue 12, defect 3), and a message may quote a secret.
          `a request failed before the app saw it (${error instanceof Error ? error.name : typeof error}): 500 internal`,
      unreadable ? 400 : 500,
    );
    return new Response(JSON.stringify(new ApiError(code, detail).body()), {
      status: unreadable ? 400 : 500,
      headers: { 'Content-Type': 'application/json', Connection: 'close' },
    });
  };
}
