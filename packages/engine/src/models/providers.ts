import type { LanguageModelV3 } from '@ai-sdk/provider';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { OfflineExtractiveModel } from './offline-model.ts';
import { FREE, perMillionTokens, type Pricing } from './pricing.ts';
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
  /** Variable holding the API key; for Ollama, the variable whose presence enables it (its base URL). */
  readonly keyVar: string;
  readonly pricing: Pricing;
}

/**
 * The known providers in the seed's failover order (groq → gemini → cerebras →
 * openrouter → mistral), then a local Ollama. Prices are indicative list prices
 * per million tokens for the default model and are NOT verified at build time
 * (the build has no network): check each provider's pricing page, and set
 * `<NAME>_INPUT_USD_PER_MTOK` / `<NAME>_OUTPUT_USD_PER_MTOK` when you change
 * the model — the spend guard reserves against these numbers (D-010).
 */
export const KNOWN_PROVIDERS: readonly KnownProvider[] = [
  { name: 'groq', baseURL: 'https://api.groq.com/openai/v1', model: 'llama-3.1-8b-instant', keyVar: 'GROQ_API_KEY', pricing: perMillionTokens(0.05, 0.08) },
  {
    name: 'gemini',
    baseURL: 'https://generativelanguage.googleapis.com/v1beta/openai',
    model: 'gemini-2.5-flash',
    keyVar: 'GEMINI_API_KEY',
    pricing: perMillionTokens(0.3, 2.5),
  },
  { name: 'cerebras', baseURL: 'https://api.cerebras.ai/v1', model: 'llama3.1-8b', keyVar: 'CEREBRAS_API_KEY', pricing: perMillionTokens(0.1, 0.1) },
  {
    name: 'openrouter',
    baseURL: 'https://openrouter.ai/api/v1',
    model: 'meta-llama/llama-3.3-70b-instruct',
    keyVar: 'OPENROUTER_API_KEY',
    pricing: perMillionTokens(0.13, 0.4),
  },
  { name: 'mistral', baseURL: 'https://api.mistral.ai/v1', model: 'mistral-small-latest', keyVar: 'MISTRAL_API_KEY', pricing: perMillionTokens(0.1, 0.3) },
  { name: 'ollama', baseURL: 'http://127.0.0.1:11434/v1', model: 'llama3.2', keyVar: 'OLLAMA_BASE_URL', pricing: FREE },
];

export const OFFLINE_PROVIDER: OfflineProviderConfig = { kind: 'offline', name: 'offline', model: 'extractive-v1', pricing: FREE };

/** A provider variable is set but unusable. Names the variable, so a person can fix it. */
export class ProviderConfigError extends Error {
  override readonly name = 'ProviderConfigError';
  readonly code = 'INVALID_PROVIDER_CONFIG';
}

/**
 * The providers this environment configures, in failover order, with the
 * offline model always last — so a machine with no keys at all still answers.
 * A provider is configured by its key (Ollama: by `OLLAMA_BASE_URL`), and each
 * accepts `<NAME>_BASE_URL` and `<NAME>_MODEL` overrides. Values are trimmed and
 * stripped of surrounding quotes: quoted `.env` values once broke eight secrets
 * at once when pasted into a hosting UI.
 */
export function providersFromEnv(env: Record<string, string | undefined>): ProviderConfig[] {
  const configs: ProviderConfig[] = [];
  for (const known of KNOWN_PROVIDERS) {
    const prefix = known.name.toUpperCase();
    const enabler = read(env, known.keyVar);
    if (!enabler) continue;
    const baseURL = known.name === 'ollama' ? ollamaApiRoot(enabler) : (read(env, `${prefix}_BASE_URL`) ?? known.baseURL);
    const model = read(env, `${prefix}_MODEL`) ?? known.model;
    const pricing = {
      inputUsdPerToken: priceOverride(env, `${prefix}_INPUT_USD_PER_MTOK`) ?? known.pricing.inputUsdPerToken,
      outputUsdPerToken: priceOverride(env, `${prefix}_OUTPUT_USD_PER_MTOK`) ?? known.pricing.outputUsdPerToken,
    };
    assertUrl(baseURL, known.name === 'ollama' ? known.keyVar : `${prefix}_BASE_URL`);
    configs.push({
      kind: 'http',
      name: known.name,
      baseURL: baseURL.replace(/\/+$/, ''),
      model,
      ...(known.name === 'ollama' ? {} : { apiKey: enabler }),
      pricing,
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

/** An OpenAI-compatible chat model for one provider, on injected fetch with a deadline. */
export function createHttpModel(config: HttpProviderConfig, options: HttpModelOptions): LanguageModelV3 {
  const provider = createOpenAICompatible({
    name: config.name,
    baseURL: config.baseURL,
    ...(config.apiKey ? { apiKey: config.apiKey } : {}),
    fetch: fetchWithTimeout(options.fetch, options.timeoutMs),
    includeUsage: true,
  });
  return provider.chatModel(config.model);
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
    // assertUrl reports it, naming the variable.
  }
  return value;
}

function read(env: Record<string, string | undefined>, name: string): string | undefined {
  const raw = env[name];
  if (raw === undefined) return undefined;
  const value = raw.trim().replace(/^(['"])(.*)\1$/, '$2').trim();
  return value === '' ? undefined : value;
}

function priceOverride(env: Record<string, string | undefined>, name: string): number | undefined {
  const raw = read(env, name);
  if (raw === undefined) return undefined;
  const perMillion = Number(raw);
  if (!Number.isFinite(perMillion) || perMillion < 0) {
    throw new ProviderConfigError(`${name} must be a non-negative price in US dollars per million tokens, got "${raw}".`);
  }
  return perMillion / 1_000_000;
}

function assertUrl(value: string, variable: string): void {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ProviderConfigError(`${variable} must be an http(s) URL, got "${value}".`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ProviderConfigError(`${variable} must be an http(s) URL, got "${value}".`);
  }
}
