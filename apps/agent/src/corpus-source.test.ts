import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_CORPUS_DIR, loadCorpusSource } from './corpus-source.ts';

describe('which thresholds a corpus is scored with', () => {
  it('the bundled corpus uses its own fitted thresholds', () => {
    expect(loadCorpusSource().thresholdsFrom).toBe('corpus');
  });
  it('a corpus never calibrated uses the SHIPPED (cross-validated) thresholds, not the eyeballed defaults, and says so', () => {
    const source = loadCorpusSource(join(import.meta.dirname, '../test-fixtures/harbor-runbooks'));
    expect(source.thresholdsFrom).toBe('shipped');
    const shipped = JSON.parse(readFileSync(join(DEFAULT_CORPUS_DIR, 'thresholds.json'), 'utf8')) as Record<string, unknown>;
    expect(source.thresholds?.sufficientAbove).toBe(shipped['sufficientAbove']);
    expect(source.thresholdsPath).toBe(join(source.root, 'thresholds.json'));
  });
});
