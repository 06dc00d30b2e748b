import { describe, expect, it } from 'vitest';
import { currentWebConfig, loadWebConfig } from '../lib/web-config';

const TOKEN = 'web-config-token-0123456789';

describe('loadWebConfig (the website’s one schema)', () => {
  it('needs only the token: the agent on 127.0.0.1:7860, the website on 127.0.0.1:3000, no proxy trusted', () => {
    const parsed = loadWebConfig({ AGENT_TOKEN: TOKEN });
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
    expect(parsed.config.agentUrl.href).toBe('http://127.0.0.1:7860/');
    expect(parsed.config.listen).toEqual({ port: 3000, host: '127.0.0.1' });
    expect(parsed.config.trustedProxies.size).toBe(0);
    expect(parsed.config.trustedProxies.trusts('127.0.0.1')).toBe(false);
  });

  it('reads every variable', () => {
    const parsed = loadWebConfig({
      AGENT_TOKEN: TOKEN,
      AGENT_URL: 'http://127.0.0.1:7861',
      WEB_PORT: '3001',
      WEB_HOST: '0.0.0.0',
      TRUSTED_PROXIES: '10.0.0.0/8',
    });
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
    expect(parsed.config.agentUrl.port).toBe('7861');
    expect(parsed.config.listen).toEqual({ port: 3001, host: '0.0.0.0' });
    expect(parsed.config.trustedProxies.trusts('10.4.5.6')).toBe(true);
  });

  it('names every wrong variable with what to set', () => {
    const parsed = loadWebConfig({ AGENT_URL: 'agent', TRUSTED_PROXIES: 'proxy.internal', WEB_PORT: '3000x' });
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.problems.map((p) => p.variable)).toEqual(['AGENT_URL', 'AGENT_TOKEN', 'TRUSTED_PROXIES', 'WEB_PORT']);
    expect(parsed.problems[3]!.message).toBe(
      'WEB_PORT (or --port) must be a whole number from 1 to 65535 (got "3000x"). Set it to a free TCP port such as 3000.',
    );
  });

  it('takes WEB_PORT and WEB_HOST from the environment when no flag overrides them (server.mts passes undefined for a flag not given)', () => {
    const saved = { ...process.env };
    try {
      Object.assign(process.env, { AGENT_TOKEN: TOKEN, WEB_PORT: '3107', WEB_HOST: '0.0.0.0' });
      const parsed = currentWebConfig({ WEB_PORT: undefined, WEB_HOST: undefined });
      if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
      expect(parsed.config.listen).toEqual({ port: 3107, host: '0.0.0.0' });
      const flagged = currentWebConfig({ WEB_PORT: '3108', WEB_HOST: undefined });
      expect(flagged.ok && flagged.config.listen).toEqual({ port: 3108, host: '0.0.0.0' });
    } finally {
      process.env = saved;
    }
  });
});
