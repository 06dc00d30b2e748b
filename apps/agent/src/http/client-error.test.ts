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
 * S-206 over a real socket (the socket is the point: Node's parser refuses these before the app sees them, so
 * `app.request()` cannot send them). Raw bytes in, the raw response read whole: a refusal in the API's one error
 * shape, its length right, the connection closed, one line logged, none of the request's bytes echoed.
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

describe('a request Node’s HTTP parser refuses (S-206)', () => {
  let store: Store;
  let agent: AgentService;
  let server: Listening;
  const logged: string[] = [];

  beforeAll(async () => {
    store = await startStore({ dataDir: 'memory://' });
    const parsed = loadConfig({ AGENT_TOKEN: TOKEN, IP_SALT: 'salt-for-tests-0123456789' }, { requireToken: true });
    if (!parsed.ok) throw new Error(parsed.message);
    agent = await startAgentService({ config: parsed.config, store, log: () => {} });
    server = await listen(createApp(appDepsOf(agent)), { port: 0, host: '127.0.0.1', log: (line) => logged.push(line) });
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
  });

  it('answers headers over Node’s limit with 431 payload_too_large, naming the limit and the setting', async () => {
    const raw = `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${MARKER}${'a'.repeat(maxHeaderSize + 1024)}\r\n\r\n`;
    const error = expectRefusal(await exchange(server.port, raw), 431);
    expect(error.code).toBe('payload_too_large');
    expect(error.message).toContain(`limit of ${maxHeaderSize} bytes`);
    expect(error.message).toContain('--max-http-header-size');
    expect(logged.at(-1)).toBe(`refused a request Node's HTTP parser could not read (HPE_HEADER_OVERFLOW): 431 payload_too_large`);
  });

  it('leaves a well-formed request to the app', async () => {
    const response = await exchange(server.port, `GET /v1/nothing HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKEN}\r\nConnection: close\r\n\r\n`);
    expect(response.status).toBe(404);
    expect(apiErrorBodySchema.parse(JSON.parse(response.body.toString('utf8'))).error.code).toBe('not_found');
  });
});
