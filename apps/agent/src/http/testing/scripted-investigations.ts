import { createHttpModel, perMillionTokens, type RouterCandidate } from '@sandscope/engine/models';
import type { StubOpenAIServer } from '@sandscope/engine/testing';
import { type Database, startStore } from '@sandscope/store';
import { loadConfig } from '../../config.ts';
import { startAgentService } from '../../service/compose.ts';
import { appDepsOf, createApp } from '../app.ts';

const TOKEN = 'test-token-0123456789abcdef0123456789';
const JSON_AUTH = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };

/** A real HTTP provider (`groq`, $1/$2 per million tokens) pointed at the tests' stub OpenAI-compatible server. */
export function stubProviderModel(stub: StubOpenAIServer): RouterCandidate['model'] {
  const pricing = perMillionTokens(1, 2);
  return createHttpModel({ kind: 'http', name: 'groq', baseURL: stub.baseURL, model: 'stub-llama', apiKey: 'test-key', pricing }, { fetch, timeoutMs: 10_000 });
}

/**
 * The investigation routes in-process over PGlite, with `model` as the one provider (STYLE 12–13): `call` sends an
 * authorised JSON request under /v1/investigations (`Accept: text/event-stream` with `stream`, the client's address with `address`), `logged` holds the HTTP
 * layer's server-side log, `close` stops the service
 * and the store. `database` is the store's database instead of a fresh PGlite (a test's wrapper that fails some writes);
 * `env` adds to the configuration.
 */
export async function startScriptedInvestigations(
  model: RouterCandidate['model'],
  options: { readonly database?: Database; readonly env?: Readonly<Record<string, string>> } = {},
) {
  const store = await startStore(options.database ? { database: options.database } : { dataDir: 'memory://' });
  const parsed = loadConfig({ AGENT_TOKEN: TOKEN, IP_SALT: 'salt-for-tests-0123456789', ...options.env }, { requireToken: true });
  if (!parsed.ok) throw new Error(parsed.message);
  const agent = await startAgentService({
    config: parsed.config,
    store,
    log: () => {},
    candidates: [{ name: 'groq', model, pricing: perMillionTokens(1, 2) }],
  });
  const logged: string[] = [];
  const app = createApp(appDepsOf(agent, { log: (line) => logged.push(line) }));
  return {
    /** The composed agent (its runs and turns in flight: `agent.inFlight`). */
    agent,
    /** The store's database, to write what a test needs the conversation to hold. */
    db: store.db,
    /** What the HTTP layer logged server-side. */
    logged,
    call: (method: string, path: string, body?: unknown, o: { stream?: boolean; address?: string } = {}) =>
      app.request(`/v1/investigations${path}`, {
        method,
        headers: { ...JSON_AUTH, ...(o.stream ? { accept: 'text/event-stream' } : {}), ...(o.address ? { 'x-forwarded-for': o.address } : {}) },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    close: async () => {
      await agent.close();
      await store.close();
    },
  };
}
