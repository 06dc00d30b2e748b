import { randomBytes } from 'node:crypto';
import { connect, createServer, type Server, type Socket } from 'node:net';
import pg from 'pg';
import { startStore, type Store } from '@sandscope/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.ts';
import { API_ERRORS } from '../http/api-error.ts';
import { appDepsOf, createApp } from '../http/app.ts';
import { type AgentService, startAgentService } from './compose.ts';

/**
 * A Postgres server at max_connections (SANDSCOPE_TEST_DATABASE_URL): the
 * connections the agent holds keep working, and every NEW one is refused at
 * start-up with FATAL 53300 "sorry, too many clients already" — what a busy
 * shared server says to the pool when it grows or replaces a connection it
 * closed for idleness. The store cannot be reached, so the API must say
 * 503 store_unavailable, as for any outage — it answered 500 internal ("a bug,
 * report it"), and the server log took it for one. The server is shared, so
 * the refusal is played by a proxy on 127.0.0.1 in front of it.
 */
const url = process.env.SANDSCOPE_TEST_DATABASE_URL;
if (!url) console.log('a Postgres server refusing new connections: skipped — set SANDSCOPE_TEST_DATABASE_URL to run it');

const TOKEN = 'store-full-pg-token-0123456789abcdef';
const AUTH = { authorization: `Bearer ${TOKEN}` };
const STORE_UNAVAILABLE = { error: { code: 'store_unavailable', message: API_ERRORS.store_unavailable.remedy } };

/** Postgres's ErrorResponse, as the server sends it to a connection it will not take. */
function tooManyClients(): Buffer {
  const fields = Buffer.concat(
    [
      ['S', 'FATAL'],
      ['V', 'FATAL'],
      ['C', '53300'],
      ['M', 'sorry, too many clients already'],
    ]
      .map(([k, v]) => Buffer.from(`${k}${v}\0`, 'utf8'))
      .concat(Buffer.from('\0')),
  );
  const head = Buffer.alloc(5);
  head.write('E', 0);
  head.writeInt32BE(fields.length + 4, 1);
  return Buffer.concat([head, fields]);
}

/** Forwards to the server; once `full`, new connections get the 53300 refusal and those already open carry on. */
async function startFullServerProxy(target: { host: string; port: number }) {
  let full = false;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client)).on('error', () => client.destroy());
    if (full) {
      client.once('data', () => client.end(tooManyClients()));
      return;
    }
    const upstream = connect(target.port, target.host);
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream)).on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as { port: number }).port;
  return {
    urlThrough(u: string) {
      const parsed = new URL(u);
      parsed.hostname = '127.0.0.1';
      parsed.port = String(port);
      return parsed.toString();
    },
    set full(value: boolean) {
      full = value;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe.skipIf(!url)('a Postgres server that refuses new connections (53300)', () => {
  const schema = `sandscope_full_${process.pid}_${randomBytes(4).toString('hex')}`;
  let admin: pg.Client;
  let proxy: Awaited<ReturnType<typeof startFullServerProxy>>;
  let store: Store;
  let agent: AgentService;
  let app: ReturnType<typeof createApp>;

  beforeAll(async () => {
    admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`create schema ${schema}`);
    const target = new URL(url!);
    proxy = await startFullServerProxy({ host: target.hostname, port: Number(target.port || 5432) });
    store = await startStore({ url: proxy.urlThrough(url!), schema });
    const parsed = loadConfig({ AGENT_TOKEN: TOKEN, IP_SALT: 'salt-for-tests-0123456789', RATE_LIMIT_MAX: '1000' }, { requireToken: true });
    if (!parsed.ok) throw new Error(parsed.message);
    agent = await startAgentService({ config: parsed.config, store, log: () => {} });
    app = createApp(appDepsOf(agent, { log: () => {} }));
  }, 120_000);

  afterAll(async () => {
    await agent?.close();
    await store?.close();
    await proxy?.close();
    await admin?.query(`drop schema if exists ${schema} cascade`);
    await admin?.end();
  });

  it('answers 503 store_unavailable, not 500 internal, to requests that need a new connection', async () => {
    proxy.full = true;
    // More at once than the pool has idle connections: some must open a new one, and are refused.
    const responses = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        i % 2 === 0
          ? app.request('/v1/runs?page=1&pageSize=5', { headers: AUTH })
          : app.request('/v1/runs', {
              method: 'POST',
              headers: { ...AUTH, 'content-type': 'application/json' },
              body: JSON.stringify({ question: 'What is the connection pool ceiling for orders-db?' }),
            }),
      ),
    );
    const refused = responses.filter((r) => r.status !== 200);
    expect(refused.length, 'precondition: some requests needed a new connection').toBeGreaterThan(0);
    const bodies = await Promise.all(refused.map(async (r) => [r.status, await r.json()]));
    for (const body of bodies) expect(body).toEqual([503, STORE_UNAVAILABLE]);
    // Drain the streams of the runs that were admitted on a connection the pool already had.
    await Promise.all(responses.filter((r) => r.status === 200).map((r) => r.text()));
    proxy.full = false;
  }, 60_000);
});
