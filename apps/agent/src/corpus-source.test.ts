import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KnowledgeBase, shippedAnswerabilityModel } from '@sandscope/engine';
import { describe, expect, it } from 'vitest';
import { loadCorpusSource } from './corpus-source.ts';

describe('which bands a corpus is scored with', () => {
  it('a corpus never calibrated uses the shipped model\'s bands (trained, validated leave-one-corpus-out), and says so', async () => {
    const source = loadCorpusSource(join(import.meta.dirname, '../../../eval-corpora/harbor-runbooks'));
    expect(source.thresholdsFrom).toBe('shipped');
    expect(source.thresholds).toBeNull();
    const kb = await KnowledgeBase.build({ documents: source.documents, ...(source.thresholds ? { bands: source.thresholds } : {}) });
    expect(kb.bands).toEqual(shippedAnswerabilityModel().bands);
    expect(source.thresholdsPath).toBe(join(source.root, 'thresholds.json'));
  });
  it('a calibrated corpus uses its own bands; a thresholds.json of the old product-score kind is refused with what to do', () => {
    const dir = mkdtempSync(join(tmpdir(), 'bands-'));
    writeFileSync(join(dir, 'runbook.md'), '# Disk\n\nThe disk alert fires at 85 percent.\n');
    writeFileSync(join(dir, 'thresholds.json'), JSON.stringify({ insufficientBelow: 0.2, sufficientAbove: 0.7 }));
    expect(loadCorpusSource(dir)).toMatchObject({ thresholdsFrom: 'corpus', thresholds: { insufficientBelow: 0.2, sufficientAbove: 0.7 } });
    writeFileSync(join(dir, 'thresholds.json'), JSON.stringify({ insufficientBelow: 1, sufficientAbove: 8, minTermCoverage: 0.3 }));
    expect(() => loadCorpusSource(dir)).toThrow(/probability from 0 to 1.*calibrate/);
  });
});
