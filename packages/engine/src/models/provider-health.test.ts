import { describe, expect, it } from 'vitest';
import { ProviderHealth, retryAfterSeconds } from './provider-health.ts';
import { manualClock } from './testing/scripted-model.ts';

describe('retryAfterSeconds', () => {
  const now = Date.parse('2026-11-30T12:00:00Z');
  it('reads delta-seconds, an HTTP date and retry-after-ms', () => {
    expect(retryAfterSeconds({ 'retry-after': '7' }, now)).toBe(7);
    expect(retryAfterSeconds({ 'Retry-After': ' 2.5 ' }, now)).toBe(2.5);
    expect(retryAfterSeconds({ 'retry-after': 'Mon, 30 Nov 2026 12:00:20 GMT' }, now)).toBe(20);
    expect(retryAfterSeconds({ 'retry-after-ms': '1500', 'retry-after': '9' }, now)).toBe(1.5);
  });
  it('is undefined when absent or unreadable, so the default applies', () => {
    expect(retryAfterSeconds(undefined, now)).toBeUndefined();
    expect(retryAfterSeconds({}, now)).toBeUndefined();
    expect(retryAfterSeconds({ 'retry-after': 'soon' }, now)).toBeUndefined();
  });
});

describe('ProviderHealth', () => {
  it('disables a provider for the Retry-After interval, on the injected clock', () => {
    const clock = manualClock();
    const health = new ProviderHealth({ clock: clock.now });
    expect(health.markRateLimited('groq', 10)).toBe(10);
    expect(health.isCoolingDown('groq')).toBe(true);
    expect(health.isCoolingDown('gemini')).toBe(false);
    clock.advance(9_999);
    expect(health.isCoolingDown('groq')).toBe(true);
    clock.advance(1);
    expect(health.isCoolingDown('groq')).toBe(false);
  });

  it('caps an absurd Retry-After (default cap 60 s)', () => {
    const clock = manualClock();
    const health = new ProviderHealth({ clock: clock.now });
    expect(health.markRateLimited('groq', 86_400)).toBe(60);
    clock.advance(59_999);
    expect(health.isCoolingDown('groq')).toBe(true);
    clock.advance(1);
    expect(health.isCoolingDown('groq')).toBe(false);
    expect(new ProviderHealth({ clock: clock.now, maxCooldownSeconds: 5 }).markRateLimited('x', 30)).toBe(5);
  });

  it('defaults to 30 s when the provider gave no Retry-After', () => {
    const clock = manualClock();
    const health = new ProviderHealth({ clock: clock.now });
    expect(health.markRateLimited('groq', undefined)).toBe(30);
    clock.advance(29_999);
    expect(health.isCoolingDown('groq')).toBe(true);
    clock.advance(1);
    expect(health.isCoolingDown('groq')).toBe(false);
  });

  it('never shortens a longer cooldown already in force', () => {
    const clock = manualClock();
    const health = new ProviderHealth({ clock: clock.now });
    health.markRateLimited('groq', 50);
    health.markRateLimited('groq', 5);
    clock.advance(10_000);
    expect(health.isCoolingDown('groq')).toBe(true);
  });
});
