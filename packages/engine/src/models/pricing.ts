import type { LanguageModelV3Prompt, LanguageModelV3Usage } from '@ai-sdk/provider';

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
      else if (part.type === 'tool-result') pieces.push(part.output.type === 'text' || part.output.type === 'error-text' ? part.output.value : JSON.stringify(part.output));
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
