import type { LanguageModelV3StreamPart, LanguageModelV3Usage, SharedV3ProviderMetadata } from '@ai-sdk/provider';

export interface TextStreamOptions {
  readonly usage: LanguageModelV3Usage;
  readonly modelId?: string;
  readonly providerMetadata?: SharedV3ProviderMetadata;
  /** Characters per text delta. Fixed, so the same text always streams the same parts. */
  readonly chunkSize?: number;
}

/**
 * A finished text as the parts a streaming provider would have produced. Used by
 * the offline model and by cache hits, so a consumer cannot tell a replay from a
 * live stream by its shape — only by the metadata that says so.
 */
export function textToStream(text: string, options: TextStreamOptions): ReadableStream<LanguageModelV3StreamPart> {
  const size = Math.max(1, options.chunkSize ?? 24);
  const parts: LanguageModelV3StreamPart[] = [{ type: 'stream-start', warnings: [] }];
  if (options.modelId) parts.push({ type: 'response-metadata', modelId: options.modelId });
  parts.push({ type: 'text-start', id: 'txt-0' });
  for (let i = 0; i < text.length; i += size) parts.push({ type: 'text-delta', id: 'txt-0', delta: text.slice(i, i + size) });
  parts.push({ type: 'text-end', id: 'txt-0' });
  parts.push({
    type: 'finish',
    usage: options.usage,
    finishReason: { unified: 'stop', raw: 'stop' },
    ...(options.providerMetadata ? { providerMetadata: options.providerMetadata } : {}),
  });
  let index = 0;
  return new ReadableStream({
    pull(controller) {
      const part = parts[index++];
      if (part) controller.enqueue(part);
      else controller.close();
    },
  });
}

/** Everything a stream produced, and the error that ended it if one did. Never throws. */
export async function drainStream(
  stream: ReadableStream<LanguageModelV3StreamPart>,
): Promise<{ parts: LanguageModelV3StreamPart[]; text: string; error: unknown }> {
  const parts: LanguageModelV3StreamPart[] = [];
  const reader = stream.getReader();
  let error: unknown;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parts.push(value);
      if (value.type === 'error' && error === undefined) error = value.error;
    }
  } catch (thrown) {
    error = thrown;
  }
  const text = parts.map((p) => (p.type === 'text-delta' ? p.delta : '')).join('');
  return { parts, text, error };
}
