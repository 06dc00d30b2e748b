import type { LanguageModelV3CallOptions, LanguageModelV3Prompt, LanguageModelV3Usage } from '@ai-sdk/provider';

/**
 * What one token costs at a provider, in US dollars. Per token rather than per
 * million so a cost is one multiplication and no unit can be dropped on the way
 * (the spend guard reserves in these units before every call).
 */
export interface Pricing {
  readonly inputUsdPerToken: number;
  readonly outputUsdPerToken: number;
}

/** A provider that bills nothing: the offline model and a local Ollama. */
export const FREE: Pricing = { inputUsdPerToken: 0, outputUsdPerToken: 0 };

/** Convenience for price lists, which are published per million tokens. */
export function perMillionTokens(inputUsd: number, outputUsd: number): Pricing {
  return { inputUsdPerToken: inputUsd / 1_000_000, outputUsdPerToken: outputUsd / 1_000_000 };
}

/**
 * Tokens ≈ characters / 4. Deliberately tokenizer-free: the engine must cost a
 * call before it is made, for every provider, with no network and no model
 * files. The offline model reports usage on the same scale, so its numbers and
 * the guard's estimates agree.
 */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** Tokens a chat template adds per message (role markers, separators), at most. */
export const MESSAGE_OVERHEAD_TOKENS = 8;
/** Tokens a chat template adds once per request (begin-of-text, the assistant turn's header), at most. */
export const REQUEST_OVERHEAD_TOKENS = 16;

/**
 * The most prompt tokens a provider can bill for this request — what the spend
 * guard prices before sending (issue 12, defect 6). `estimateTokens` (chars/4)
 * is a guess that dense text beats: a CJK character is one char and three bytes
 * and often a token or more, so 20,000 bytes "estimated" at 1,667 tokens were
 * billed as 20,000. No tokenizer in use emits more than one token per UTF-8 byte
 * of what it reads (byte-level BPE and SentencePiece with byte fallback each
 * consume at least a byte per token), so the bound is the bytes of every part
 * the provider will read — text, tool calls and results, files, tool
 * definitions, a response schema — plus the chat template's few tokens per
 * message. Still tokenizer-free, still pure.
 */
export function promptTokenBound(options: Pick<LanguageModelV3CallOptions, 'prompt' | 'tools' | 'responseFormat'>): number {
  let tokens = REQUEST_OVERHEAD_TOKENS;
  for (const message of options.prompt) {
    tokens += MESSAGE_OVERHEAD_TOKENS;
    if (typeof message.content === 'string') {
      tokens += utf8Bytes(message.content);
      continue;
    }
    for (const part of message.content) {
      if (part.type === 'text' || part.type === 'reasoning') tokens += utf8Bytes(part.text);
      else if (part.type === 'file') tokens += fileBytes(part.data) + utf8Bytes(part.mediaType);
      else tokens += utf8Bytes(JSON.stringify(part));
    }
  }
  if (options.tools && options.tools.length > 0) tokens += utf8Bytes(JSON.stringify(options.tools));
  if (options.responseFormat?.type === 'json' && options.responseFormat.schema) tokens += utf8Bytes(JSON.stringify(options.responseFormat.schema));
  return tokens;
}

/** Bytes of `text` in UTF-8, counted without allocating an encoding. A lone surrogate counts as the 3 bytes of its replacement. */
export function utf8Bytes(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 4;
      i += 1;
    } else bytes += 3;
  }
  return bytes;
}

function fileBytes(data: string | Uint8Array | URL): number {
  if (data instanceof Uint8Array) return data.byteLength;
  if (data instanceof URL) return utf8Bytes(data.href);
  return utf8Bytes(data);
}

/** Every piece of text the model will read, in order — what the estimate is taken over. */
export function promptText(prompt: LanguageModelV3Prompt): string {
  const pieces: string[] = [];
  for (const message of prompt) {
    if (typeof message.content === 'string') {
      pieces.push(message.content);
      continue;
    }
    for (const part of message.content) {
      if (part.type === 'text' || part.type === 'reasoning') pieces.push(part.text);
      // An investigation turn's tool loop sends what the tools returned back as input — a read_file window can
      // be 200000 characters (READ_FILE_MAX_CHARS). Left out, the spend guard would reserve for the question alone.
      else if (part.type === 'tool-call') pieces.push(part.toolName, typeof part.input === 'string' ? part.input : JSON.stringify(part.input));
      else if (part.type === 'tool-result')
        pieces.push(part.output.type === 'text' || part.output.type === 'error-text' ? part.output.value : JSON.stringify(part.output));
    }
  }
  return pieces.join('\n');
}

/** A usage record with every detail the V3 shape asks for, from two totals. */
export function tokenUsage(inputTokens: number, outputTokens: number): LanguageModelV3Usage {
  return {
    inputTokens: { total: inputTokens, noCache: inputTokens, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: outputTokens, text: outputTokens, reasoning: undefined },
  };
}

/**
 * Dollars a reported usage costs, or undefined when the provider did not say
 * how many tokens it used — the caller decides what "unknown" means (the spend
 * guard treats it as "the whole reservation was spent": fail safe).
 */
export function usageCostUsd(usage: LanguageModelV3Usage | undefined, pricing: Pricing): number | undefined {
  const input = usage?.inputTokens.total;
  const output = usage?.outputTokens.total;
  if (input === undefined || output === undefined) return undefined;
  return input * pricing.inputUsdPerToken + output * pricing.outputUsdPerToken;
}
