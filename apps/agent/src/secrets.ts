import { createSecretScrubber, type SecretScrubber } from '@sandscope/engine/models';
import type { AgentConfig } from './config.ts';

/**
 * Every secret this deployment is configured with, from its parsed config (the
 * one place variables are read, issue 13 item 1): provider keys, AGENT_TOKEN,
 * IP_SALT (a generated one included), KB_EMBED_API_KEY, and the password of any
 * connection URL (with the whole URL, which embeds it).
 *
 * Issue 12, defect 3: these are scrubbed from every string the agent stores or
 * sends — provider events, spans, run results and errors, the server log —
 * whatever path brought them there (a provider echoing its key in an error, a
 * model repeating one in a draft).
 */
export function configuredSecrets(config: AgentConfig): string[] {
  const secrets: string[] = [];
  const add = (value: string | undefined) => {
    if (value !== undefined && value !== '') secrets.push(value);
  };
  add(config.agentToken);
  add(config.ipSalt);
  add(config.embed.apiKey);
  for (const provider of config.providers) {
    if (provider.kind !== 'http') continue;
    add(provider.apiKey);
    secrets.push(...urlSecrets(provider.baseURL));
  }
  if (config.database.kind === 'postgres') secrets.push(...urlSecrets(config.database.url));
  secrets.push(...urlSecrets(config.redisUrl), ...urlSecrets(config.embed.baseURL));
  return secrets;
}

/** The scrubber for this deployment's configured secrets. */
export function secretScrubberFor(config: AgentConfig): SecretScrubber {
  return createSecretScrubber(configuredSecrets(config));
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
