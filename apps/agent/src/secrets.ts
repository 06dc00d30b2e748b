import { createSecretScrubber, KNOWN_PROVIDERS, type SecretScrubber } from '@sandscope/engine/models/index';
import type { AgentConfig } from './config.ts';

type Env = Readonly<Record<string, string | undefined>>;

/** Variables whose whole value is a secret. Provider keys are added from KNOWN_PROVIDERS, so a new provider is covered. */
const SECRET_VARS = ['AGENT_TOKEN', 'IP_SALT', 'KB_EMBED_API_KEY'] as const;
/** Variables holding a URL that may carry a password (`postgres://user:pass@host`). */
const URL_VARS = ['DATABASE_URL', 'REDIS_URL', 'OLLAMA_BASE_URL', 'KB_EMBED_BASE_URL', ...KNOWN_PROVIDERS.map((p) => `${p.name.toUpperCase()}_BASE_URL`)] as const;

/**
 * Every secret this deployment is configured with, from the environment and the
 * parsed config: provider keys, AGENT_TOKEN, IP_SALT (a generated one included),
 * and the password of any connection URL (with the whole URL, which embeds it).
 *
 * Issue 12, defect 3: these are scrubbed from every string the agent stores or
 * sends — provider events, spans, run results and errors, the server log —
 * whatever path brought them there (a provider echoing its key in an error, a
 * model repeating one in a draft).
 */
export function configuredSecrets(env: Env, config?: AgentConfig): string[] {
  const secrets: string[] = [];
  const add = (value: string | undefined) => {
    if (value === undefined) return;
    const trimmed = value.trim();
    // The model layer strips surrounding quotes from provider values; the secret in use is the inner one.
    secrets.push(trimmed, trimmed.replace(/^(['"])(.*)\1$/, '$2').trim());
  };
  for (const name of SECRET_VARS) add(env[name]);
  for (const known of KNOWN_PROVIDERS) if (known.name !== 'ollama') add(env[known.keyVar]);
  for (const name of URL_VARS) for (const part of urlSecrets(env[name])) secrets.push(part);
  if (config) {
    add(config.agentToken);
    add(config.ipSalt);
    if (config.database.kind === 'postgres') secrets.push(...urlSecrets(config.database.url));
    secrets.push(...urlSecrets(config.redisUrl));
  }
  return secrets;
}

/** The scrubber for this deployment's configured secrets. */
export function secretScrubberFor(env: Env, config?: AgentConfig): SecretScrubber {
  return createSecretScrubber(configuredSecrets(env, config));
}

/** A URL's password, raw and decoded, and the URL itself when it has one; nothing for a URL without a password. */
function urlSecrets(value: string | undefined): string[] {
  if (!value) return [];
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    return [];
  }
  if (!url.password) return [];
  let decoded = url.password;
  try {
    decoded = decodeURIComponent(url.password);
  } catch {
    // a malformed escape: the raw form is still scrubbed
  }
  return [value.trim(), url.password, decoded];
}
