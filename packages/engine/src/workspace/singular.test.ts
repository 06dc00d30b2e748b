import { describe, expect, it } from 'vitest';
import { singularForms } from './singular.ts';

describe('singularForms (S-235)', () => {
  it('gives the singulars a plural may have, most likely first', () => {
    expect(singularForms('errors')).toEqual(['error']);
    expect(singularForms('responses')).toEqual(['response', 'respons']);
    expect(singularForms('crashes')).toEqual(['crashe', 'crash']);
    expect(singularForms('retries')).toEqual(['retry']);
  });

  it('gives none for a word that is not a plural, or is not a plain word', () => {
    for (const word of ['status', 'process', 'analysis', 'error', 'gas', 'db-primary', '502s']) expect(singularForms(word)).toEqual([]);
  });
});
