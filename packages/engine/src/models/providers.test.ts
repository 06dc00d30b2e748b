import { describe, expect, it } from 'vitest';
import { OfflineExtractiveModel } from './offline-model.ts';
import { candidatesFromConfigs, KNOWN_PROVIDERS, providerConfigs, type HttpProviderConfig } from './providers.ts';

const allOn = { mistral: { apiKey: 'm' }, ollama: {}, groq: { apiKey: 'g' }, openrouter: { apiKey: 'o' }, cerebras: { apiKey: 'c' }, gemini: { apiKey: 'ge' } };

describe('providerConfigs', () => {
  it('with no provider set, still returns the offline model', () => {
    expect(providerConfigs({})).toEqual([{ kind: 'offline', name: 'offline', model: 'extractive-v1', pricing: { inputUsdPerToken: 0, outputUsdPerToken: 0 } }]);
  });

  it('orders configured providers groq → gemini → cerebras → openrouter → mistral → ollama, offline always last', () => {
    expect(providerConfigs(allOn).map((p) => p.name)).toEqual(['groq', 'gemini', 'cerebras', 'openrouter', 'mistral', 'ollama', 'offline']);
    expect(providerConfigs({ mistral: { apiKey: 'm' }, groq: { apiKey: 'g' } }).map((p) => p.name)).toEqual(['groq', 'mistral', 'offline']);
  });

  it("uses each provider's defaults and its key", () => {
    const [groq, gemini] = providerConfigs({ groq: { apiKey: 'gk' }, gemini: { apiKey: 'gem' } }) as HttpProviderConfig[];
    expect(groq).toMatchObject({ kind: 'http', name: 'groq', baseURL: 'https://api.groq.com/openai/v1', model: 'llama-3.1-8b-instant', apiKey: 'gk' });
    expect(gemini).toMatchObject({ baseURL: 'https://generativelanguage.googleapis.com/v1beta/openai', apiKey: 'gem' });
    expect(groq!.pricing.inputUsdPerToken).toBeGreaterThan(0);
  });

  it('applies base URL (trailing slash dropped), model and price overrides', () => {
    const [groq] = providerConfigs({
      groq: { apiKey: 'k', baseURL: 'http://127.0.0.1:9999/v1/', model: 'llama-3.3-70b-versatile', inputUsdPerToken: 0.59e-6, outputUsdPerToken: 0.79e-6 },
    }) as HttpProviderConfig[];
    expect(groq).toMatchObject({ baseURL: 'http://127.0.0.1:9999/v1', model: 'llama-3.3-70b-versatile' });
    expect(groq!.pricing).toEqual({ inputUsdPerToken: 0.59e-6, outputUsdPerToken: 0.79e-6 });
  });

  it('Ollama needs no key, and a bare server address gets its /v1 API root', () => {
    const [ollama] = providerConfigs({ ollama: { baseURL: 'http://localhost:11434', model: 'qwen2.5' } }) as HttpProviderConfig[];
    expect(ollama).toMatchObject({ name: 'ollama', baseURL: 'http://localhost:11434/v1', model: 'qwen2.5' });
    expect(ollama).not.toHaveProperty('apiKey');
    expect(ollama!.pricing).toEqual({ inputUsdPerToken: 0, outputUsdPerToken: 0 });
  });

  it('knows the six HTTP providers in order', () => {
    expect(KNOWN_PROVIDERS.map((p) => p.name)).toEqual(['groq', 'gemini', 'cerebras', 'openrouter', 'mistral', 'ollama']);
  });
});

describe('candidatesFromConfigs', () => {
  it('builds HTTP models for HTTP providers and the offline model last', () => {
    const candidates = candidatesFromConfigs(providerConfigs({ groq: { apiKey: 'k' } }), {
      fetch: () => Promise.reject(new Error('no network in this test')),
      timeoutMs: 1000,
    });
    expect(candidates.map((c) => c.name)).toEqual(['groq', 'offline']);
    expect(candidates[0]!.model.provider).toBe('groq.chat');
    expect(candidates[0]!.model.modelId).toBe('llama-3.1-8b-instant');
    expect(candidates[1]!.model).toBeInstanceOf(OfflineExtractiveModel);
  });
});
