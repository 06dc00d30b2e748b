import { describe, expect, it } from 'vitest';
import { providerListSchema } from './providers.ts';

const listed = {
  providers: [
    { name: 'groq', model: 'llama-3.3-70b', configured: true },
    { name: 'offline', model: 'extractive-v1', configured: true },
  ],
};

describe('providerListSchema', () => {
  it('parses the providers in the order the agent tries them', () => {
    expect(providerListSchema.parse(listed).providers.map((p) => p.name)).toEqual(['groq', 'offline']);
  });

  it('refuses a provider whose model is renamed or whose configured flag is a string', () => {
    const [groq, offline] = listed.providers;
    const { model, ...renamed } = groq!;
    expect(providerListSchema.safeParse({ providers: [{ ...renamed, modelId: model }, offline] }).success).toBe(false);
    expect(providerListSchema.safeParse({ providers: [{ ...groq, configured: 'yes' }, offline] }).success).toBe(false);
  });

  it('refuses a bare list (the providers are under `providers`)', () => {
    expect(providerListSchema.safeParse(listed.providers).success).toBe(false);
  });
});
