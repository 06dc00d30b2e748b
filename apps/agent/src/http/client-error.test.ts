import { maxHeaderSize } from 'node:http';
import { connect } from 'node:net';
import { API_ERRORS, apiErrorBodySchema } from '@sandscope/api/errors';
import { startStore, type Store } from '@sandscope/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.ts';
import { type AgentService, startAgentService } from '../service/compose.ts';
import { appDepsOf, createApp } from './app.ts';
import { type Listening, listen } from './listen.ts';

/**
 * S-206 and S-212 over a real socket (the socket is the point: Node, its parser and node-server refuse these before
 * the app sees them, so `app.request()` cannot send them). Raw bytes in, the raw response read whole: a refusal in the
 * API's one error shape, its length right, the connection closed, one line logged, none of the request's bytes echoed.
 */
const TOKEN = 'client-error-token-0123456789abcdef';
const MARKER = 'zz-s206-marker';

interface RawResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
}

/** Sends `raw` on a new connection and reads until the server closes it. */
function exchange(port: number, raw: string): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(raw, 'latin1'));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const all = Buffer.concat(chunks);
      const end = all.indexOf('\r\n\r\n');
      if (end < 0) return reject(new Error(`no complete response head: ${JSON.stringify(all.toString('latin1'))}`));
      const [statusLine, ...lines] = all.subarray(0, end).toString('latin1').split('\r\n');
      const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
      resolve({ status: Number(statusLine!.split(' ')[1]), headers, body: all.subarray(end + 4) });
    });
    socket.setTimeout(10_000, () => socket.destroy(new Error('the server neither answered nor closed within 10 s')));
  });
}

/**
 * Sends `head`; once the server answers `100 Continue`, sends `body` (if any). Reads until the server closes the
 * connection, and gives every byte it sent.
 */
function rawExchange(port: number, head: string, body?: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(head, 'latin1'));
    const chunks: Buffer[] = [];
    let continued = false;
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      if (!continued && body !== undefined && Buffer.concat(chunks).toString('latin1').startsWith('HTTP/1.1 100 Continue\r\n\r\n')) {
        continued = true;
        socket.write(body, 'latin1');
      }
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks)));
    socket.setTimeout(10_000, () => socket.destroy(new Error('the server neither answered nor closed within 10 s')));
  });
}

describe('a request refused before the app sees it: by Node’s HTTP parser (S-206), Node or node-server (S-212)', () => {
  let store: Store;
  let agent: AgentService;
  let server: Listening;
  const logged: string[] = [];
  const counted: number[] = [];

  beforeAll(async () => {
    store = await startStore({ dataDir: 'memory://' });
    const parsed = loadConfig({ AGENT_TOKEN: TOKEN, IP_SALT: 'salt-for-tests-0123456789' }, { requireToken: true });
    if (!parsed.ok) throw new Error(parsed.message);
    agent = await startAgentService({ config: parsed.config, store, log: () => {} });
    server = await listen(createApp(appDepsOf(agent)), {
      port: 0,
      host: '127.0.0.1',
      log: (line) => logged.push(line),
      counted: (status) => counted.push(status),
    });
  }, 120_000);

  afterAll(async () => {
    await server?.close(1_000);
    await agent?.close();
    await store?.close();
  });

  /** The response is the API's error body, whole and closed; returns its code and message. */
  function expectRefusal(response: RawResponse, status: number) {
    expect(response.status).toBe(status);
    expect(response.headers['content-type']).toBe('application/json');
    expect(response.headers.connection).toBe('close');
    expect(Number(response.headers['content-length'])).toBe(response.body.length);
    const body = apiErrorBodySchema.parse(JSON.parse(response.body.toString('utf8')));
    expect(response.body.toString('latin1')).not.toContain(MARKER);
    return body.error;
  }

  it.each([
    ['a Content-Length that is not a number', `POST /v1/runs HTTP/1.1\r\nHost: x\r\nContent-Length: 12${MARKER}\r\n\r\n`, 'HPE_INVALID_CONTENT_LENGTH'],
    ['two different Content-Lengths', `POST /v1/runs HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab`, 'HPE_UNEXPECTED_CONTENT_LENGTH'],
    ['a control character in a header value', `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Note: ${MARKER}\x01${MARKER}\r\n\r\n`, 'HPE_INVALID_HEADER_TOKEN'],
  ])('answers %s with 400 invalid_request in the API’s error shape, and logs it', async (_what, raw, parserCode) => {
    const error = expectRefusal(await exchange(server.port, raw), 400);
    expect(error.code).toBe('invalid_request');
    expect(error.message).toContain(parserCode);
    expect(error.message).toContain('Send a well-formed HTTP/1.1 request.');
    expect(error.message.endsWith(API_ERRORS.invalid_request.remedy)).toBe(true);
    expect(logged.at(-1)).toBe(`refused a request Node's HTTP parser could not read (${parserCode}): 400 invalid_request`);
    expect(counted.at(-1)).toBe(400);
  });

  it('answers headers over Node’s limit with 431 payload_too_large, naming the limit and the setting', async () => {
    const raw = `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${MARKER}${'a'.repeat(maxHeaderSize + 1024)}\r\n\r\n`;
    const error = expectRefusal(await exchange(server.port, raw), 431);
    expect(error.code).toBe('payload_too_large');
    expect(error.message).toContain(`limit of ${maxHeaderSize} bytes`);
    expect(error.message).toContain('--max-http-header-size');
    expect(logged.at(-1)).toBe(`refused a request Node's HTTP parser could not read (HPE_HEADER_OVERFLOW): 431 payload_too_large`);
    expect(counted.at(-1)).toBe(431);
  });

  // S-212: these three were answered before the app with a bare status and no body.
  it('answers an HTTP/1.1 request without a Host header 400 invalid_request in the API’s shape, before any 100 Continue', async () => {
    const error = expectRefusal(await exchange(server.port, `GET /healthz HTTP/1.1\r\nX-Note: ${MARKER}\r\n\r\n`), 400);
    expect(error.code).toBe('invalid_request');
    expect(error.message).toBe(`An HTTP/1.1 request must carry a Host header; send one (e.g. Host: localhost). ${API_ERRORS.invalid_request.remedy}`);
    expect(logged.at(-1)).toBe('refused a request before the app (no Host header): 400 invalid_request');
    // Counted for /metrics as the app's answers are: its middleware never sees these (S-219).
    expect(counted.at(-1)).toBe(400);
    // An upload that waits for 100 Continue is refused without being asked for its body.
    const raw = await rawExchange(server.port, 'POST /v1/investigations HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n');
    expect(raw.toString('latin1')).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    // HTTP/1.0 has no Host to send: still served.
    expect((await exchange(server.port, 'GET /healthz HTTP/1.0\r\n\r\n')).status).toBe(200);
  });

  it('answers a target that is not a path (OPTIONS *) 400 invalid_request in the API’s shape', async () => {
    const error = expectRefusal(await exchange(server.port, `OPTIONS * HTTP/1.1\r\nHost: x\r\nX-Note: ${MARKER}\r\n\r\n`), 400);
    expect(error.code).toBe('invalid_request');
    expect(error.message).toMatch(/^The agent could not read the request: its target is not a path: .*\(OPTIONS \* asks about the server as a whole/);
    expect(logged.at(-1)).toBe('refused a request before the app (node-server: Invalid URL): 400 invalid_request');
    expect(counted.at(-1)).toBe(400);
  });

  it('answers an Expect it cannot meet 417 in the API’s shape, and still meets Expect: 100-continue for an upload', async () => {
    const error = expectRefusal(await exchange(server.port, `PUT /v1/x HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\nX-Note: ${MARKER}\r\n\r\n`), 417);
    expect(error.code).toBe('invalid_request');
    expect(error.message).toMatch(
      /^The request has an Expect header the agent cannot meet: it meets only Expect: 100-continue\. Send the request without it\. /,
    );
    expect(counted.at(-1)).toBe(417);

    const auth = { authorization: `Bearer ${TOKEN}` };
    const created = await fetch(`${server.url}/v1/investigations`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'expects continue' }),
    });
    const { investigation } = (await created.json()) as { investigation: { id: string } };
    const log = 'line one\nline two\n';
    const head =
      `PUT /v1/investigations/${investigation.id}/files/app.log HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKEN}\r\n` +
      `Content-Type: text/plain\r\nContent-Length: ${log.length}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n`;
    const answered = (await rawExchange(server.port, head, log)).toString('latin1');
    expect(answered).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 201 Created\r\n/);
    const listed = (await (await fetch(`${server.url}/v1/investigations/${investigation.id}/files`, { headers: auth })).json()) as {
      files: { path: string }[];
    };
    expect(listed.files.map((f) => f.path)).toEqual(['app.log']);
  });

  it('leaves a well-formed request to the app', async () => {
    const before = counted.length;
    const response = await exchange(server.port, `GET /v1/nothing HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKEN}\r\nConnection: close\r\n\r\n`);
    expect(response.status).toBe(404);
    expect(apiErrorBodySchema.parse(JSON.parse(response.body.toString('utf8'))).error.code).toBe('not_found');
    // The app's middleware counts this one; counting it here too would count it twice.
    expect(counted.length).toBe(before);
  });
});
