import { RemoteEmbedder } from '@sandscope/engine/retrieval/remote-embedder';
import type { AgentConfig } from '../config.ts';

/**
 * Seed #15: the embedder of uploaded files, one decision for the service and
 * the CLI — the remote one when KB_EMBED_BASE_URL is set, else none (the
 * investigation service then embeds with the hashing embedder, in-process).
 * Both doors must agree: a file `investigation add` embedded in one space and
 * a turn on the server searched in another would match nothing by meaning.
 */
export function fileEmbedderOf(config: Pick<AgentConfig, 'embed'>, env: Readonly<Record<string, string | undefined>>, fetch: typeof globalThis.fetch): RemoteEmbedder | undefined {
  if (!config.embed.baseURL) return undefined;
  const apiKey = readKey(env['KB_EMBED_API_KEY']);
  return new RemoteEmbedder({
    baseURL: config.embed.baseURL,
    model: config.embed.model,
    ...(apiKey ? { apiKey } : {}),
    fetch,
    timeoutMs: config.embed.timeoutMs,
    numRetries: config.embed.numRetries,
    batchSize: config.embed.batchSize,
  });
}

/** A key as given, trimmed and without surrounding quotes (as provider keys are read); blank is none. */
export function readKey(raw: string | undefined): string | undefined {
  const value = raw?.trim().replace(/^(['"])(.*)\1$/, '$2').trim();
  return value === '' ? undefined : value;
}
