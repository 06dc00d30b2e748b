import { startStore, type Store } from '@sandscope/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.ts';
import { type AgentService, startAgentService } from './compose.ts';

/** ADJUDICATOR=model with no provider would change nothing (ADR-0007): start-up says so, and says what to set. */
describe('start-up names the adjudicator it will use', () => {
  let store: Store;
  const agents: AgentService[] = [];

  beforeAll(async () => {
    store = await startStore({ dataDir: 'memory://' });
  }, 120_000);

  afterAll(async () => {
    for (const agent of agents) await agent.close();
    await store?.close();
  });

  const start = async (env: Record<string, string>) => {
    const parsed = loadConfig({ AGENT_TOKEN: 'adjudicator-startup-token-0123456789', IP_SALT: 'salt-for-tests-0123456789', ...env }, { requireToken: true });
    if (!parsed.ok) throw new Error(parsed.message);
    // No test reaches the internet: a provider call at start-up would fail here, loudly.
    const noNetwork = (() => Promise.reject(new Error('no network in tests'))) as unknown as typeof fetch;
    const agent = await startAgentService({ config: parsed.config, store, log: () => {}, fetch: noNetwork });
    agents.push(agent);
    return agent.startup.join('\n');
  };

  it('ADJUDICATOR=model with only the offline model: says the unsure questions are decided offline, and what to set', async () => {
    expect(await start({ ADJUDICATOR: 'model' })).toMatch(/adjudicator: ADJUDICATOR=model, but no provider is configured.*GROQ_API_KEY/);
  }, 120_000);

  it('ADJUDICATOR=model with a provider: names the LLM that judges', async () => {
    expect(await start({ ADJUDICATOR: 'model', GROQ_API_KEY: 'gsk-adjudicator-startup-test' })).toMatch(/adjudicator: an LLM \(groq\) judges/);
  }, 120_000);

  it('the offline default says nothing about an adjudicator', async () => {
    expect(await start({})).not.toMatch(/adjudicator:/);
  }, 120_000);
});
