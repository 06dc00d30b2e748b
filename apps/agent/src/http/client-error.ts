import { maxHeaderSize, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
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

/** The whole HTTP/1.1 response for a refusal: its status line, the JSON error body and its length, the connection closed. */
function clientErrorResponse(errorCode: string | undefined): { readonly status: number; readonly code: ApiErrorCode; readonly bytes: Buffer } {
  const { status, code, detail } = refusalOf(errorCode);
  const body = Buffer.from(JSON.stringify(new ApiError(code, detail).body()), 'utf8');
  const head =
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\n` +
    'Content-Type: application/json\r\n' +
    `Content-Length: ${body.length}\r\n` +
    'Connection: close\r\n\r\n';
  return { status, code, bytes: Buffer.concat([Buffer.from(head, 'latin1'), body]) };
}

/** The socket as node:http hands it to `clientError`: `_httpMessage` is the response in flight on it, if any. */
type ClientSocket = Duplex & { _httpMessage?: { _headerSent?: boolean } | null };

/**
 * A `clientError` listener for a node:http server. With one attached Node writes nothing and closes nothing itself, so
 * every path here ends the socket. A reset, or a socket whose response has begun, is only closed, as Node's own
 * handler does; a socket already refused here is left to close once its refusal is sent (the parser raises again on
 * each later chunk of the same bad request).
 */
export function answerClientError(log?: (line: string) => void): (error: Error & { code?: string }, socket: Duplex) => void {
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
    log?.(`refused a request Node's HTTP parser could not read (${error.code ?? 'no code'}): ${status} ${code}`);
    socket.end(bytes, () => socket.destroy());
  };
}
