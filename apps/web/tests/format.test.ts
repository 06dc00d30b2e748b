import { describe, expect, it } from 'vitest';
import { ms, percent, score, shortId, tokens, usd, when } from '../lib/format';

/* Number and time formatting (lib/format.ts): deterministic, no locale, a dash for nothing. */

describe('format', () => {
  it('shows a missing or non-finite value as a dash, everywhere', () => {
    for (const f of [usd, score, percent, ms, tokens]) {
      expect(f(null)).toBe('—');
      expect(f(undefined)).toBe('—');
      expect(f(Number.NaN)).toBe('—');
    }
    expect(when(null)).toBe('—');
  });

  it('usd: fractions of a cent keep three significant digits, trailing zeros dropped', () => {
    expect(usd(0)).toBe('$0');
    expect(usd(0.02)).toBe('$0.02');
    expect(usd(1.5)).toBe('$1.5');
    expect(usd(0.000123)).toBe('$0.000123');
    expect(usd(0.0000004)).toBe('$0.0000004');
    expect(usd(0.0034567)).toBe('$0.00346');
  });

  it('score, percent, tokens and durations', () => {
    expect(score(3)).toBe('3');
    expect(score(0.41618117504936514)).toBe('0.42');
    expect(score(123.4)).toBe('123');
    expect(percent(0.1234)).toBe('12.3%');
    expect(percent(0.5, 0)).toBe('50%');
    expect(tokens(16000.4)).toBe('16000');
    expect(ms(2.345)).toBe('2.3 ms');
    expect(ms(250.6)).toBe('251 ms');
    expect(ms(12_345)).toBe('12.3 s');
  });

  it('when: UTC to the second; a date alone stays a date; garbage is shown as given', () => {
    expect(when('2026-11-30T15:04:05.678Z')).toBe('2026-11-30 15:04:05 UTC');
    expect(when('2026-11-30T16:04:05+01:00')).toBe('2026-11-30 15:04:05 UTC');
    expect(when('2026-11-30')).toBe('2026-11-30');
    expect(when('yesterday')).toBe('yesterday');
  });

  it('shortId keeps short ids whole', () => {
    expect(shortId('0f8c2a1e-7b3d-4c5e-9a6f-1b2c3d4e5f60')).toBe('0f8c2a1e');
    expect(shortId('run-42')).toBe('run-42');
  });
});
