import { readFileSync } from 'node:fs';
import { type Estate as EngineEstate, parseEstate } from '@sandscope/engine';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { type Estate, estateSchema } from './estate.ts';

// The engine's estate (what the agent serves) must be a wire estate: this fails to compile if a field moves on either side.
expectTypeOf<EngineEstate>().toExtend<Estate>();

const loaded = parseEstate(JSON.parse(readFileSync(new URL('../../../corpus/estate.json', import.meta.url), 'utf8')));
if (!loaded.ok) throw new Error(loaded.message);
const estate = loaded.estate;

describe('estateSchema', () => {
  it('parses the corpus estate as the agent serves it', () => {
    expect(estateSchema.parse(estate).services.length).toBe(estate.services.length);
  });

  it('refuses a service whose tier is renamed or sent as a string', () => {
    const [first, ...rest] = estate.services;
    const { tier, ...renamed } = first!;
    expect(estateSchema.safeParse({ ...estate, services: [{ ...renamed, criticality: tier }, ...rest] }).success).toBe(false);
    expect(estateSchema.safeParse({ ...estate, services: [{ ...first, tier: String(tier) }, ...rest] }).success).toBe(false);
  });

  it('refuses a fault whose signals are one string instead of a list', () => {
    const [first, ...rest] = estate.faults;
    expect(estateSchema.safeParse({ ...estate, faults: [{ ...first, signals: first!.signals.join(', ') }, ...rest] }).success).toBe(false);
  });
});
