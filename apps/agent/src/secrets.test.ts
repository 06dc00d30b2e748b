import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.ts';
import { configuredSecrets, secretScrubberFor } from './secrets.ts';

/** Issue 12, defect 3: every secret configured anywhere is known to the scrubber. */
describe('configuredSecrets', () => {
  it('collects provider keys (quotes stripped as the model layer strips them), the token, the salt and URL passwords', () => {
    const env = {
      AGENT_TOKEN: 'token-0123456789abcdef',
      IP_SALT: 'salt-0123456789abcdef',
      GROQ_API_KEY: ' "gsk_quoted_key_value" ',
      MISTRAL_API_KEY: 'mistral-key-value',
      DATABASE_URL: 'postgres://app:p%40ss-word-1@db:5432/sandscope',
      REDIS_URL: 'redis://default:redis-password@cache:6379',
      OLLAMA_BASE_URL: 'http://127.0.0.1:11434',
    };
    const secrets = configuredSecrets(env);
    for (const s of ['token-0123456789abcdef', 'salt-0123456789abcdef', 'gsk_quoted_key_value', 'mistral-key-value', 'p%40ss-word-1', 'p@ss-word-1', 'redis-password', env.DATABASE_URL]) {
      expect(secrets).toContain(s);
    }
    // A URL without a password is not a secret (the Ollama address is printed at start-up).
    expect(secrets).not.toContain(env.OLLAMA_BASE_URL);
  });

  it('includes a generated IP_SALT from the parsed config, which no environment holds', () => {
    const parsed = loadConfig({ AGENT_TOKEN: 'token-0123456789abcdef' }, { requireToken: true });
    if (!parsed.ok) throw new Error(parsed.message);
    expect(parsed.config.ipSaltSource).toBe('random');
    const scrub = secretScrubberFor({}, parsed.config);
    expect(scrub(`salt ${parsed.config.ipSalt}, token token-0123456789abcdef`)).toBe('salt [redacted], token [redacted]');
  });
});
