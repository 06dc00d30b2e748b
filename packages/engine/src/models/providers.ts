import { APICallError, type LanguageModelV3 } from '@ai-sdk/provider';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { OfflineExtractiveModel } from './offline-model.ts';
import { FREE, perMillionTokens, type Pricing } from './pricing.ts';
import { providerConfigurationHint, withProviderHint } from './provider-error.ts';
import { fetchWithReplyLimit } from './reply-limit-fetch.ts';
import type { RouterCandidate } from './router.ts';
import { fetchWithTimeout, type FetchFunction } from './timeout-fetch.ts';

export type HttpProviderName = 'groq' | 'gemini' | 'cerebras' | 'openrouter' | 'mistral' | 'ollama';

/** A provider reachable over an OpenAI-compatible chat-completions API. */
export interface HttpProviderConfig {
  readonly kind: 'http';
  readonly name: HttpProviderName;
  readonly baseURL: string;
  readonly model: string;
  /** Absent only for a local server that needs none (Ollama). */
  readonly apiKey?: string;
  readonly pricing: Pricing;
  /** The deployment variable its base URL is set in, as the composition root names it: a 404's hint names it (S-262). */
  readonly baseUrlVariable?: string;
}

/** The always-available last resort. */
export interface OfflineProviderConfig {
  readonly kind: 'offline';
  readonly name: 'offline';
  readonly model: 'extractive-v1';
  readonly pricing: Pricing;
}

export type ProviderConfig = HttpProviderConfig | OfflineProviderConfig;

/** Defaults for one known provider. */
export interface KnownProvider {
  readonly name: HttpProviderName;
  readonly baseURL: string;
  readonly model: string;
  readonly pricing: Pricing;
}

/**
 * The known providers in the seed's failover order (groq → gemini → cerebras →
 * openrouter → mistral), then a local Ollama. Prices are indicative list prices
 * per million tokens for the default model and are NOT verified at build time
 * (the build has no network): check each provider's pricing page, and override
 * the price when you change the model — the spend guard reserves against these
 * numbers (D-010). Which variables set them is the deployable's business
 * (apps/agent/src/config.ts): the engine reads no environment.
 */
export const KNOWN_PROVIDERS: readonly KnownProvider[] = [
  { name: 'groq', baseURL: 'https://api.groq.com/openai/v1', model: 'llama-3.1-8b-instant', pricing: perMillionTokens(0.05, 0.08) },
  { name: 'gemini', baseURL: 'https://generativelanguage.googleapis.com/v1beta/openai', model: 'gemini-2.5-flash', pricing: perMillionTokens(0.3, 2.5) },
  { name: 'cerebras', baseURL: 'https://api.cerebras.ai/v1', model: 'llama3.1-8b', pricing: perMillionTokens(0.1, 0.1) },
  { name: 'openrouter', baseURL: 'https://openrouter.ai/api/v1', model: 'meta-llama/llama-3.3-70b-instruct', pricing: perMillionTokens(0.13, 0.4) },
  { name: 'mistral', baseURL: 'https://api.mistral.ai/v1', model: 'mistral-small-latest', pricing: perMillionTokens(0.1, 0.3) },
  { name: 'ollama', baseURL: 'http://127.0.0.1:11434/v1', model: 'llama3.2', pricing: FREE },
];

export const OFFLINE_PROVIDER: OfflineProviderConfig = { kind: 'offline', name: 'offline', model: 'extractive-v1', pricing: FREE };

/** What a deployment sets for one provider; anything absent takes the known default. Values arrive parsed and checked. */
export interface ProviderSetting {
  /** Absent only for a local server that needs none (Ollama). */
  readonly apiKey?: string;
  readonly baseURL?: string;
  readonly model?: string;
  readonly inputUsdPerToken?: number;
  readonly outputUsdPerToken?: number;
  /** The variable the base URL is set in (`GROQ_BASE_URL`), named in a hint when the provider answers 404 (S-262). */
  readonly baseUrlVariable?: string;
}

/** The providers a deployment turns on: a provider with no entry is off. */
export type ProviderSettings = Readonly<Partial<Record<HttpProviderName, ProviderSetting>>>;

/**
 * The configured providers in failover order, with the offline model always
 * last — so a machine with no keys at all still answers. Pure: the composition
 * root parses its environment (one schema, one set of quoting rules) and hands
 * the settings in; an engine that read variables itself once disagreed with the
 * agent's config about what a quoted value meant (issue 13, item 1).
 */
export function providerConfigs(settings: ProviderSettings = {}): ProviderConfig[] {
  const configs: ProviderConfig[] = [];
  for (const known of KNOWN_PROVIDERS) {
    const setting = settings[known.name];
    if (!setting) continue;
    const baseURL = setting.baseURL === undefined ? known.baseURL : known.name === 'ollama' ? ollamaApiRoot(setting.baseURL) : setting.baseURL;
    configs.push({
      kind: 'http',
      name: known.name,
      baseURL: baseURL.replace(/\/+$/, ''),
      model: setting.model ?? known.model,
      ...(setting.apiKey === undefined ? {} : { apiKey: setting.apiKey }),
      pricing: {
        inputUsdPerToken: setting.inputUsdPerToken ?? known.pricing.inputUsdPerToken,
        outputUsdPerToken: setting.outputUsdPerToken ?? known.pricing.outputUsdPerToken,
      },
      ...(setting.baseUrlVariable === undefined ? {} : { baseUrlVariable: setting.baseUrlVariable }),
    });
  }
  configs.push(OFFLINE_PROVIDER);
  return configs;
}

export interface HttpModelOptions {
  /** The only way the engine reaches the network: handed in by the composition root (or a test's stub). */
  readonly fetch: FetchFunction;
  /** A provider silent for longer than this fails, retryably, and the router moves on. */
  readonly timeoutMs: number;
}

/** An OpenAI-compatible chat model for one provider, on injected fetch with a deadline and a bound on its reply (S-266). */
export function createHttpModel(config: HttpProviderConfig, options: HttpModelOptions): LanguageModelV3 {
  const provider = createOpenAICompatible({
    name: config.name,
    baseURL: config.baseURL,
    ...(config.apiKey ? { apiKey: config.apiKey } : {}),
    fetch: fetchWithReplyLimit(fetchWithTimeout(options.fetch, options.timeoutMs)),
    includeUsage: true,
  });
  return withConfigurationHints(provider.chatModel(config.model), config);
}

/**
 * The model, its failures marked with what to check in the settings where those are the likely cause (S-262: a base
 * URL missing /v1 was answered 404, and the run fell back to the offline model with nothing saying which variable was
 * wrong). The error is rethrown as it came; describeProviderError reads the hint beside it.
 */
function withConfigurationHints(model: LanguageModelV3, config: HttpProviderConfig): LanguageModelV3 {
  const configured = { name: config.name, baseURL: config.baseURL, ...(config.baseUrlVariable ? { baseUrlVariable: config.baseUrlVariable } : {}) };
  const hinted = (error: unknown): never => {
    throw withProviderHint(error, APICallError.isInstance(error) ? providerConfigurationHint(configured, error.statusCode) : undefined);
  };
  return {
    specificationVersion: model.specificationVersion,
    provider: model.provider,
    modelId: model.modelId,
    get supportedUrls() {
      return model.supportedUrls;
    },
    doGenerate: (options) => Promise.resolve(model.doGenerate(options)).catch(hinted),
    doStream: (options) => Promise.resolve(model.doStream(options)).catch(hinted),
  };
}

/** Router candidates for a list of provider configs, in the same order. */
export function candidatesFromConfigs(configs: readonly ProviderConfig[], options: HttpModelOptions): RouterCandidate[] {
  return configs.map((config) => ({
    name: config.name,
    model: config.kind === 'offline' ? new OfflineExtractiveModel() : createHttpModel(config, options),
    pricing: config.pricing,
  }));
}

/** Ollama serves its OpenAI-compatible API under /v1; accept the bare server address people usually paste. */
function ollamaApiRoot(value: string): string {
  try {
    const url = new URL(value);
    if (url.pathname === '/' || url.pathname === '') return `${url.origin}/v1`;
  } catch {
    // The deployable's schema has already refused a value that is not a URL.
  }
  return value;
}
