import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.ts';
import { configuredSecrets, secretScrubberFor } from './secrets.ts';

/** Issue 12, defect 3: every secret configured anywhere is known to the scrubber. */
describe('configuredSecrets', () => {
  it('collects provider keys, the token, the salt, the embedder key and URL passwords from the parsed config', () => {
    const env = {
      AGENT_TOKEN: 'token-0123456789abcdef',
      IP_SALT: 'salt-0123456789abcdef',
      GROQ_API_KEY: 'gsk_groq_key_value',
      MISTRAL_API_KEY: 'mistral-key-value',
      MISTRAL_BASE_URL: 'https://user:mistral-url-password@proxy.example/v1',
      KB_EMBED_API_KEY: 'embed-key-value',
      DATABASE_URL: 'postgres://app:p%40ss-word-1@db:5432/sandscope',
      REDIS_URL: 'redis://default:redis-password@cache:6379',
      OLLAMA_BASE_URL: 'http://127.0.0.1:11434',
    };
    const parsed = loadConfig(env);
    if (!parsed.ok) throw new Error(parsed.message);
    const secrets = configuredSecrets(parsed.config);
    for (const s of [
      'token-0123456789abcdef',
      'salt-0123456789abcdef',
      'gsk_groq_key_value',
      'mistral-key-value',
      'mistral-url-password',
      'embed-key-value',
      'p%40ss-word-1',
      'p@ss-word-1',
      'redis-password',
      env.DATABASE_URL,
    ]) {
      expect(secrets).toContain(s);
    }
    // A URL without a password is not a secret (the Ollama address is printed at start-up).
    expect(secrets.some((s) => s.includes('127.0.0.1:11434'))).toBe(false);
  });

  it('includes a generated IP_SALT from the parsed config, which no environment holds', () => {
    const parsed = loadConfig({ AGENT_TOKEN: 'token-0123456789abcdef' }, { requireToken: true });
    if (!parsed.ok) throw new Error(parsed.message);
    expect(parsed.config.ipSaltSource).toBe('random');
    const scrub = secretScrubberFor(parsed.config);
    expect(scrub(`salt ${parsed.config.ipSalt}, token token-0123456789abcdef`)).toBe('salt [redacted], token [redacted]');
  });
});
