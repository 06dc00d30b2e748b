import { afterEach, beforeEach, vi } from 'vitest';

/**
 * The agent as a stubbed fetch, for a test that drives a route or page of the website in-process: AGENT_URL and
 * AGENT_TOKEN set, and every fetch answered by the returned mock (reset before each test, unstubbed after).
 */
export function stubAgentFetch() {
  const agent = vi.fn<(url: string | URL, init?: RequestInit) => Promise<Response>>();
  beforeEach(() => {
    vi.stubEnv('AGENT_URL', 'http://agent.test');
    vi.stubEnv('AGENT_TOKEN', 'test-token-0123456789abcdef0123456789');
    agent.mockReset();
    vi.stubGlobal('fetch', agent);
  });
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.unstubAllEnvs();
  });
  return agent;
}
