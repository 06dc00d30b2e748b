import { perMillionTokens, type RouterCandidate } from '@sandscope/engine/models';
import { startStore } from '@sandscope/store';
import { loadConfig } from '../../config.ts';
import { startAgentService } from '../../service/compose.ts';
import { appDepsOf, createApp } from '../app.ts';

const TOKEN = 'test-token-0123456789abcdef0123456789';
const JSON_AUTH = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };

/**
 * The investigation routes in-process over PGlite, with `model` as the one provider (STYLE 12–13): `call` sends an
 * authorised JSON request under /v1/investigations, `close` stops the service and the store.
 */
export async function startScriptedInvestigations(model: RouterCandidate['model']) {
  const store = await startStore({ dataDir: 'memory://' });
  const parsed = loadConfig({ AGENT_TOKEN: TOKEN, IP_SALT: 'salt-for-tests-0123456789' }, { requireToken: true });
  if (!parsed.ok) throw new Error(parsed.message);
  const agent = await startAgentService({
    config: parsed.config,
    store,
    log: () => {},
    candidates: [{ name: 'groq', model, pricing: perMillionTokens(1, 2) }],
  });
  const app = createApp(appDepsOf(agent));
  return {
    call: (method: string, path: string, body?: unknown) =>
      app.request(`/v1/investigations${path}`, { method, headers: JSON_AUTH, body: body === undefined ? undefined : JSON.stringify(body) }),
    close: async () => {
      await agent.close();
      await store.close();
    },
  };
}
