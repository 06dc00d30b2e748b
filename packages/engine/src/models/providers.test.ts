import { describe, expect, it } from 'vitest';
import { OfflineExtractiveModel } from './offline-model.ts';
import { candidatesFromConfigs, KNOWN_PROVIDERS, ProviderConfigError, providersFromEnv, type HttpProviderConfig } from './providers.ts';

const allKeys = {
  MISTRAL_API_KEY: 'm',
  OLLAMA_BASE_URL: 'http://127.0.0.1:11434/v1',
  GROQ_API_KEY: 'g',
  OPENROUTER_API_KEY: 'o',
  CEREBRAS_API_KEY: 'c',
  GEMINI_API_KEY: 'ge',
};

describe('providersFromEnv', () => {
  it('with no keys at all, still returns the offline model', () => {
    expect(providersFromEnv({})).toEqual([{ kind: 'offline', name: 'offline', model: 'extractive-v1', pricing: { inputUsdPerToken: 0, outputUsdPerToken: 0 } }]);
  });

  it('orders configured providers groq → gemini → cerebras → openrouter → mistral → ollama, offline always last', () => {
    expect(providersFromEnv(allKeys).map((p) => p.name)).toEqual(['groq', 'gemini', 'cerebras', 'openrouter', 'mistral', 'ollama', 'offline']);
    expect(providersFromEnv({ MISTRAL_API_KEY: 'm', GROQ_API_KEY: 'g' }).map((p) => p.name)).toEqual(['groq', 'mistral', 'offline']);
  });

  it('uses each provider\'s defaults and its key', () => {
    const [groq, gemini] = providersFromEnv({ GROQ_API_KEY: 'gk', GEMINI_API_KEY: 'gem' }) as HttpProviderConfig[];
    expect(groq).toMatchObject({ kind: 'http', name: 'groq', baseURL: 'https://api.groq.com/openai/v1', model: 'llama-3.1-8b-instant', apiKey: 'gk' });
    expect(gemini).toMatchObject({ baseURL: 'https://generativelanguage.googleapis.com/v1beta/openai', apiKey: 'gem' });
    expect(groq!.pricing.inputUsdPerToken).toBeGreaterThan(0);
  });

  it('applies <NAME>_BASE_URL, <NAME>_MODEL and price overrides', () => {
    const [groq] = providersFromEnv({
      GROQ_API_KEY: 'k',
      GROQ_BASE_URL: 'http://127.0.0.1:9999/v1/',
      GROQ_MODEL: 'llama-3.3-70b-versatile',
      GROQ_INPUT_USD_PER_MTOK: '0.59',
      GROQ_OUTPUT_USD_PER_MTOK: '0.79',
    }) as HttpProviderConfig[];
    expect(groq).toMatchObject({ baseURL: 'http://127.0.0.1:9999/v1', model: 'llama-3.3-70b-versatile' });
    expect(groq!.pricing.inputUsdPerToken).toBeCloseTo(0.59e-6, 15);
    expect(groq!.pricing.outputUsdPerToken).toBeCloseTo(0.79e-6, 15);
  });

  it('strips quotes and whitespace, and treats an empty value as unset', () => {
    const configs = providersFromEnv({ GROQ_API_KEY: ' "quoted-key" ', GEMINI_API_KEY: '', CEREBRAS_API_KEY: "''" });
    expect(configs.map((c) => c.name)).toEqual(['groq', 'offline']);
    expect((configs[0] as HttpProviderConfig).apiKey).toBe('quoted-key');
  });

  it('enables Ollama by OLLAMA_BASE_URL (no key), accepting a bare server address', () => {
    expect(providersFromEnv({ OLLAMA_API_KEY: 'x' }).map((c) => c.name)).toEqual(['offline']);
    const [ollama] = providersFromEnv({ OLLAMA_BASE_URL: 'http://localhost:11434', OLLAMA_MODEL: 'qwen2.5' }) as HttpProviderConfig[];
    expect(ollama).toMatchObject({ name: 'ollama', baseURL: 'http://localhost:11434/v1', model: 'qwen2.5' });
    expect(ollama).not.toHaveProperty('apiKey');
    expect(ollama!.pricing).toEqual({ inputUsdPerToken: 0, outputUsdPerToken: 0 });
  });

  it('names the variable that is wrong', () => {
    expect(() => providersFromEnv({ GROQ_API_KEY: 'k', GROQ_BASE_URL: 'not a url' })).toThrow(ProviderConfigError);
    expect(() => providersFromEnv({ GROQ_API_KEY: 'k', GROQ_BASE_URL: 'ftp://x' })).toThrow(/GROQ_BASE_URL/);
    expect(() => providersFromEnv({ MISTRAL_API_KEY: 'k', MISTRAL_OUTPUT_USD_PER_MTOK: '-1' })).toThrow(/MISTRAL_OUTPUT_USD_PER_MTOK/);
  });

  it('knows the six HTTP providers in order', () => {
    expect(KNOWN_PROVIDERS.map((p) => p.name)).toEqual(['groq', 'gemini', 'cerebras', 'openrouter', 'mistral', 'ollama']);
  });
});

describe('candidatesFromConfigs', () => {
  it('builds HTTP models for HTTP providers and the offline model last', () => {
    const candidates = candidatesFromConfigs(providersFromEnv({ GROQ_API_KEY: 'k' }), { fetch: () => Promise.reject(new Error('no network in this test')), timeoutMs: 1000 });
    expect(candidates.map((c) => c.name)).toEqual(['groq', 'offline']);
    expect(candidates[0]!.model.provider).toBe('groq.chat');
    expect(candidates[0]!.model.modelId).toBe('llama-3.1-8b-instant');
    expect(candidates[1]!.model).toBeInstanceOf(OfflineExtractiveModel);
  });
});
