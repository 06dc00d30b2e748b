import { RemoteEmbedder } from '@sandscope/engine';
import type { AgentConfig } from '../config.ts';

/**
 * Seed #15: the embedder of uploaded files, one decision for the service and
 * the CLI — the remote one when KB_EMBED_BASE_URL is set, else none (the
 * investigation service then embeds with the hashing embedder, in-process).
 * Both doors must agree: a file `investigation add` embedded in one space and
 * a turn on the server searched in another would match nothing by meaning.
 * Its key is the config schema's (KB_EMBED_API_KEY), read by the same rules as every variable.
 */
export function fileEmbedderOf(config: Pick<AgentConfig, 'embed'>, fetch: typeof globalThis.fetch): RemoteEmbedder | undefined {
  if (!config.embed.baseURL) return undefined;
  return new RemoteEmbedder({
    baseURL: config.embed.baseURL,
    model: config.embed.model,
    ...(config.embed.apiKey ? { apiKey: config.embed.apiKey } : {}),
    fetch,
    timeoutMs: config.embed.timeoutMs,
    numRetries: config.embed.numRetries,
    batchSize: config.embed.batchSize,
  });
}
