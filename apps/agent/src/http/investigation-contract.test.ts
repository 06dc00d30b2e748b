import {
  investigationDetailSchema,
  investigationFileContentResponseSchema,
  investigationFileResponseSchema,
  investigationListSchema,
  investigationResponseSchema,
  turnResponseSchema,
} from '@sandscope/api/investigations';
import { INCIDENT_CONFIG, incidentLog } from '@sandscope/engine/testing';
import { startStore, type Store } from '@sandscope/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.ts';
import { type AgentService, startAgentService } from '../service/compose.ts';
import { appDepsOf, createApp } from './app.ts';

/**
 * The investigation responses against the shared contract the website parses
 * them with (@sandscope/api/investigations): a field the agent drops or renames
 * fails here, not in a browser. Offline planner, embedded PGlite.
 */
const TOKEN = 'contract-token-0123456789abcdef012345';
const JSON_AUTH = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };

let store: Store;
let agent: AgentService;
let app: ReturnType<typeof createApp>;

beforeAll(async () => {
  store = await startStore({ dataDir: 'memory://' });
  const config = loadConfig({ AGENT_TOKEN: TOKEN, IP_SALT: 'salt-for-contract-tests-0123' }, { requireToken: true });
  if (!config.ok) throw new Error(config.message);
  agent = await startAgentService({ config: config.config, store, log: () => {} });
  app = createApp(appDepsOf(agent));
}, 120_000);

afterAll(async () => {
  await agent?.close();
  await store?.close();
});

async function body(res: Response, status: number): Promise<unknown> {
  expect(res.status, await res.clone().text()).toBe(status);
  return res.json();
}

const call = (method: string, path: string, payload?: string) =>
  app.request(`/v1/investigations${path}`, { method, headers: JSON_AUTH, ...(payload !== undefined ? { body: payload } : {}) });

describe('investigation responses satisfy the shared contract', () => {
  it('create, upload, read, a turn with its metrics, the list and the opened investigation', async () => {
    const created = investigationResponseSchema.parse(await body(await call('POST', '', JSON.stringify({ title: 'checkout 502s' })), 201));
    const id = created.investigation.id;
    investigationFileResponseSchema.parse(await body(await call('PUT', `/${id}/files/app.log`, incidentLog()), 201));
    investigationFileResponseSchema.parse(await body(await call('PUT', `/${id}/files/config.json`, INCIDENT_CONFIG), 201));
    const file = investigationFileContentResponseSchema.parse(await body(await call('GET', `/${id}/files/app.log`), 200));
    expect(file.file.content.length).toBeGreaterThan(0);

    const turn = turnResponseSchema.parse(
      await body(await call('POST', `/${id}/turns`, JSON.stringify({ message: 'why did checkout return 502?' })), 200),
    ).turn;
    expect(turn.citations.some((c) => c.kind === 'file')).toBe(true);

    const list = investigationListSchema.parse(await body(await call('GET', ''), 200));
    expect(list.investigations.find((i) => i.id === id)?.messageCount).toBe(2);
    const detail = investigationDetailSchema.parse(await body(await call('GET', `/${id}`), 200));
    const answer = detail.messages.find((m) => m.role === 'assistant');
    // Seed #22: the stored answer carries what the live turn reported, claims and metrics alike.
    expect(answer?.metrics).toEqual(turn.metrics);
    expect(answer?.result?.claims).toEqual(turn.claims);
  });
});
